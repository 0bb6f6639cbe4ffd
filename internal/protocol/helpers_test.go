package protocol

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/types"
)

// unhex decodes hex written with spaces, newlines and "#" comments.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	var clean strings.Builder
	for line := range strings.SplitSeq(s, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		clean.WriteString(strings.Join(strings.Fields(line), ""))
	}
	b, err := hex.DecodeString(clean.String())
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

// readOne reads exactly one frame from b.
func readOne(t testing.TB, b []byte) Frame {
	t.Helper()
	f, err := ReadFrame(bufio.NewReader(bytes.NewReader(b)), DefaultMaxBody)
	if err != nil {
		t.Fatalf("ReadFrame: %v", err)
	}
	return f
}

// roundTripRequest encodes req as a frame, reads it back and decodes it.
func roundTripRequest(t testing.TB, req Request) Request {
	t.Helper()
	f := readOne(t, AppendRequest(nil, 7, req))
	if f.Header.Stream != 7 || f.Header.Opcode != req.Opcode() || f.Header.Response {
		t.Fatalf("header %+v", f.Header)
	}
	got, err := DecodeRequest(f)
	if err != nil {
		t.Fatalf("DecodeRequest(%s): %v", describe(req), err)
	}
	return got
}

// roundTripResponse encodes resp as a frame, reads it back and decodes it.
func roundTripResponse(t testing.TB, resp Response) Response {
	t.Helper()
	f := readOne(t, EncodeResponse(nil, 9, resp, nil, nil))
	if f.Header.Stream != 9 || f.Header.Opcode != resp.Opcode() || !f.Header.Response {
		t.Fatalf("header %+v", f.Header)
	}
	got, _, err := DecodeResponse(f)
	if err != nil {
		t.Fatalf("DecodeResponse(%s): %v", describe(resp), err)
	}
	return got
}

// checkRoundTrip asserts that m survives a round trip through the wire, in
// whichever direction it travels.
func checkRoundTrip(t *testing.T, m Message) {
	t.Helper()
	var got Message
	switch m := m.(type) {
	case Request:
		got = roundTripRequest(t, m)
	case Response:
		got = roundTripResponse(t, m)
	}
	if d1, d2 := describe(m), describe(got); d1 != d2 {
		t.Fatalf("round trip changed the message:\n want %s\n  got %s", d1, d2)
	}
	if b1, b2 := m.Encode(nil), got.Encode(nil); !bytes.Equal(b1, b2) {
		t.Fatalf("re-encoding differs:\n want %x\n  got %x", b1, b2)
	}
}

// errText prints an error the way datadriven output shows it.
func errText(err error) string {
	var ce *cqlerr.Error
	if errors.As(err, &ce) {
		return fmt.Sprintf("error (%s): %s", ce.Code, ce.Message)
	}
	return fmt.Sprintf("error: %v", err)
}

// wantProtocolError asserts err is a Protocol error containing substr.
func wantProtocolError(t testing.TB, err error, substr string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want Protocol error %q", substr)
	}
	if !cqlerr.Is(err, cqlerr.ProtocolError) {
		t.Fatalf("got %v, want a Protocol error", err)
	}
	if !strings.Contains(err.Error(), substr) {
		t.Fatalf("got %q, want it to contain %q", err.Error(), substr)
	}
}

// describe prints a message compactly and deterministically: struct fields
// that are zero are left out, byte slices print as hex (null as "null"),
// types print as CQL text, maps in key order.
func describe(v any) string {
	var b strings.Builder
	describeValue(&b, reflect.ValueOf(v))
	return b.String()
}

var typeType = reflect.TypeFor[*types.Type]()

func describeValue(b *strings.Builder, v reflect.Value) {
	if !v.IsValid() {
		b.WriteString("nil")
		return
	}
	if v.Type() == typeType {
		if v.IsNil() {
			b.WriteString("nil")
		} else {
			b.WriteString(v.Interface().(*types.Type).String())
		}
		return
	}
	if s, ok := v.Interface().(fmt.Stringer); ok && v.Kind() != reflect.Pointer && v.Kind() != reflect.Struct {
		b.WriteString(s.String())
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		describeValue(b, v.Elem())
	case reflect.Struct:
		describeStruct(b, v)
	case reflect.Slice:
		describeSlice(b, v)
	case reflect.Array:
		fmt.Fprintf(b, "0x%x", v.Bytes())
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(x, y reflect.Value) int { return strings.Compare(x.String(), y.String()) })
		b.WriteString("{")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(b, "%q:", k.String())
			describeValue(b, v.MapIndex(k))
		}
		b.WriteString("}")
	case reflect.String:
		fmt.Fprintf(b, "%q", v.String())
	default:
		fmt.Fprintf(b, "%v", v.Interface())
	}
}

func describeStruct(b *strings.Builder, v reflect.Value) {
	if v.Type() == reflect.TypeFor[Value]() {
		val := v.Interface().(Value)
		switch {
		case val.Unset:
			b.WriteString("unset")
		case val.Bytes == nil:
			b.WriteString("null")
		default:
			fmt.Fprintf(b, "0x%x", val.Bytes)
		}
		return
	}
	if a, ok := v.Interface().(interface{ String() string }); ok && v.Type().String() == "netip.AddrPort" {
		b.WriteString(a.String())
		return
	}
	b.WriteString(v.Type().Name())
	b.WriteString("{")
	first := true
	for i := range v.NumField() {
		f := v.Field(i)
		if !v.Type().Field(i).IsExported() || isEmpty(f) {
			continue
		}
		var field strings.Builder
		describeValue(&field, f)
		if f.Kind() == reflect.Struct && strings.HasSuffix(field.String(), "{}") {
			continue // a struct with nothing but empty fields
		}
		if !first {
			b.WriteString(" ")
		}
		first = false
		b.WriteString(v.Type().Field(i).Name)
		b.WriteString(":")
		b.WriteString(field.String())
	}
	b.WriteString("}")
}

// isEmpty reports whether a field is left out of a description: a zero
// value, or an empty slice or map other than a byte slice (for which empty
// and null differ).
func isEmpty(f reflect.Value) bool {
	switch {
	case f.IsZero():
		return true
	case f.Kind() == reflect.Map:
		return f.Len() == 0
	case f.Kind() == reflect.Slice:
		return f.Len() == 0 && f.Type().Elem().Kind() != reflect.Uint8
	}
	return false
}

func describeSlice(b *strings.Builder, v reflect.Value) {
	if v.Type().Elem().Kind() == reflect.Uint8 {
		if v.IsNil() {
			b.WriteString("null")
		} else {
			fmt.Fprintf(b, "0x%x", v.Bytes())
		}
		return
	}
	b.WriteString("[")
	for i := range v.Len() {
		if i > 0 {
			b.WriteString(" ")
		}
		describeValue(b, v.Index(i))
	}
	b.WriteString("]")
}
