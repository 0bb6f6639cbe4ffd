package storage

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/partita-db/partita/internal/backend"
)

// The deletion-rewrite scenario: rows at ts 10, three in four of them also
// carrying a cell at ts 30, deleted at ts 20. The deletion is older than
// what it covers, so the covered rows are read and the ts-30 cells written
// back (invariant 3); the rest of each row, and every fourth row, goes.
const (
	oldTS     = 10
	deletedTS = 20
	newTS     = 30
	deleteLDT = 1000
)

func survives(i int) bool { return i%4 != 0 }

// futureValue is the ts-30 cell's value: 100 bytes, so that the survivors
// of a large range weigh tens of megabytes.
func futureValue(i int) []byte {
	return fmt.Appendf(nil, "%-100d", i)
}

// writeFutureRows writes rows [0, n) of p: a marker and c1 at oldTS, and
// for the surviving ones c2 = futureValue(i) at newTS.
func writeFutureRows(t testing.TB, s *Store, p backend.PhysicalPartition, n int) {
	t.Helper()
	const batch = 10_000
	for from := 0; from < n; from += batch {
		m := backend.NewMutation(p)
		for i := from; i < min(from+batch, n); i++ {
			r := rowOf(ck(i), oldTS, regularCell(1, "old", oldTS))
			if survives(i) {
				r.Cells = append(r.Cells, backend.Cell{Column: 2, Value: futureValue(i), Timestamp: newTS,
					LocalDeletionTime: backend.NoDeletionTime})
			}
			m.Rows = append(m.Rows, r)
		}
		mustApply(t, s, m)
	}
}

// checkAfterDeletion reads p whole and checks it row by row: rows in
// [from, to) hold exactly their ts-30 cell (or are gone), the others are as
// written.
func checkAfterDeletion(t testing.TB, s *Store, p backend.PhysicalPartition, n, from, to int) {
	t.Helper()
	it, err := s.Read(t.Context(), backend.ReadCommand{Partition: p, Now: deleteLDT, Slices: []backend.Slice{backend.FullSlice}})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	next := 0
	for it.Next() {
		for next < n && next >= from && next < to && !survives(next) {
			next++
		}
		if next >= n {
			t.Fatalf("read a row past the last expected one: %s", fmtRow(it.Row()))
		}
		want := rowOf(ck(next), oldTS, regularCell(1, "old", oldTS))
		if survives(next) {
			want.Cells = append(want.Cells, backend.Cell{Column: 2, Value: futureValue(next), Timestamp: newTS,
				LocalDeletionTime: backend.NoDeletionTime})
		}
		if next >= from && next < to {
			want = rowOf(ck(next), backend.NoTimestamp, want.Cells[1])
		}
		if got, w := fmtRow(it.Row()), fmtRow(&want); got != w {
			t.Fatalf("row %d: got %s, want %s", next, got, w)
		}
		next++
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	for next < n && next >= from && next < to && !survives(next) {
		next++
	}
	if next != n {
		t.Fatalf("the read stopped before row %d of %d", next, n)
	}
}

// peakHeapDuring runs f and returns how far HeapInuse rose above its level
// after a collection just before: the peak of samples taken every
// millisecond, with the collector made eager so that the samples follow the
// live heap rather than garbage awaiting collection.
func peakHeapDuring(f func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapInuse, ms.HeapInuse
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	f()
	close(done)
	wg.Wait()
	return peak - base
}

// TestDeletionRewriteMemory: a deletion older than 150,000 of the 200,000
// rows it covers keeps exactly their newer cells, and the memory it needs
// does not grow with the range: survivors are rewritten in chunks
// (invariant 14), not collected at once.
func TestDeletionRewriteMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector multiplies heap use; the bound is for the server as it runs")
	}
	peaks := map[int]uint64{}
	for _, n := range []int{50_000, 200_000} {
		for _, kind := range []string{"partition", "range"} {
			t.Run(fmt.Sprint(kind, n), func(t *testing.T) {
				// On disk: an in-memory file system would hold the WAL in the
				// Go heap, and the measurement with it.
				s := openMem(t, Options{Dir: t.TempDir(), fs: vfs.Default})
				p := testPartition(1, "big", 0)
				writeFutureRows(t, s, p, n)
				// A fresh memtable, so that no memtable switch lands inside the
				// measurement.
				if err := s.flush(); err != nil {
					t.Fatal(err)
				}
				m := backend.NewMutation(p)
				from, to := 0, n
				if kind == "partition" {
					m.PartitionDeletion = deletion(deletedTS, deleteLDT)
				} else {
					from, to = n/8, n-n/8
					m.RangeTombstones = []backend.RangeTombstone{{Slice: backend.Slice{Start: ck(from), End: ck(to)},
						Deletion: deletion(deletedTS, deleteLDT)}}
				}
				peak := peakHeapDuring(func() { mustApply(t, s, m) })
				t.Logf("%s deletion over %d rows: peak heap growth %.1f MiB", kind, to-from, float64(peak)/(1<<20))
				peaks[n] = max(peaks[n], peak)
				checkAfterDeletion(t, s, p, n, from, to)
				// Physically, only survivors are left in the range.
				if stored, want := storedRowsIn(t, s, from, to), (to-from)*3/4; stored != want {
					t.Errorf("%d rows stored in the deleted range, want %d survivors", stored, want)
				}
			})
		}
	}
	// Survivors weigh about 19 MiB at 200,000 rows (150,000 keys and
	// values), a quarter of that at 50,000: a rewrite that held them all
	// would show it in its peak.
	const bound = 16 << 20
	if peaks[200_000] > bound {
		t.Errorf("peak heap growth %.1f MiB at 200,000 rows (%.1f MiB at 50,000), want at most %d MiB",
			float64(peaks[200_000])/(1<<20), float64(peaks[50_000])/(1<<20), bound>>20)
	}
}

