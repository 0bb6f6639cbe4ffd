package types

import (
	"testing"
)

type benchKey struct {
	name string
	typ  *Type
	v    []byte
}

func benchKeys() []benchKey {
	i, _ := EncodeInt(Int, 123456)
	return []benchKey{
		{"int", Int, i},
		{"text", Text, []byte("a moderately long clustering text value")},
		{"timestamp", Timestamp, EncodeTimestamp(1768888800000)},
		{"timeuuid", Timeuuid, NewTimeUUID()},
	}
}

func BenchmarkAppendKey(b *testing.B) {
	for _, bk := range benchKeys() {
		b.Run(bk.name, func(b *testing.B) {
			buf := make([]byte, 0, 64)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				buf = AppendKey(buf[:0], bk.typ, bk.v, false)
			}
		})
	}
}

func BenchmarkDecodeKey(b *testing.B) {
	for _, bk := range benchKeys() {
		b.Run(bk.name, func(b *testing.B) {
			k := AppendKey(nil, bk.typ, bk.v, true)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, _, err := DecodeKey(bk.typ, k, true); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A typical time-series clustering key: (day date, ts timestamp DESC,
// id timeuuid).
func BenchmarkCompositeKey(b *testing.B) {
	day, _ := EncodeDate(20473)
	types := []*Type{Date, Timestamp, Timeuuid}
	desc := []bool{false, true, false}
	vals := [][]byte{day, EncodeTimestamp(1768888800000), NewTimeUUID()}
	b.Run("append", func(b *testing.B) {
		buf := make([]byte, 0, 64)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			buf = buf[:0]
			for j, typ := range types {
				buf = AppendKey(buf, typ, vals[j], desc[j])
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		var k []byte
		for j, typ := range types {
			k = AppendKey(k, typ, vals[j], desc[j])
		}
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			rest := k
			for j, typ := range types {
				var err error
				if _, rest, err = DecodeKey(typ, rest, desc[j]); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

func BenchmarkCompare(b *testing.B) {
	x, y := NewTimeUUID(), NewTimeUUID()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Compare(Timeuuid, x, y)
	}
}
