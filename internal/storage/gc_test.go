package storage

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/partita-db/partita/internal/backend"
)

func collect(t tester, s *Store, now int64, limit GCLimits) GCStats {
	t.Helper()
	st, err := s.CollectGarbage(context.Background(), time.Unix(now, 0), limit)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// collectAll runs CollectGarbage until a walk completes.
func collectAll(t tester, s *Store, now int64) GCStats {
	t.Helper()
	var total GCStats
	for {
		st := collect(t, s, now, GCLimits{CompactBytes: -1})
		total.PartitionsScanned += st.PartitionsScanned
		total.CellsPurged += st.CellsPurged
		total.TombstonesPurged += st.TombstonesPurged
		if st.Done {
			return total
		}
	}
}

// TestGCPreservesReads: garbage collection never changes what a read at
// the same now returns; with gc_grace 0 after every deletion time, no
// tombstone and no expired cell is left in storage at all.
func TestGCPreservesReads(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		grace := rapid.SampledFrom([]int64{0, 10, 60, 1000}).Draw(t, "grace")
		s := openMem(t, Options{GCGrace: func(backend.TableID) (int64, bool) { return grace, true }})
		for _, op := range rapid.SliceOfN(genOp(), 1, 24).Draw(t, "ops") {
			mustApply(t, s, op)
		}
		want := readPartitions(t, s)
		limit := GCLimits{MaxPartitions: rapid.IntRange(0, 2).Draw(t, "maxPartitions"), CompactBytes: -1}
		for !collect(t, s, orderNow, limit).Done {
		}
		if got := readPartitions(t, s); got != want {
			t.Fatalf("after GC (grace %d) reads\n%s\nbefore\n%s", grace, got, want)
		}
		if grace == 0 {
			checkNoGarbage(t, s, orderNow)
		}
		// A second pass finds nothing more to do.
		if st := collectAll(t, s, orderNow); st.CellsPurged != 0 || st.TombstonesPurged != 0 {
			t.Fatalf("second pass purged %+v", st)
		}
	})
}

// checkNoGarbage fails if storage holds anything a GC at now with gc_grace
// 0 must have removed (genOp's deletion times are all before orderNow).
func checkNoGarbage(t tester, s *Store, now int64) {
	t.Helper()
	lo, hi := tableRange(1)
	it, err := s.db.NewIter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	for ok := it.SeekGE(lo); ok && string(it.Key()) < string(hi); ok = it.Next() {
		d, err := decodeDataKey(it.Key())
		if err != nil {
			t.Fatal(err)
		}
		v := it.Value()
		switch d.kind {
		case kindHeader:
			h, err := decodeHeader(v)
			if err != nil || !h.deletion.IsLive() {
				t.Fatalf("header %+v %v left", h, err)
			}
		case kindRangeTS:
			t.Fatalf("range tombstone %x left", it.Key())
		case kindStatic, kindRow:
			var r backend.Row
			if err := decodeRow(v, &r, true); err != nil {
				t.Fatal(err)
			}
			if rowIsEmpty(&r) || !r.Deletion.IsLive() || len(r.ComplexDeletions) > 0 {
				t.Fatalf("row %s left", fmtRow(&r))
			}
			if !r.Liveness.IsEmpty() && !r.Liveness.IsLive(now) {
				t.Fatalf("expired marker left: %s", fmtRow(&r))
			}
			for i := range r.Cells {
				if !r.Cells[i].IsLive(now) {
					t.Fatalf("dead cell left: %s", fmtRow(&r))
				}
			}
		}
	}
}

