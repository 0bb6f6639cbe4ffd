package types

import (
	"bytes"
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}

// K1 + K3: one component round-trips and orders as Compare, both ways.
func TestKeyOrderAndRoundTrip(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		typ := genType(2).Draw(rt, "type")
		malformed := rapid.Bool().Draw(rt, "malformed")
		a := genValue(typ, malformed).Draw(rt, "a")
		b := genValue(typ, malformed).Draw(rt, "b")
		for _, desc := range []bool{false, true} {
			ka := AppendKey(nil, typ, a, desc)
			kb := AppendKey(nil, typ, b, desc)
			for _, kv := range []struct{ k, v []byte }{{ka, a}, {kb, b}} {
				got, rest, err := DecodeKey(typ, kv.k, desc)
				if err != nil || len(rest) != 0 || got == nil || Compare(typ, got, kv.v) != 0 ||
					!bytes.Equal(AppendKey(nil, typ, got, desc), kv.k) {
					rt.Fatalf("%s desc=%v: round trip of %x: got %x rest %x err %v", typ, desc, kv.v, got, rest, err)
				}
			}
			want := sign(Compare(typ, a, b))
			if desc {
				want = -want
			}
			if got := sign(bytes.Compare(ka, kb)); got != want {
				rt.Fatalf("%s desc=%v: Compare(%x, %x) sign %d, keys %x %x sign %d", typ, desc, a, b, want, ka, kb, got)
			}
		}
		if c1, c2 := Compare(typ, a, b), Compare(typ, b, a); sign(c1) != -sign(c2) {
			rt.Fatalf("%s: Compare not antisymmetric on %x, %x: %d %d", typ, a, b, c1, c2)
		}
	})
}

// K2: concatenated components with mixed directions compare
// lexicographically, component by component, prefixes first.
func TestCompositeKeyOrder(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 4).Draw(rt, "columns")
		types := make([]*Type, n)
		desc := make([]bool, n)
		for i := range types {
			types[i] = genType(1).Draw(rt, fmt.Sprintf("type%d", i))
			desc[i] = rapid.Bool().Draw(rt, fmt.Sprintf("desc%d", i))
		}
		row := func(name string) [][]byte {
			k := rapid.IntRange(0, n).Draw(rt, name+"len")
			out := make([][]byte, k)
			for i := range out {
				out[i] = genValue(types[i], false).Draw(rt, fmt.Sprintf("%s%d", name, i))
			}
			return out
		}
		a, b := row("a"), row("b")
		want := 0
		for i := 0; i < min(len(a), len(b)) && want == 0; i++ {
			want = sign(Compare(types[i], a[i], b[i]))
			if desc[i] {
				want = -want
			}
		}
		if want == 0 {
			want = sign(len(a) - len(b))
		}
		ka, kb := compositeKey(types, desc, a), compositeKey(types, desc, b)
		if got := sign(bytes.Compare(ka, kb)); got != want {
			rt.Fatalf("composite order: want %d got %d\na=%x\nb=%x", want, got, ka, kb)
		}
		// Decoding walks the components back.
		rest := ka
		for i, v := range a {
			var got []byte
			var err error
			got, rest, err = DecodeKey(types[i], rest, desc[i])
			if err != nil || Compare(types[i], got, v) != 0 {
				rt.Fatalf("component %d: got %x want %x err %v", i, got, v, err)
			}
		}
		if len(rest) != 0 {
			rt.Fatalf("trailing bytes %x", rest)
		}
	})
}

func compositeKey(types []*Type, desc []bool, vals [][]byte) []byte {
	var k []byte
	for i, v := range vals {
		k = AppendKey(k, types[i], v, desc[i])
	}
	return k
}

func TestBytesKey(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		alphabet := rapid.SampledFrom([]byte{0, 1, 0xfe, 0xff, 'x'})
		a := rapid.SliceOfN(alphabet, 0, 6).Draw(rt, "a")
		b := rapid.SliceOfN(alphabet, 0, 6).Draw(rt, "b")
		ka, kb := AppendBytesKey(nil, a), AppendBytesKey(nil, b)
		if sign(bytes.Compare(ka, kb)) != sign(bytes.Compare(a, b)) {
			rt.Fatalf("order of %x, %x", a, b)
		}
		suffix := []byte{9, 9}
		got, rest, err := DecodeBytesKey(append(ka, suffix...))
		if err != nil || !bytes.Equal(got, a) || !bytes.Equal(rest, suffix) {
			rt.Fatalf("decode %x: %x %x %v", a, got, rest, err)
		}
	})
}
