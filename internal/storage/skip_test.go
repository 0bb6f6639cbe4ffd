package storage

import (
	"context"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/partita-db/partita/internal/backend"
)

const (
	deletedRows = 1_000_000
	liveRows    = 100
)

// writeRowRange writes rows [from, to) of p with a marker and one cell, in
// batches of 10,000.
func writeRowRange(t testing.TB, s *Store, p backend.PhysicalPartition, from, to int, ts int64) {
	t.Helper()
	const batch = 10_000
	rows := make([]backend.Row, 0, batch)
	for i := from; i < to; i += batch {
		rows = rows[:0]
		for j := i; j < min(i+batch, to); j++ {
			rows = append(rows, rowOf(ck(j), ts, regularCell(1, "value", ts)))
		}
		m := backend.NewMutation(p)
		m.Rows = rows
		mustApply(t, s, m)
	}
}

// deletedPrefixStore holds a partition whose first million rows were
// removed by one range deletion, followed by liveRows live rows. With
// flushed set, the deleted rows reached sstables before the deletion (the
// usual case: old data is deleted); otherwise whatever the memtable still
// holds shares it with the deletion.
func deletedPrefixStore(t testing.TB, flushed bool) (*Store, backend.PhysicalPartition) {
	s := openMem(t, Options{})
	p := testPartition(1, "queue", 0)
	writeRowRange(t, s, p, 0, deletedRows, 10)
	if flushed {
		if err := s.flush(); err != nil {
			t.Fatal(err)
		}
	}
	m := backend.NewMutation(p)
	m.RangeTombstones = []backend.RangeTombstone{{Slice: backend.Slice{Start: ck(0), End: ck(deletedRows)}, Deletion: deletion(20, 1000)}}
	mustApply(t, s, m)
	writeRowRange(t, s, p, deletedRows, deletedRows+liveRows, 30)
	return s, p
}

func cleanStore(t testing.TB) (*Store, backend.PhysicalPartition) {
	s := openMem(t, Options{})
	p := testPartition(1, "queue", 0)
	writeRowRange(t, s, p, deletedRows, deletedRows+liveRows, 30)
	return s, p
}

// sliceRead reads the slice from the first deleted row to the end of the
// live ones and returns the row count, the read's stats and Pebble's.
func sliceRead(t testing.TB, s *Store, p backend.PhysicalPartition) (int, backend.ReadStats, pebble.IteratorStats) {
	t.Helper()
	it, err := s.Read(context.Background(), backend.ReadCommand{Partition: p, Now: 1000,
		Slices: []backend.Slice{{Start: ck(0), End: ck(deletedRows + liveRows)}}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for it.Next() {
		n++
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	ps := it.(*rowIter).it.Stats()
	st := it.Stats()
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	return n, st, ps
}

// TestReadBehindRangeDeletion: a slice behind a million range-deleted rows
// costs about what it costs on a partition that never had them — one range
// deletion removes them physically (invariant 3), and Pebble seeks over a
// range deletion of a newer level instead of stepping. Rows that still
// share the memtable with the deletion are stepped over one by one until a
// flush drops them; the deletion starts that flush itself, so that cost is
// bounded by the memtable size and lasts only until the flush ends.
func TestReadBehindRangeDeletion(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a million rows")
	}
	clean, cp := cleanStore(t)
	cleanRows, cleanStats, cleanPebble := sliceRead(t, clean, cp)
	if cleanRows != liveRows {
		t.Fatalf("clean read %d rows", cleanRows)
	}
	t.Logf("clean: %+v; Pebble points %d", cleanStats, cleanPebble.InternalStats.PointCount)
	s, p := deletedPrefixStore(t, false)
	check := func(t *testing.T, maxCovered uint64) {
		rows, st, ps := sliceRead(t, s, p)
		t.Logf("%+v; Pebble points %d, covered by range deletions %d", st, ps.InternalStats.PointCount,
			ps.InternalStats.PointsCoveredByRangeTombstones)
		if rows != liveRows {
			t.Fatalf("read %d rows, want %d", rows, liveRows)
		}
		// The range tombstone record itself is the only tombstone met.
		if st.Tombstones != 1 || st.LiveRows != liveRows {
			t.Errorf("read stats %+v, want 1 tombstone and %d live rows", st, liveRows)
		}
		if covered := ps.InternalStats.PointsCoveredByRangeTombstones; covered > maxCovered {
			t.Errorf("Pebble stepped over %d deleted points, want at most %d", covered, maxCovered)
		}
	}
	t.Run("memtable", func(t *testing.T) {
		check(t, deletedRows/4)
	})
	t.Run("after the flush the deletion started", func(t *testing.T) {
		deadline := time.Now().Add(time.Minute)
		for s.deleteFlush.Load() {
			if time.Now().After(deadline) {
				t.Fatal("the flush the deletion requested did not end")
			}
			time.Sleep(10 * time.Millisecond)
		}
		check(t, 16)
	})
	t.Run("flushed", func(t *testing.T) {
		if err := s.flush(); err != nil {
			t.Fatal(err)
		}
		check(t, 16)
		if _, _, ps := sliceRead(t, s, p); ps.InternalStats.PointCount > 2*cleanPebble.InternalStats.PointCount {
			t.Errorf("Pebble visited %d points, a clean read %d", ps.InternalStats.PointCount, cleanPebble.InternalStats.PointCount)
		}
	})
}