// TestGCConcurrentWrites: writes that land while the collector rewrites
// their partitions are never lost (the rewrite holds the partition's
// stripe exclusively between its read and its commit). Every write adds
// its own collection element, so a lost write shows as a missing element.
func TestGCConcurrentWrites(t *testing.T) {
	s := openMem(t, Options{GCGrace: func(backend.TableID) (int64, bool) { return 0, true }})
	const writers, writes = 4, 300
	parts := []backend.PhysicalPartition{testPartition(1, "a", 0), testPartition(1, "b", 0)}
	var wg sync.WaitGroup
	done := make(chan struct{})
	gcErr := make(chan error, 1)
	passes := 0
	go func() {
		var err error
		defer func() { gcErr <- err }()
		for {
			select {
			case <-done:
				return
			default:
			}
			// Every write carries a purgeable tombstone, so every pass
			// rewrites the rows it finds.
			if _, err = s.CollectGarbage(context.Background(), time.Unix(1000, 0), GCLimits{CompactBytes: -1}); err != nil {
				return
			}
			passes++
		}
	}()
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < writes; i++ {
				m := backend.NewMutation(parts[i%len(parts)])
				elem := regularCell(3, "v", int64(i))
				elem.Path = ck(i)
				m.Rows = []backend.Row{rowOf(ck(w), backend.NoTimestamp, tombstoneCell(2, int64(i), 0), elem)}
				if err := s.Apply(context.Background(), &backend.WriteBatch{Mutations: []backend.Mutation{m}}); err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(done)
	if err := <-gcErr; err != nil {
		t.Fatal(err)
	}
	t.Logf("%d collection passes ran during the writes", passes)
	for pi, p := range parts {
		rows, _ := readRows(t, s, backend.ReadCommand{Partition: p, Slices: []backend.Slice{backend.FullSlice}, Now: 1000})
		if len(rows) != writers {
			t.Fatalf("%s: %d rows", p.Key, len(rows))
		}
		for _, r := range rows {
			want := 0
			for i := 0; i < writes; i++ {
				if i%len(parts) != pi {
					continue
				}
				if want >= len(r.Cells) || string(r.Cells[want].Path) != string(ck(i)) {
					t.Fatalf("%s row %x: element %d lost", p.Key, r.Clustering, i)
				}
				want++
			}
			if want != len(r.Cells) {
				t.Errorf("%s row %x: %d cells, want %d", p.Key, r.Clustering, len(r.Cells), want)
			}
		}
	}
}

// TestGCTruncateRace: a table dropped or truncated while the collector
// rewrites its partitions stays empty (table drops hold dropMu
// exclusively, rewrites shared).
func TestGCTruncateRace(t *testing.T) {
	s := openMem(t, Options{GCGrace: func(backend.TableID) (int64, bool) { return 0, true }})
	for round := 0; round < 20; round++ {
		for i := 0; i < 20; i++ {
			m := backend.NewMutation(testPartition(1, fmt.Sprint(i), 0))
			for j := 0; j < 200; j++ {
				m.Rows = append(m.Rows, rowOf(ck(j), 10, tombstoneCell(2, 10, 0)))
			}
			mustApply(t, s, m)
		}
		gcErr := make(chan error, 1)
		go func() {
			_, err := s.CollectGarbage(context.Background(), time.Unix(1000, 0), GCLimits{CompactBytes: -1})
			gcErr <- err
		}()
		time.Sleep(time.Duration(round) * 50 * time.Microsecond)
		if err := s.Apply(context.Background(), &backend.WriteBatch{DropTables: []backend.TableID{1}}); err != nil {
			t.Fatal(err)
		}
		if err := <-gcErr; err != nil {
			t.Fatal(err)
		}
		if raw := rawDump(t, s, 1); len(raw) != 0 {
			t.Fatalf("round %d: %d keys after truncate:\n%s", round, len(raw), fmtRaw(t, raw))
		}
	}
}

// TestGCHugePartition: a partition whose rewrite exceeds one batch is
// committed in pieces, and its range tombstone is dropped last.
func TestGCHugePartition(t *testing.T) {
	s := openMem(t, Options{GCGrace: func(backend.TableID) (int64, bool) { return 0, true }})
	p := testPartition(1, "huge", 0)
	big := strings.Repeat("v", 1024)
	const n = 8000 // about 8 MiB of rows, two batches of rewrites
	for i := 0; i < n; i += 1000 {
		m := backend.NewMutation(p)
		for j := i; j < i+1000; j++ {
			m.Rows = append(m.Rows, rowOf(ck(j), 30, regularCell(1, big, 30), tombstoneCell(2, 30, 5)))
		}
		mustApply(t, s, m)
	}
	// Older than every row: kept as a record, nothing removed by it.
	m := backend.NewMutation(p)
	m.RangeTombstones = []backend.RangeTombstone{{Slice: backend.FullSlice, Deletion: deletion(20, 5)}}
	mustApply(t, s, m)
	st := collect(t, s, 1000, GCLimits{CompactBytes: -1})
	if st.PartitionsScanned != 1 || st.TombstonesPurged != n+1 || st.CellsPurged != 0 {
		t.Fatalf("stats %+v", st)
	}
	raw := rawDump(t, s, 1)
	if len(raw) != n+1 || raw[0].kind != kindHeader {
		t.Fatalf("%d keys left", len(raw))
	}
	for _, e := range raw[1:] {
		var r backend.Row
		if err := decodeRow(e.value, &r, false); err != nil || e.kind != kindRow || len(r.Cells) != 1 {
			t.Fatalf("left %x: %s %v", e.suffix, fmtRow(&r), err)
		}
	}
}

// TestGCReclaimsSpace: expired rows and rows under a deletion leave the
// disk once collected and compacted.
func TestGCReclaimsSpace(t *testing.T) {
	s := openMem(t, Options{GCGrace: func(backend.TableID) (int64, bool) { return 200, true }})
	big := strings.Repeat("x", 512)
	for k := 0; k < 20; k++ {
		p := testPartition(1, fmt.Sprint("ttl", k), 0)
		m := backend.NewMutation(p)
		for i := 0; i < 500; i++ {
			m.Rows = append(m.Rows, rowOf(ck(i), backend.NoTimestamp, expiringCell(1, big, 10, 100, 1100)))
		}
		mustApply(t, s, m)
	}
	keep := testPartition(1, "keep", 0)
	m := backend.NewMutation(keep)
	m.Rows = []backend.Row{rowOf(ck(1), 10, regularCell(1, "kept", 10))}
	mustApply(t, s, m)
	if err := s.compactAll(); err != nil {
		t.Fatal(err)
	}
	lo, hi := tableRange(1)
	before, err := s.db.EstimateDiskUsage(lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	// Written at 1000, expired at 1100: a tombstone until 1000 < now - 200.
	if st := collect(t, s, 1100, GCLimits{}); st.CellsPurged != 20*500 || st.TombstonesPurged != 0 || !st.Compacted {
		t.Fatalf("within gc_grace: %+v", st)
	}
	st := collect(t, s, 1201, GCLimits{CompactBytes: 64 << 10})
	if st.TombstonesPurged != 20*500 || !st.Compacted || st.BytesAfter >= st.BytesBefore {
		t.Fatalf("after gc_grace: %+v", st)
	}
	after, err := s.db.EstimateDiskUsage(lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("disk usage %d -> %d bytes; %+v", before, after, st)
	if after > before/20 {
		t.Errorf("disk usage %d -> %d bytes", before, after)
	}
	rows, _ := readRows(t, s, backend.ReadCommand{Partition: keep, Slices: []backend.Slice{backend.FullSlice}, Now: 1201})
	if len(rows) != 1 {
		t.Errorf("kept partition reads %s", fmtRows(rows))
	}
	if raw := rawDump(t, s, 1); len(raw) != 2 {
		t.Errorf("left:\n%s", fmtRaw(t, raw))
	}
}

// TestGCLimitsAndCancel: MaxBytes bounds a call, a cancelled context stops
// it, and the walk resumes where it stopped.
func TestGCLimitsAndCancel(t *testing.T) {
	s := openMem(t, Options{})
	for i := 0; i < 10; i++ {
		m := backend.NewMutation(testPartition(1, fmt.Sprint(i), 0))
		m.Rows = []backend.Row{rowOf(ck(1), 10, regularCell(1, strings.Repeat("v", 100), 10))}
		mustApply(t, s, m)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.CollectGarbage(ctx, time.Unix(100, 0), GCLimits{}); err == nil {
		t.Fatal("cancelled collection succeeded")
	}
	scanned := int64(0)
	for calls := 1; ; calls++ {
		st := collect(t, s, 100, GCLimits{MaxBytes: 1})
		scanned += st.PartitionsScanned
		if st.PartitionsScanned != 1 && !(st.Done && st.PartitionsScanned == 0) {
			t.Fatalf("call %d scanned %d partitions", calls, st.PartitionsScanned)
		}
		if st.Done {
			break
		}
		if calls > 20 {
			t.Fatal("walk does not end")
		}
	}
	if scanned != 10 {
		t.Errorf("walk scanned %d partitions, want 10", scanned)
	}
}

func TestGCBefore(t *testing.T) {
	tests := []struct{ now, grace, want int64 }{
		{1000, 0, 1000},
		{1000, 10, 990},
		{1000, -5, 1000},
		{-9_000_000_000_000_000_000, 1_000_000_000_000_000_000, -9_223_372_036_854_775_808},
		{1000, 9_223_372_036_854_775_807, -9_223_372_036_854_774_807},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.now, "-", tc.grace), func(t *testing.T) {
			if got := gcBefore(tc.now, tc.grace); got != tc.want {
				t.Errorf("gcBefore(%d, %d) = %d, want %d", tc.now, tc.grace, got, tc.want)
			}
		})
	}
}

// TestRewriteTruncateRace: a range deletion that rewrites newer rows while
// the table is truncated never brings the truncated rows back.
func TestRewriteTruncateRace(t *testing.T) {
	s := openMem(t, Options{})
	p := testPartition(1, "k", 0)
	for round := 0; round < 30; round++ {
		m := backend.NewMutation(p)
		for j := 0; j < 2000; j++ {
			m.Rows = append(m.Rows, rowOf(ck(j), 30))
		}
		mustApply(t, s, m)
		del := backend.NewMutation(p)
		// Older than the rows: they are read and written back.
		del.RangeTombstones = []backend.RangeTombstone{{Slice: backend.FullSlice, Deletion: deletion(20, 1000)}}
		delErr := make(chan error, 1)
		go func() {
			delErr <- s.Apply(context.Background(), &backend.WriteBatch{Mutations: []backend.Mutation{del}})
		}()
		time.Sleep(time.Duration(round) * 20 * time.Microsecond)
		if err := s.Apply(context.Background(), &backend.WriteBatch{DropTables: []backend.TableID{1}}); err != nil {
			t.Fatal(err)
		}
		if err := <-delErr; err != nil {
			t.Fatal(err)
		}
		for _, e := range rawDump(t, s, 1) {
			if e.kind == kindRow {
				t.Fatalf("round %d: row %x survived the truncate", round, e.suffix)
			}
		}
		if err := s.Apply(context.Background(), &backend.WriteBatch{DropTables: []backend.TableID{1}}); err != nil {
			t.Fatal(err)
		}
	}
}
