package exec

import (
	"math"
	"testing"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/token"
)

// TestTokenEntrySlice checks which index entries a token range keeps: an
// entry key starts with its base token, and any bytes may follow it.
func TestTokenEntrySlice(t *testing.T) {
	entry := func(tok int64, rest ...byte) []byte {
		return append(token.AppendOrdered(nil, token.Token(tok)), rest...)
	}
	bound := func(tok int64, inclusive bool) *backend.TokenBound {
		return &backend.TokenBound{Token: token.Token(tok), Inclusive: inclusive}
	}
	for _, tc := range []struct {
		name       string
		start, end *backend.TokenBound
		in, out    [][]byte
	}{
		{name: "unbounded", in: [][]byte{entry(math.MinInt64), entry(math.MaxInt64, 0xFF)}},
		{name: "inclusive", start: bound(-5, true), end: bound(7, true),
			in:  [][]byte{entry(-5), entry(-5, 0xFF, 0xFF), entry(7, 0xFF)},
			out: [][]byte{entry(-6, 0xFF), entry(8)}},
		{name: "exclusive", start: bound(-5, false), end: bound(7, false),
			in:  [][]byte{entry(-4), entry(6, 0xFF)},
			out: [][]byte{entry(-5), entry(-5, 0xFF), entry(7)}},
		{name: "after the largest token", start: bound(math.MaxInt64, false),
			out: [][]byte{entry(math.MaxInt64), entry(math.MaxInt64, 0xFF), entry(0)}},
		{name: "up to the largest token", end: bound(math.MaxInt64, true),
			in: [][]byte{entry(math.MaxInt64, 0xFF, 0xFF), entry(math.MinInt64)}},
		{name: "empty", start: bound(9, true), end: bound(3, true),
			out: [][]byte{entry(3), entry(5), entry(9)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tokenEntrySlice(tc.start, tc.end)
			for _, k := range tc.in {
				if s.IsEmpty() || !s.Contains(k) {
					t.Errorf("%x is outside %x..%x", k, s.Start, s.End)
				}
			}
			for _, k := range tc.out {
				if !s.IsEmpty() && s.Contains(k) {
					t.Errorf("%x is inside %x..%x", k, s.Start, s.End)
				}
			}
		})
	}
}

// TestSliceSet checks the membership test a range scan applies to rows in
// clustering order.
func TestSliceSet(t *testing.T) {
	s := sliceSet{{Start: []byte{2}, End: []byte{4}}, {Start: []byte{6}, End: []byte{7}}}
	for _, tc := range []struct {
		key            byte
		contains, past bool
	}{{1, false, false}, {2, true, false}, {3, true, false}, {4, false, false}, {6, true, false}, {7, false, true}, {9, false, true}} {
		if got := s.contains([]byte{tc.key}); got != tc.contains {
			t.Errorf("contains(%d) = %v", tc.key, got)
		}
		if got := s.past([]byte{tc.key}); got != tc.past {
			t.Errorf("past(%d) = %v", tc.key, got)
		}
	}
	open := sliceSet{{Start: []byte{5}}}
	if !open.contains([]byte{5, 1}) || open.past([]byte{0xFF}) {
		t.Error("an unbounded last slice holds every later key")
	}
	if (sliceSet{}).contains([]byte{1}) || !(sliceSet{}).past([]byte{1}) {
		t.Error("no slice holds no key")
	}
}