// TestDeletionRewriteChunking: random writes and deletions older than what
// they cover give the same reads, and the same stored keys and values,
// whatever the chunk size of the rewrite.
func TestDeletionRewriteChunking(t *testing.T) {
	// Keys kept per chunk; 0 leaves only the byte bound.
	chunkSizes := []int{1, 2, 5, 0}
	for seed := range uint64(20) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, seed))
			stores := make([]*Store, len(chunkSizes))
			for i, n := range chunkSizes {
				stores[i] = openMem(t, Options{deletionChunkKeys: n})
			}
			p := testPartition(1, "p", 0)
			for op := range 60 {
				m := randomMutation(rng, p)
				for _, s := range stores {
					mustApply(t, s, m)
				}
				want := ""
				for i, s := range stores {
					rows, _ := readRows(t, s, backend.ReadCommand{Partition: p, Now: 1000, Static: true,
						Slices: []backend.Slice{backend.FullSlice}})
					got := fmtRows(rows)
					if i == 0 {
						want = got
					} else if got != want {
						t.Fatalf("op %d: chunks of %d read\n%s\nchunks of %d read\n%s", op, chunkSizes[i], got, chunkSizes[0], want)
					}
				}
			}
			want := fmtRaw(t, rawDump(t, stores[0], 1))
			for i, s := range stores[1:] {
				if got := fmtRaw(t, rawDump(t, s, 1)); got != want {
					t.Fatalf("chunks of %d store\n%s\nchunks of %d store\n%s", chunkSizes[i+1], got, chunkSizes[0], want)
				}
			}
		})
	}
}

// randomMutation writes a few of 40 rows (and the static row) with
// timestamps in [1, 100), and, one time in three, also deletes the
// partition or a range, often older than what is stored.
func randomMutation(rng *rand.Rand, p backend.PhysicalPartition) backend.Mutation {
	m := backend.NewMutation(p)
	ts := func() int64 { return 1 + rng.Int64N(99) }
	used := map[int]bool{}
	for range rng.IntN(8) {
		i := rng.IntN(40)
		if used[i] {
			continue
		}
		used[i] = true
		r := rowOf(ck(i), ts(), regularCell(1, fmt.Sprint("v", i), ts()))
		if rng.IntN(2) == 0 {
			r.Cells = append(r.Cells, regularCell(2, "w", ts()))
		}
		m.Rows = append(m.Rows, r)
	}
	if rng.IntN(4) == 0 {
		st := rowOf(nil, backend.NoTimestamp, regularCell(9, "s", ts()))
		m.Static = &st
	}
	switch rng.IntN(6) {
	case 0:
		m.PartitionDeletion = deletion(ts(), deleteLDT)
	case 1:
		lo := rng.IntN(40)
		m.RangeTombstones = append(m.RangeTombstones, backend.RangeTombstone{
			Slice: backend.Slice{Start: ck(lo), End: ck(lo + 1 + rng.IntN(40-lo))}, Deletion: deletion(ts(), deleteLDT)})
	}
	return m
}

