package bench

import (
	"bytes"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

func TestResolve(t *testing.T) {
	quick, err := Options{Quick: true, Peer: PeerNone}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if quick.Rows != quickRows || quick.WideRows != quickWideRows || quick.TombstoneRows != quickTombstoneRows ||
		quick.Duration != quickDuration || quick.Concurrency != 32 || quick.Connections != 2 ||
		quick.SplitRows != quickSplitRows || quick.SplitOtherRows != quickSplitOtherRows || quick.SplitMaxRows != quickSplitMaxRows {
		t.Errorf("quick defaults: %+v", quick)
	}
	if !slices.Equal(quick.Workloads, Workloads) {
		t.Errorf("no workloads resolve to %v, want all", quick.Workloads)
	}
	full, _ := Options{Peer: PeerNone, Rows: 5000}.Resolve()
	if full.Rows != 5000 || full.WideRows != fullWideRows || full.Duration != fullDuration ||
		full.SplitRows != fullSplitRows || full.SplitOtherRows != fullSplitOtherRows || full.SplitMaxRows != fullSplitMaxRows {
		t.Errorf("full defaults: %+v", full)
	}
	order, _ := Options{Peer: PeerNone, Workloads: []string{"lwt", "iot", "lwt"}}.Resolve()
	if !slices.Equal(order.Workloads, []string{"iot", "lwt"}) {
		t.Errorf("workloads %v, want [iot lwt]", order.Workloads)
	}
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"unknown workload", Options{Peer: PeerNone, Workloads: []string{"iot", "olap"}}},
		{"unknown peer", Options{Peer: "mysql"}},
		{"postgres without binaries", Options{Peer: PeerPostgres, PostgresBin: t.TempDir()}},
		{"too few rows", Options{Peer: PeerNone, Rows: 10}},
		{"too narrow", Options{Peer: PeerNone, WideRows: 500}},
		{"split partition too small", Options{Peer: PeerNone, SplitRows: 50_000, SplitMaxRows: 10_000}},
		{"split partition too wide for a day", Options{Peer: PeerNone, SplitRows: 100_000_000}},
		{"other assets too wide for a day", Options{Peer: PeerNone, SplitOtherRows: 100_000_000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.o.Resolve(); err == nil {
				t.Errorf("Resolve(%+v) succeeded", tc.o)
			}
		})
	}
	auto, _ := Options{PostgresBin: t.TempDir()}.Resolve()
	if auto.Peer != PeerNone {
		t.Errorf("default peer without binaries = %q, want none", auto.Peer)
	}
}

func TestWideCheckpoints(t *testing.T) {
	for _, tc := range []struct {
		max   int
		quick bool
		want  []int
	}{
		{5_000_000, false, []int{1_000, 100_000, 1_000_000, 5_000_000}},
		{2_000_000, false, []int{1_000, 100_000, 1_000_000, 2_000_000}},
		{20_000, true, []int{1_000, 5_000, 20_000}},
		{3_000, true, []int{1_000, 3_000}},
		{1_000, true, []int{1_000}},
	} {
		if got := WideCheckpoints(tc.max, tc.quick); !slices.Equal(got, tc.want) {
			t.Errorf("WideCheckpoints(%d, %v) = %v, want %v", tc.max, tc.quick, got, tc.want)
		}
	}
}

// TestArgsDeterministic: every system gets the same requests (invariant 1).
func TestArgsDeterministic(t *testing.T) {
	o, _ := Options{Quick: true, Peer: PeerNone}.Resolve()
	for _, name := range Workloads {
		a, _ := buildWorkload(name, o)
		b, _ := buildWorkload(name, o)
		for si := range a.steps {
			for _, i := range []int{0, 1, 7, a.steps[si].requests - 1, 12345} {
				if i < 0 || (!a.steps[si].timed && i >= a.steps[si].requests) {
					continue
				}
				if x, y := a.steps[si].args(i), b.steps[si].args(i); !reflect.DeepEqual(x, y) {
					t.Errorf("%s %s request %d: %v then %v", name, a.steps[si].name, i, x, y)
				}
			}
		}
	}
}

