package token

import (
	"bytes"
	"testing"
)

// FuzzSplitKey checks that SplitKey never panics and that whatever it accepts
// serializes back to the same bytes (invariant 3).
func FuzzSplitKey(f *testing.F) {
	f.Add([]byte{0, 4, 0, 0, 0, 1, 0, 0, 1, 'a', 0}, 2)
	f.Add([]byte{0, 0, 0, 0, 0, 0}, 2)
	f.Add([]byte{0xff, 0xff, 0}, 2)
	f.Add([]byte{}, 3)
	f.Add([]byte{0, 1, 'a', 0}, -1)
	f.Fuzz(func(t *testing.T, key []byte, n int) {
		n %= 8 // keep the component count realistic; negative stays invalid
		parts, err := SplitKey(key, n)
		if err != nil {
			return
		}
		if len(parts) != n {
			t.Fatalf("SplitKey(%x, %d) returned %d components", key, n, len(parts))
		}
		if again := SerializeKey(parts); !bytes.Equal(again, key) {
			t.Fatalf("SerializeKey(SplitKey(%x, %d)) = %x", key, n, again)
		}
		_ = Of(key)
	})
}
