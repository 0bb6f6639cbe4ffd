package types

import (
	"bytes"
	"testing"
)

// fuzzTypes are the types the fuzzers pick from by index.
var fuzzTypes = []*Type{
	Int, Bigint, Smallint, Tinyint, Boolean, Float, Double, Decimal, Varint, Text, Ascii,
	Blob, UUID, Timeuuid, Timestamp, Date, Time, Inet, Duration,
	ListOf(Int), SetOf(Text), MapOf(Text, Int), Frozen(ListOf(Frozen(SetOf(Varint)))),
	TupleOf(Int, Text, Decimal), Frozen(MapOf(Timeuuid, TupleOf(Boolean, Double))),
	Frozen(UDTOf("ks", "u", []string{"a", "b"}, []*Type{Text, Frozen(ListOf(Int))})),
}

func fuzzType(i uint8) *Type { return fuzzTypes[int(i)%len(fuzzTypes)] }

// FuzzValidate: Validate never panics, and whatever it accepts can be
// compared, formatted and key-encoded, and the key decodes back to an equal
// value.
func FuzzValidate(f *testing.F) {
	f.Add(uint8(0), []byte{0, 0, 0, 1})
	f.Add(uint8(7), []byte{0, 0, 0, 2, 0x96})
	f.Add(uint8(19), []byte{0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 7})
	f.Add(uint8(23), []byte{0, 0, 0, 4, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff})
	f.Add(uint8(18), []byte{2, 4, 6})
	f.Fuzz(func(t *testing.T, ti uint8, v []byte) {
		typ := fuzzType(ti)
		if Validate(typ, v) != nil {
			return
		}
		_ = Format(typ, v)
		_ = FormatLiteral(typ, v)
		if Compare(typ, v, v) != 0 {
			t.Fatalf("%s: %x does not equal itself", typ, v)
		}
		for _, desc := range []bool{false, true} {
			k := AppendKey(nil, typ, v, desc)
			got, rest, err := DecodeKey(typ, k, desc)
			if err != nil || len(rest) != 0 || Compare(typ, got, v) != 0 {
				t.Fatalf("%s desc=%v: %x -> key %x -> %x, %v", typ, desc, v, k, got, err)
			}
		}
	})
}

// FuzzDecodeKey: DecodeKey never panics on arbitrary bytes, and a value it
// returns re-encodes to the bytes it consumed.
func FuzzDecodeKey(f *testing.F) {
	f.Add(uint8(0), false, AppendKey(nil, Int, []byte{0, 0, 0, 1}, false))
	f.Add(uint8(7), true, AppendKey(nil, Decimal, []byte{0, 0, 0, 2, 0x96}, true))
	f.Add(uint8(9), false, AppendKey(nil, Text, []byte("a\x00b"), false))
	f.Add(uint8(24), false, []byte{3, 3, 0x80, 0, 0})
	f.Fuzz(func(t *testing.T, ti uint8, desc bool, key []byte) {
		typ := fuzzType(ti)
		v, rest, err := DecodeKey(typ, key, desc)
		if err != nil {
			return
		}
		consumed := key[:len(key)-len(rest)]
		again := AppendKey(nil, typ, v, desc)
		v2, _, err := DecodeKey(typ, again, desc)
		if err != nil || !bytes.Equal(v2, v) {
			t.Fatalf("%s: decoded %x from %x re-encodes to %x -> %x (%v)", typ, v, consumed, again, v2, err)
		}
	})
}

// FuzzParseLiteral: literal parsing never panics, and accepted values are
// valid for their type.
func FuzzParseLiteral(f *testing.F) {
	for _, s := range []string{"2026-01-20T06:00:00Z", "1h30m", "P1Y2M", "06:00:00.5", "-0001-12-31",
		"1e10", "NaN", "0xcafe", "550e8400-e29b-41d4-a716-446655440000", "::1"} {
		f.Add(uint8(0), uint8(0), s)
	}
	f.Fuzz(func(t *testing.T, ti, ki uint8, text string) {
		typ := fuzzType(ti)
		kind := LiteralKind(int(ki) % len(literalKindNames))
		v, err := ParseLiteral(typ, kind, text)
		if err != nil {
			return
		}
		if err := Validate(typ, v); err != nil {
			t.Fatalf("%s %s %q: parsed %x is invalid: %v", typ, kind, text, v, err)
		}
	})
}

// FuzzParseType: ParseType never panics, and what it parses prints back
// to a string that parses to an equal type.
func FuzzParseType(f *testing.F) {
	f.Add("frozen<map<text, frozen<list<int>>>>")
	f.Add("tuple<int,'a.B'>")
	f.Fuzz(func(t *testing.T, s string) {
		typ, err := ParseType(s, nil)
		if err != nil {
			return
		}
		again, err := ParseType(typ.String(), nil)
		if err != nil || !again.Equal(typ) {
			t.Fatalf("%q -> %s -> %v (%v)", s, typ, again, err)
		}
	})
}

// FuzzSkipBytesKey: SkipBytesKey accepts exactly what DecodeBytesKey
// accepts and leaves the same rest.
func FuzzSkipBytesKey(f *testing.F) {
	f.Add(AppendBytesKey(nil, []byte("a\x00b")))
	f.Add([]byte{'a', 0, 0xFF, 0, 2})
	f.Add([]byte{0, 1, 9})
	f.Fuzz(func(t *testing.T, src []byte) {
		_, want, derr := DecodeBytesKey(src)
		got, serr := SkipBytesKey(src)
		if (derr == nil) != (serr == nil) || (derr == nil && !bytes.Equal(got, want)) {
			t.Fatalf("%x: decode rest %x err %v, skip rest %x err %v", src, want, derr, got, serr)
		}
	})
}
