package split

import (
	"bytes"
	"encoding/binary"
	"testing"

	"pgregory.net/rapid"
)

func rankKey(i int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(i)) }

// TestKeySample: the sample stays bounded, answers every rank with a key
// at most one stride before it, and the last rank exactly; split points
// cut from it are strictly ascending keys of the partition.
func TestKeySample(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Int64Range(1, 40_000).Draw(t, "rows")
		var s keySample
		for i := int64(0); i < n; i++ {
			s.add(rankKey(i))
		}
		if s.rows() != n || len(s.keys) > 2*sampleKeys {
			t.Fatalf("rows %d (want %d), %d keys kept", s.rows(), n, len(s.keys))
		}
		if n <= 2*sampleKeys && s.stride != 1 {
			t.Fatalf("%d rows sampled with stride %d, want every key", n, s.stride)
		}
		for _, r := range []int64{0, n / 3, n / 2, n - 2, n - 1, rapid.Int64Range(0, n-1).Draw(t, "rank")} {
			if r < 0 {
				continue
			}
			got := int64(binary.BigEndian.Uint64(s.at(r)))
			if got > r || got <= r-s.stride || (r == n-1 && got != r) {
				t.Fatalf("at(%d) = %d with stride %d", r, got, s.stride)
			}
		}
		maxRows := rapid.Int64Range(1, 20_000).Draw(t, "maxRows")
		appendOnly, ascending := rapid.Bool().Draw(t, "appendOnly"), rapid.Bool().Draw(t, "ascending")
		cuts := rangeCuts(&s, maxRows, appendOnly, ascending)
		for i := 1; i < len(cuts); i++ {
			if bytes.Compare(cuts[i-1], cuts[i]) >= 0 {
				t.Fatalf("cuts not ascending at %d: %x, %x", i, cuts[i-1], cuts[i])
			}
		}
	})
}

// TestKeySampleLargePartition: a million rows keep at most 2*sampleKeys
// keys, and a half-full range split of them yields pieces within one
// stride of their planned size.
func TestKeySampleLargePartition(t *testing.T) {
	var s keySample
	const n = 1_000_000
	for i := int64(0); i < n; i++ {
		s.add(rankKey(i))
	}
	if len(s.keys) > 2*sampleKeys {
		t.Fatalf("%d keys kept", len(s.keys))
	}
	cuts := rangeCuts(&s, 100_000, false, true)
	if len(cuts) != 19 {
		t.Fatalf("%d cuts, want 19 (pieces of 50,000 rows)", len(cuts))
	}
	prev := int64(0)
	for _, c := range cuts {
		at := int64(binary.BigEndian.Uint64(c))
		if size := at - prev; size < 50_000-s.stride || size > 50_000+s.stride {
			t.Fatalf("piece of %d rows, want 50,000 ± %d", size, s.stride)
		}
		prev = at
	}
}
