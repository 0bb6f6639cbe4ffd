package types

import (
	"errors"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/cqlerr"
)

func TestLiteralAssignment(t *testing.T) {
	tests := []struct {
		typ  *Type
		kind LiteralKind
		text string
		want Assignment
	}{
		{Ascii, LitString, "abc", ExactMatch},
		{Text, LitString, "abc", WeaklyAssignable},
		{Text, LitString, "é", ExactMatch},
		{Timestamp, LitString, "2026-01-20", WeaklyAssignable},
		{Blob, LitString, "ab", NotAssignable},
		{UUID, LitString, "550e8400-e29b-41d4-a716-446655440000", NotAssignable},
		{Int, LitInteger, "1", ExactMatch},
		{Bigint, LitInteger, "1", WeaklyAssignable},
		{Bigint, LitInteger, "3000000000", ExactMatch},
		{Varint, LitInteger, "30000000000000000000", ExactMatch},
		{Duration, LitInteger, "1", WeaklyAssignable},
		{Text, LitInteger, "1", NotAssignable},
		{Double, LitFloat, "1.5", ExactMatch},
		{Double, LitFloat, "NaN", ExactMatch},
		// Constants.Type.FLOAT: a double when BigDecimal.valueOf(double)
		// (Double.toString) gives the literal back, as for 0.1; Cassandra
		// 5.0.6 types `f + 0.1` as double.
		{Double, LitFloat, "0.1", ExactMatch},
		{Decimal, LitFloat, "0.1", WeaklyAssignable},
		{Decimal, LitFloat, "0.1000000000000000000001", ExactMatch},
		{Float, LitFloat, "1.5", WeaklyAssignable},
		{Timeuuid, LitUUID, "50554d6e-29bb-11e5-b345-feff819cdc9f", ExactMatch},
		{UUID, LitUUID, "50554d6e-29bb-11e5-b345-feff819cdc9f", WeaklyAssignable},
		{Blob, LitHex, "0x00", WeaklyAssignable},
		{Boolean, LitBoolean, "true", ExactMatch},
		{Duration, LitDuration, "1h", ExactMatch},
		{ListOf(Int), LitInteger, "1", NotAssignable},
		{CustomOf("x.Y"), LitString, "a", WeaklyAssignable},
	}
	for _, tt := range tests {
		if got := LiteralAssignment(tt.typ, tt.kind, tt.text); got != tt.want {
			t.Errorf("LiteralAssignment(%s, %s, %q) = %d, want %d", tt.typ, tt.kind, tt.text, got, tt.want)
		}
	}
}

func TestLiteralErrors(t *testing.T) {
	_, err := FromString(Int, "x")
	var na *NotAssignableError
	if !errors.As(err, &na) || na.Kind != LitString || na.Type != Int {
		t.Fatalf("FromString(int): %v", err)
	}
	got := LiteralErrorFor(err, "v")
	if !cqlerr.Is(got, cqlerr.Invalid) || got.Error() != `Invalid 0x2200: Invalid STRING constant (x) for "v" of type int` {
		t.Errorf("LiteralErrorFor = %v", got)
	}
	_, err = FromInteger(Int, "99999999999")
	if LiteralErrorFor(err, "v") != err || !cqlerr.Is(err, cqlerr.Invalid) {
		t.Errorf("range error: %v", err)
	}
}

func TestTimestampNow(t *testing.T) {
	defer func(f func() time.Time) { nowFunc = f }(nowFunc)
	nowFunc = func() time.Time { return time.UnixMilli(1768888800000) }
	v, err := FromString(Timestamp, "NOW")
	if err != nil {
		t.Fatal(err)
	}
	if ms, _ := Int64(Timestamp, v); ms != 1768888800000 {
		t.Errorf("now = %d", ms)
	}
}

func TestLiteralConstructors(t *testing.T) {
	for _, c := range []struct {
		f    func(*Type, string) ([]byte, error)
		typ  *Type
		text string
		want string
	}{
		{FromFloat, Float, "1.5", "3fc00000"},
		{FromBool, Boolean, "True", "01"},
		{FromUUID, UUID, "550e8400-e29b-41d4-a716-446655440000", "550e8400e29b41d4a716446655440000"},
		{FromHex, Blob, "0xCAFE", "cafe"},
		{FromDuration, Duration, "1mo2d3ns", "020406"},
		{FromInteger, Date, "2147483648", "80000000"},
		{FromInteger, Time, "1", "0000000000000001"},
	} {
		v, err := c.f(c.typ, c.text)
		if err != nil || string(v) != string(h(c.want)) {
			t.Errorf("%s %q = %x, %v; want %s", c.typ, c.text, v, err, c.want)
		}
	}
	if v, _ := FromString(Text, "a\xffb"); string(v) != "a\uFFFDb" {
		t.Errorf("malformed UTF-8 literal = %q", v)
	}
}
