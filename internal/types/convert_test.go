package types

import (
	"errors"
	"math"
	"math/big"
	"net/netip"
	"testing"
)

func TestEncodeBigInt(t *testing.T) {
	// Minimal two's complement, as the protocol spec's examples.
	tests := []struct {
		n    string
		want string
	}{
		{"0", "00"}, {"1", "01"}, {"127", "7f"}, {"128", "0080"}, {"255", "00ff"}, {"256", "0100"},
		{"-1", "ff"}, {"-128", "80"}, {"-129", "ff7f"}, {"-256", "ff00"}, {"-257", "feff"},
		{"123456789012345678901234567890", "018ee90ff6c373e0ee4e3f0ad2"},
	}
	for _, tt := range tests {
		x, _ := new(big.Int).SetString(tt.n, 10)
		got := EncodeBigInt(x)
		if string(got) != string(h(tt.want)) {
			t.Errorf("EncodeBigInt(%s) = %x, want %s", tt.n, got, tt.want)
		}
		if back := varintToBig(got); back.Cmp(x) != 0 {
			t.Errorf("varintToBig(%x) = %s", got, back)
		}
	}
}

func TestInt64(t *testing.T) {
	tests := []struct {
		typ  *Type
		v    string
		want int64
		err  bool
	}{
		{typ: Tinyint, v: "ff", want: -1},
		{typ: Smallint, v: "8000", want: math.MinInt16},
		{typ: Int, v: "7fffffff", want: math.MaxInt32},
		{typ: Bigint, v: "8000000000000000", want: math.MinInt64},
		{typ: Counter, v: "0000000000000005", want: 5},
		{typ: Timestamp, v: "ffffffffffffffff", want: -1},
		{typ: Varint, v: "ff7f", want: -129},
		{typ: Varint, v: "008000000000000000", err: true},
		{typ: Int, v: "0001", err: true},
		{typ: Text, v: "61", err: true},
	}
	for _, tt := range tests {
		got, err := Int64(tt.typ, h(tt.v))
		if (err != nil) != tt.err || !tt.err && got != tt.want {
			t.Errorf("Int64(%s, %s) = %d, %v", tt.typ, tt.v, got, err)
		}
	}
	if _, err := Int64(Int, []byte{}); !errors.Is(err, ErrEmptyValue) {
		t.Errorf("empty value: %v", err)
	}
}

func TestEncodeInt(t *testing.T) {
	for _, tt := range []struct {
		typ *Type
		n   int64
		ok  bool
	}{
		{Tinyint, 127, true}, {Tinyint, 128, false}, {Smallint, -32768, true}, {Smallint, -32769, false},
		{Int, math.MaxInt32, true}, {Int, math.MaxInt32 + 1, false}, {Bigint, math.MinInt64, true},
		{Varint, math.MinInt64, true}, {Time, -1, false}, {Text, 1, false},
	} {
		v, err := EncodeInt(tt.typ, tt.n)
		if (err == nil) != tt.ok {
			t.Errorf("EncodeInt(%s, %d): %v", tt.typ, tt.n, err)
			continue
		}
		if tt.ok {
			if back, _ := Int64(tt.typ, v); back != tt.n {
				t.Errorf("EncodeInt(%s, %d) round trip = %d", tt.typ, tt.n, back)
			}
		}
	}
}

func TestFloat64AndDecimal(t *testing.T) {
	tests := []struct {
		typ  *Type
		v    []byte
		want float64
	}{
		{Double, EncodeDouble(1.25), 1.25},
		{Float, EncodeFloat(0.5), 0.5},
		{Int, h("fffffffe"), -2},
		{Varint, h("0100"), 256},
		{Decimal, EncodeDecimal(big.NewInt(150), 2), 1.5},
		{Decimal, EncodeDecimal(big.NewInt(15), -2), 1500},
	}
	for _, tt := range tests {
		if got, err := Float64(tt.typ, tt.v); err != nil || got != tt.want {
			t.Errorf("Float64(%s, %x) = %v, %v", tt.typ, tt.v, got, err)
		}
	}
	u, scale, err := DecodeDecimal(EncodeDecimal(big.NewInt(-12345), 3))
	if err != nil || u.Int64() != -12345 || scale != 3 {
		t.Errorf("DecodeDecimal = %v %d %v", u, scale, err)
	}
	if got := bigDecimalString(big.NewInt(-12345), 3); got != "-12.345" {
		t.Errorf("bigDecimalString = %s", got)
	}
	b, err := BigInt(Smallint, h("ff00"))
	if err != nil || b.Int64() != -256 {
		t.Errorf("BigInt = %v %v", b, err)
	}
}

func TestSmallConversions(t *testing.T) {
	if v, err := DecodeBoolean(h("02")); err != nil || !v {
		t.Errorf("DecodeBoolean = %v %v", v, err)
	}
	a, err := DecodeInet(EncodeInet(netip.MustParseAddr("10.1.2.3")))
	if err != nil || a.String() != "10.1.2.3" {
		t.Errorf("DecodeInet = %v %v", a, err)
	}
	if _, err := DecodeInet(h("0102")); err == nil {
		t.Error("DecodeInet accepted 2 bytes")
	}
	d, _ := EncodeDate(0)
	if days, err := DateDays(d); err != nil || days != 0 || string(d) != string(h("80000000")) {
		t.Errorf("EncodeDate/DateDays: %x %d %v", d, days, err)
	}
	if _, err := EncodeTime(nanosPerDay); err == nil {
		t.Error("EncodeTime accepted 24:00")
	}
	if EncodeText("x")[0] != 'x' || EncodeBoolean(true)[0] != 1 || len(EncodeTimestamp(0)) != 8 {
		t.Error("simple encoders")
	}
}
