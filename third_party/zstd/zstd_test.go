package zstd

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestRoundTrip compresses, in place as Pebble asks, and decompresses
// compressible, incompressible and empty inputs at Pebble's levels.
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 300<<10)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	inputs := map[string][]byte{
		"empty":           {},
		"text":            bytes.Repeat([]byte("partition key, clustering key, cell; "), 2000),
		"random-small":    random[:100],
		"random-block":    random[:128<<10],
		"random-blocks":   random,
		"one-byte":        {7},
		"zeros-unaligned": make([]byte, 70_001),
	}
	c := NewCtx()
	for name, src := range inputs {
		for _, level := range []int{1, 3, 7} {
			dst := make([]byte, 0, CompressBound(len(src)))
			out, err := c.CompressLevel(dst[:cap(dst)], src, level)
			if err != nil {
				t.Fatalf("%s level %d: %v", name, level, err)
			}
			if len(out) > 0 && &out[0] != &dst[:1][0] {
				t.Fatalf("%s level %d: %d compressed bytes outside the %d CompressBound gave", name, level, len(out), cap(dst))
			}
			back := make([]byte, len(src))
			n, err := c.DecompressInto(back, out)
			if err != nil || n != len(src) || !bytes.Equal(back, src) {
				t.Fatalf("%s level %d: round trip gave %d bytes, %v", name, level, n, err)
			}
		}
	}
	if _, err := c.DecompressInto(make([]byte, 10), mustCompress(t, c, inputs["text"])); err == nil {
		t.Fatal("decompressing into a short buffer did not fail")
	}
}

func mustCompress(t *testing.T, c Ctx, src []byte) []byte {
	t.Helper()
	out, err := c.CompressLevel(make([]byte, CompressBound(len(src))), src, 3)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
