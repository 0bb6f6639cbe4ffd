package split

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/token"
)

// TestStatsKeepLargeAndHotPartitions: the partitions the detector measured
// large (waiting out the policy's window before they split) and a partition
// read often stay tracked, with their measure and hysteresis clock, while
// two million partitions written once pass through the statistics, which
// stay within their bound; after the window the detector splits a large
// one. The small partitions are recorded as Apply records them, without
// storing them (storage is not what is under test, and two million writes
// would take a minute).
func TestStatsKeepLargeAndHotPartitions(t *testing.T) {
	ctx := context.Background()
	l := openLayer(t)
	pol := Policy{Enabled: true, MaxRows: 100, MaxConcurrent: 1, Window: time.Hour, Strategy: "range", ChunkRows: 1000}
	l.SetPolicy(func(backend.TableID) Policy { return pol })
	var large []backend.LogicalPartition
	for i := 0; i < 20; i++ {
		p := testPartition(fmt.Sprintf("large-%d", i))
		large = append(large, p)
		for k := 0; k < 150; k++ {
			m := op{kind: 0, key: k, value: k, ts: 1}.mutation(p)
			if err := l.Apply(ctx, &backend.WriteBatch{Mutations: []backend.Mutation{m}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	now := time.Now()
	if started, err := l.Evaluate(ctx, now); err != nil || len(started) != 0 {
		t.Fatalf("first evaluation started %v (%v); the window has not passed", started, err)
	}
	hot := testPartition("hot")
	const limit, small, readEvery = 100_000, 2_000_000, 10_000
	check := func(after int) {
		t.Helper()
		byKey := map[string]PartitionStats{}
		stats := l.Stats()
		for _, s := range stats {
			byKey[string(s.Partition.Key)] = s
		}
		if len(stats) > limit {
			t.Fatalf("after %d small partitions: %d tracked, bound %d", after, len(stats), limit)
		}
		for _, p := range large {
			s, ok := byKey[string(p.Key)]
			if !ok {
				t.Fatalf("after %d small partitions: large partition %s forgotten", after, p.Key)
			}
			if s.Rows != 150 || !s.candidateSince.Equal(now) {
				t.Fatalf("after %d small partitions: large partition %s has rows %d, candidate since %v", after, p.Key, s.Rows, s.candidateSince)
			}
		}
		if s, ok := byKey["hot"]; !ok || s.Reads != int64(after/readEvery) {
			t.Fatalf("after %d small partitions: hot partition tracked %v with %d reads, want %d", after, ok, s.Reads, after/readEvery)
		}
	}
	m := op{kind: 0, key: 1, value: 1, ts: 2}.mutation(testPartition("small"))
	var key []byte
	for i := 0; i < small; i++ {
		if i%readEvery == 0 {
			l.stats.recordRead(hot, 10, 100, time.Millisecond)
		}
		// recordWrite copies the key: one buffer serves every partition.
		key = strconv.AppendInt(append(key[:0], "small-"...), int64(i), 10)
		m.Partition.Key, m.Partition.Token = key, token.Of(key)
		l.stats.recordWrite(&m, now)
		if i+1 == limit+limit/2 || i+1 == small {
			check(i + 1)
		}
	}
	if n := len(l.Stats()); n != limit {
		t.Fatalf("%d partitions tracked after %d passed through, want the bound %d", n, small+21, limit)
	}
	started, err := l.Evaluate(ctx, now.Add(pol.Window))
	if err != nil || len(started) != 1 {
		t.Fatalf("evaluation after the window started %d splits (%v), want 1 (MaxConcurrent)", len(started), err)
	}
}

// checkStatsTable verifies the table's structure: every entry in exactly
// one place that points back at it, the bounds, and the heap order.
func checkStatsTable(t *testing.T, tb *statsTable) {
	t.Helper()
	for i, s := range tb.shards {
		s.mu.Lock()
		if len(s.entries) > s.capacity || len(s.heavy) > s.heavyCap || len(s.ring)+len(s.heavy) != len(s.entries) {
			t.Fatalf("shard %d: %d entries (capacity %d), %d protected (at most %d), %d in the ring",
				i, len(s.entries), s.capacity, len(s.heavy), s.heavyCap, len(s.ring))
		}
		for j, e := range s.heavy {
			if !e.place.heavy || e.place.slot != j || s.entries[e.place.key] != e {
				t.Fatalf("shard %d: protected entry %d misplaced: %+v", i, j, e.place)
			}
			if j > 0 && outranks(s.heavy[(j-1)/2], e) {
				t.Fatalf("shard %d: heap order broken at %d", i, j)
			}
		}
		for j, e := range s.ring {
			if e.place.heavy || e.place.slot != j || s.entries[e.place.key] != e {
				t.Fatalf("shard %d: ring entry %d misplaced: %+v", i, j, e.place)
			}
		}
		s.mu.Unlock()
	}
}

// writeBytes records a write of about n bytes to p.
func writeBytes(tb *statsTable, p backend.LogicalPartition, n int, now time.Time) {
	m := backend.NewMutation(p.Physical(backend.HomeShard))
	r := backend.NewRow(ck(0))
	r.Cells = []backend.Cell{{Column: 1, Value: make([]byte, n)}}
	m.Rows = []backend.Row{r}
	tb.recordWrite(&m, now)
}

// TestStatsTableKeepsHeaviest (invariant 2): in a one-shard table of 1000
// entries (125 protected), the 100 largest partitions and one whose split
// waits for its window, though small, stay while a million partitions
// written once pass through; the bound holds throughout.
func TestStatsTableKeepsHeaviest(t *testing.T) {
	tb := newStatsTableShards(1000, 1)
	now := time.Now()
	// Small partitions first, so that the protected tier starts full of
	// them and the large ones must displace them.
	for i := 0; i < 2000; i++ {
		writeBytes(tb, testPartition(fmt.Sprintf("early-%d", i)), 10, now)
	}
	for i := 0; i < 100; i++ {
		writeBytes(tb, testPartition(fmt.Sprintf("large-%d", i)), 1000+i, now)
	}
	pending := testPartition("pending")
	tb.update(pending, func(e *PartitionStats) { e.candidateSince = now })
	var key []byte
	for i := 0; i < 1_000_000; i++ {
		key = strconv.AppendInt(append(key[:0], "small-"...), int64(i), 10)
		writeBytes(tb, backend.LogicalPartition{Table: 7, Token: token.Of(key), Key: key}, 20, now)
		if i%100_000 == 0 {
			checkStatsTable(t, tb)
		}
	}
	checkStatsTable(t, tb)
	for i := 0; i < 100; i++ {
		p := testPartition(fmt.Sprintf("large-%d", i))
		if e, ok := tb.get(p); !ok || e.BytesWritten < 1000 {
			t.Fatalf("large partition %s: tracked %v, %d bytes written", p.Key, ok, e.BytesWritten)
		}
	}
	if e, ok := tb.get(pending); !ok || !e.candidateSince.Equal(now) {
		t.Fatalf("the partition waiting to split was forgotten")
	}
	if n := tb.len(); n != 1000 {
		t.Fatalf("%d entries, want the bound 1000", n)
	}
}

// TestStatsTableKeepsRecentlyUsed (invariant 3): partitions read between
// two passes of the CLOCK hand are never evicted. Each round reads 500
// partitions and then adds 300 new ones to a one-shard table of 1000
// entries (875 in the ring): a round moves the hand at most 300 + 500
// slots, fewer than the ring holds, so the hand cannot pass a partition
// twice without a round's read between.
func TestStatsTableKeepsRecentlyUsed(t *testing.T) {
	tb := newStatsTableShards(1000, 1)
	now := time.Now()
	const rounds, used, fresh = 1000, 500, 300
	for r := 0; r < rounds; r++ {
		for i := 0; i < used; i++ {
			tb.recordRead(testPartition(fmt.Sprintf("used-%d", i)), 1, 10, time.Microsecond)
		}
		for i := 0; i < fresh; i++ {
			writeBytes(tb, testPartition(fmt.Sprintf("fresh-%d-%d", r, i)), 10, now)
		}
	}
	checkStatsTable(t, tb)
	for i := 0; i < used; i++ {
		if e, ok := tb.get(testPartition(fmt.Sprintf("used-%d", i))); !ok || e.Reads != rounds {
			t.Fatalf("used-%d: tracked %v with %d reads, want %d", i, ok, e.Reads, rounds)
		}
	}
}

// TestStatsTop: top(n) is the first n of the full snapshot, by size.
func TestStatsTop(t *testing.T) {
	tb := newStatsTable(5000)
	now := time.Now()
	for i := 0; i < 3000; i++ {
		writeBytes(tb, testPartition(fmt.Sprintf("p-%d", i)), (i*7919)%4001, now)
	}
	all := tb.snapshot()
	for _, n := range []int{0, 1, 10, 1000, 3000, 4000} {
		top := tb.top(n)
		if len(top) != min(n, len(all)) {
			t.Fatalf("top(%d) holds %d", n, len(top))
		}
		for i := range top {
			if top[i].weight() != all[i].weight() {
				t.Fatalf("top(%d)[%d] weighs %d, the snapshot's %d", n, i, top[i].weight(), all[i].weight())
			}
		}
	}
}