// TestIngestKeysUnique: an ingest never overwrites its own rows, so the
// reads' expected counts hold.
func TestIngestKeysUnique(t *testing.T) {
	o, _ := Options{Quick: true, Peer: PeerNone, Rows: 3000, WideRows: 2500, TombstoneRows: 700}.Resolve()
	for _, name := range Workloads {
		w, _ := buildWorkload(name, o)
		seen := map[string]bool{}
		for _, st := range w.steps {
			if st.stmt.kind != kindWrite || st.build != nil {
				continue
			}
			n := st.requests
			if st.timed {
				n = 1000 // the first requests of a timed write
			}
			for i := range n {
				for _, row := range st.args(i) {
					key, _, err := encodeKeyValue(nil, nil, st.stmt.table, row)
					if err != nil {
						t.Fatal(err)
					}
					if seen[string(key)] {
						t.Fatalf("%s %s request %d writes key %v again", name, st.name, i, row)
					}
					seen[string(key)] = true
				}
			}
		}
	}
}

func TestTimeUUID(t *testing.T) {
	at := time.Date(2025, 3, 8, 10, 15, 0, 123_000_000, time.UTC)
	a, b := timeUUID(at, 1), timeUUID(at, 2)
	if a == b {
		t.Fatal("two sequence numbers gave one UUID")
	}
	u := gocql.UUID(a)
	if u.Version() != 1 || u.Variant() != gocql.VariantIETF {
		t.Errorf("version %d variant %d, want 1 and IETF", u.Version(), u.Variant())
	}
	if !u.Time().Equal(at) {
		t.Errorf("time %v, want %v", u.Time(), at)
	}
}

// TestEncodeKeyOrder: the floor's keys sort as the rows' keys do.
func TestEncodeKeyOrder(t *testing.T) {
	tb := &table{name: "t", partition: 1, clustering: 1, cols: []column{{"k", colText}, {"c", colBigint}, {"v", colFloat}}}
	base := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	tt := &table{name: "t", partition: 1, clustering: 1, cols: []column{{"k", colText}, {"c", colTimestamp}, {"v", colText}}}
	for _, tc := range []struct {
		t          *table
		lo, hi     []any
		loLessThan bool
	}{
		{tb, []any{"a", int64(-5), float32(1)}, []any{"a", int64(3), float32(0)}, true},
		{tb, []any{"a", int64(7), float32(1)}, []any{"b", int64(3), float32(0)}, true},
		{tt, []any{"k", base, "x"}, []any{"k", base.Add(time.Millisecond), "a"}, true},
		{tt, []any{"k", base.Add(-time.Hour), "x"}, []any{"k", base, "a"}, true},
	} {
		k1, _, err1 := encodeKeyValue(nil, nil, tc.t, tc.lo)
		k2, _, err2 := encodeKeyValue(nil, nil, tc.t, tc.hi)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if (bytes.Compare(k1, k2) < 0) != tc.loLessThan {
			t.Errorf("%v vs %v: keys %x, %x out of order", tc.lo, tc.hi, k1, k2)
		}
	}
	if _, _, err := encodeKeyValue(nil, nil, tb, []any{"a", 3, float32(1)}); err == nil {
		t.Error("an int (not int64) encoded")
	}
}

func TestBatchArgs(t *testing.T) {
	row := func(j int) []any { return []any{j} }
	if n := batches(120); n != 3 {
		t.Fatalf("batches(120) = %d", n)
	}
	last := batchArgs(2, 1000, 1120, row)
	if len(last) != 20 || last[0][0] != 1100 || last[19][0] != 1119 {
		t.Errorf("last batch %v", last)
	}
	if first := batchArgs(0, 1000, 1120, row); len(first) != rowsPerBatch || first[0][0] != 1000 {
		t.Errorf("first batch %v", first)
	}
}

func BenchmarkEncodeKeyValue(b *testing.B) {
	o, _ := Options{Quick: true, Peer: PeerNone}.Resolve()
	w := userEventsWorkload(o)
	st := w.steps[0]
	var key, value []byte
	for i := range b.N {
		key, value, _ = encodeKeyValue(key[:0], value[:0], st.stmt.table, st.args(i)[0])
	}
}

func BenchmarkArgs(b *testing.B) {
	o, _ := Options{Quick: true, Peer: PeerNone}.Resolve()
	w, _ := hotAssetWorkload(o)
	for i := range b.N {
		w.steps[0].args(i)
	}
}