// TestDeletionRewriteCrash crashes the store between two chunks of a
// rewrite and reopens what the crash left: every read is exact, however
// many chunks reached the disk (invariant 14), and garbage collection
// removes what the chunks that did not left behind.
func TestDeletionRewriteCrash(t *testing.T) {
	const (
		n     = 2000
		chunk = 48 // keys kept per chunk
	)
	for _, tc := range []struct {
		kind       string
		crashAfter int // chunks committed when the crash happens
		// synced syncs the WAL before the crash, so that exactly the chunks
		// committed so far survive it; otherwise a random part of the
		// unsynced chunks Pebble has written does.
		synced          bool
		unsyncedPercent int
	}{
		{"partition", 1, true, 0}, {"partition", 10, true, 0}, {"partition", 30, false, 0}, {"partition", 20, false, 50},
		{"partition", 25, false, 100}, {"range", 1, true, 0}, {"range", 12, true, 0}, {"range", 5, false, 0},
		{"range", 8, false, 50}, {"range", 10, false, 100},
	} {
		name := fmt.Sprint(tc.kind, "-after", tc.crashAfter, "-synced", tc.synced, "-unsynced", tc.unsyncedPercent)
		t.Run(name, func(t *testing.T) {
			fs := NewCrashableFS()
			var (
				s       *Store
				crashed *CrashableFS
				chunks  int
			)
			s, err := Open(Options{Dir: "/db", CrashableFS: fs, deletionChunkKeys: chunk, afterDeletionChunk: func() {
				if chunks++; chunks != tc.crashAfter {
					return
				}
				if tc.synced {
					if err := s.db.LogData(nil, pebble.Sync); err != nil {
						t.Error(err)
					}
				}
				crashed = fs.Crash(tc.unsyncedPercent, rand.New(rand.NewPCG(1, uint64(tc.crashAfter))))
			}})
			if err != nil {
				t.Fatal(err)
			}
			p := testPartition(1, "big", 0)
			writeFutureRows(t, s, p, n)
			m := backend.NewMutation(p)
			from, to := 0, n
			if tc.kind == "partition" {
				m.PartitionDeletion = deletion(deletedTS, deleteLDT)
			} else {
				from, to = n/4, n-n/4
				m.RangeTombstones = []backend.RangeTombstone{{Slice: backend.Slice{Start: ck(from), End: ck(to)},
					Deletion: deletion(deletedTS, deleteLDT)}}
			}
			mustApply(t, s, m)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if crashed == nil {
				t.Fatalf("the rewrite made %d chunks, fewer than %d", chunks, tc.crashAfter)
			}
			s, err = Open(Options{Dir: "/db", CrashableFS: crashed})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			checkAfterDeletion(t, s, p, n, from, to)
			stored := storedRowsIn(t, s, from, to)
			// After a sync, exactly the first crashAfter chunks are
			// rewritten: the rows up to their last survivor hold only the
			// survivors, every row after is as written. Without one, the
			// crash keeps between none and all of them.
			kept, last := 0, from-1
			for i := from; i < to && kept < tc.crashAfter*chunk; i++ {
				if survives(i) {
					kept, last = kept+1, i
				}
			}
			exact := kept + (to - 1 - last)
			switch {
			case tc.synced && stored != exact:
				t.Errorf("%d rows stored in the range, want %d (%d chunks rewritten)", stored, exact, tc.crashAfter)
			case stored < exact || stored > to-from:
				t.Errorf("%d rows stored in the range, want between %d and %d", stored, exact, to-from)
			}
			t.Logf("%d of %d rows left in the range after the crash", stored, to-from)
			if _, err := s.CollectGarbage(t.Context(), time.Unix(deleteLDT, 0), GCLimits{}); err != nil {
				t.Fatal(err)
			}
			checkAfterDeletion(t, s, p, n, from, to)
			if stored, want := storedRowsIn(t, s, from, to), (to-from)*3/4; stored != want {
				t.Errorf("after garbage collection %d rows stored in the range, want %d", stored, want)
			}
		})
	}
}

// storedRowsIn counts the row keys of table 1 stored in [ck(from), ck(to)).
func storedRowsIn(t testing.TB, s *Store, from, to int) int {
	stored := 0
	for _, e := range rawDump(t, s, 1) {
		if e.kind == kindRow && bytes.Compare(e.suffix, ck(from)) >= 0 && bytes.Compare(e.suffix, ck(to)) < 0 {
			stored++
		}
	}
	return stored
}
