package token

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/cqlerr"
	"pgregory.net/rapid"
)

func TestSerializeKeySingleComponent(t *testing.T) {
	value := make([]byte, 4, 16)
	copy(value, "abcd")
	key := SerializeKey([][]byte{value})
	if !bytes.Equal(key, value) {
		t.Fatalf("SerializeKey = %x, want the value %x", key, value)
	}
	// An append to the key must not write into the caller's spare capacity.
	_ = append(key, 'x')
	if got := value[:5][4]; got != 0 {
		t.Fatalf("append to the key wrote %q into the component's buffer", got)
	}
}

func TestSerializeKeyNoComponents(t *testing.T) {
	if key := SerializeKey(nil); len(key) != 0 {
		t.Fatalf("SerializeKey(nil) = %x, want empty", key)
	}
}

// TestSplitKeyRoundTrip checks invariant 3 on random composite keys.
func TestSplitKeyRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		components := rapid.SliceOfN(rapid.SliceOfN(rapid.Byte(), 0, 40), 2, 6).Draw(t, "components")
		key := SerializeKey(components)
		back, err := SplitKey(key, len(components))
		if err != nil {
			t.Fatalf("SplitKey(%x, %d): %v", key, len(components), err)
		}
		for i := range components {
			if !bytes.Equal(back[i], components[i]) {
				t.Fatalf("component %d = %x, want %x", i, back[i], components[i])
			}
		}
		// Any other component count fails: fewer leave bytes over, more
		// run out of bytes.
		for _, n := range []int{len(components) - 1, len(components) + 1} {
			if n >= 2 {
				if _, err := SplitKey(key, n); err == nil {
					t.Fatalf("SplitKey(%x, %d) succeeded for a %d-component key", key, n, len(components))
				}
			}
		}
	})
}

func TestSplitKeyLongComponent(t *testing.T) {
	long := bytes.Repeat([]byte{0xab}, MaxKeyLength-10)
	key := SerializeKey([][]byte{long, []byte("x")})
	parts, err := SplitKey(key, 2)
	if err != nil || !bytes.Equal(parts[0], long) || string(parts[1]) != "x" {
		t.Fatalf("SplitKey of a long component failed: %v", err)
	}
}

func TestValidateKey(t *testing.T) {
	tests := []struct {
		name    string
		key     []byte
		wantMsg string
	}{
		{"empty", nil, "Key may not be empty"},
		{"one byte", []byte{0}, ""},
		{"maximum", make([]byte, MaxKeyLength), ""},
		{"too long", make([]byte, MaxKeyLength+1), "Key length of 65536 is longer than maximum of 65535"},
		{"oversized component", SerializeKey([][]byte{make([]byte, 70000), {1}}), "Key length of 70007 is longer than maximum of 65535"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateKey(tc.key)
			if tc.wantMsg == "" {
				if err != nil {
					t.Fatalf("ValidateKey: %v", err)
				}
				return
			}
			var cerr *cqlerr.Error
			if !errors.As(err, &cerr) || cerr.Code != cqlerr.Invalid || !strings.Contains(cerr.Message, tc.wantMsg) {
				t.Fatalf("ValidateKey error = %v, want Invalid %q", err, tc.wantMsg)
			}
		})
	}
}
