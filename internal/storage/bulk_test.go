package storage

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/partita-db/partita/internal/backend"
)

// bulkParts are the partitions the bulk load tests write: rows of two
// cells, in key order.
func bulkParts(n, rows int) []backend.Mutation {
	var out []backend.Mutation
	for i := 0; i < n; i++ {
		m := backend.NewMutation(testPartition(7, fmt.Sprintf("p%d", i), backend.HomeShard))
		for j := 0; j < rows; j++ {
			r := rowOf(ck(j), 100+int64(j), regularCell(1, fmt.Sprintf("a%d", j), 100+int64(j)), regularCell(2, "b", 50))
			m.Rows = append(m.Rows, r)
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Partition.LogicalPartition.Compare(out[j].Partition.LogicalPartition) < 0
	})
	return out
}

// TestBulkLoadReadsAsApply: a bulk-loaded partition holds, key for key, the
// rows Apply writes for the same mutations, and a header with the same
// counters; reads answer the same; a later write and a partition deletion
// apply to it as to any partition.
func TestBulkLoadReadsAsApply(t *testing.T) {
	ctx := context.Background()
	muts := bulkParts(5, 300)
	applied := openMem(t, Options{})
	mustApply(t, applied, muts...)
	loaded := openMem(t, Options{})
	l, err := loaded.NewBulkLoader()
	if err != nil {
		t.Fatal(err)
	}
	for i := range muts {
		// One partition over several Add calls, as a streamed load sends it.
		for lo := 0; lo < len(muts[i].Rows); lo += 100 {
			m := muts[i]
			m.Rows = m.Rows[lo : lo+100]
			if err := l.Add(&m); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := l.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	if l.Rows() != 1500 {
		t.Fatalf("loaded %d rows, want 1500", l.Rows())
	}
	a, b := rawDump(t, applied, 7), rawDump(t, loaded, 7)
	if len(a) != len(b) {
		t.Fatalf("%d keys applied, %d loaded:\n%s\n%s", len(a), len(b), fmtRaw(t, a), fmtRaw(t, b))
	}
	for i := range a {
		if a[i].kind != b[i].kind || string(a[i].suffix) != string(b[i].suffix) || !a[i].partition.LogicalPartition.Equal(b[i].partition.LogicalPartition) {
			t.Fatalf("key %d: applied %s, loaded %s", i, fmtRaw(t, a[i:i+1]), fmtRaw(t, b[i:i+1]))
		}
		if a[i].kind == kindHeader {
			ha, _ := decodeHeader(a[i].value)
			hb, _ := decodeHeader(b[i].value)
			if ha.rowsWritten != hb.rowsWritten || ha.bytesWritten != hb.bytesWritten || hb.maxTimestamp < 399 || !hb.deletion.IsLive() {
				t.Fatalf("header applied %+v, loaded %+v", ha, hb)
			}
			continue
		}
		if string(a[i].value) != string(b[i].value) {
			t.Fatalf("key %d: value applied %x, loaded %x", i, a[i].value, b[i].value)
		}
	}
	p := muts[2].Partition
	cmd := backend.ReadCommand{Partition: p, Slices: []backend.Slice{{Start: ck(10), End: ck(20)}}, Reverse: true, Now: 1000}
	ra, _ := readRows(t, applied, cmd)
	rb, _ := readRows(t, loaded, cmd)
	if fmtRows(ra) != fmtRows(rb) || len(rb) != 10 {
		t.Fatalf("read applied:\n%s\nloaded:\n%s", fmtRows(ra), fmtRows(rb))
	}
	// A newer write, then a deletion newer than every row.
	up := backend.NewMutation(p)
	up.Rows = []backend.Row{rowOf(ck(15), 500, regularCell(1, "new", 500))}
	mustApply(t, loaded, up)
	got, _ := readRows(t, loaded, backend.ReadCommand{Partition: p, Slices: []backend.Slice{{Start: ck(15), End: ck(16)}}, Now: 1000})
	if len(got) != 1 || !strings.Contains(fmtRows(got), "new") {
		t.Fatalf("after a write: %s", fmtRows(got))
	}
	del := backend.NewMutation(p)
	del.PartitionDeletion = deletion(600, 1)
	mustApply(t, loaded, del)
	if got, _ := readRows(t, loaded, backend.ReadCommand{Partition: p, Slices: []backend.Slice{backend.FullSlice}, Now: 1000}); len(got) != 0 {
		t.Fatalf("after the partition deletion %d rows remain: %s", len(got), fmtRows(got))
	}
}

// TestBulkLoadRefusesDisorder: keys must come in order, and a load takes
// rows only; an aborted load leaves nothing.
func TestBulkLoadRefusesDisorder(t *testing.T) {
	s := openMem(t, Options{})
	muts := bulkParts(2, 3)
	l, err := s.NewBulkLoader()
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Add(&muts[1]); err != nil {
		t.Fatal(err)
	}
	if err := l.Add(&muts[0]); err == nil || !strings.Contains(err.Error(), "out of order") {
		t.Fatalf("a partition before the last one: %v", err)
	}
	del := backend.NewMutation(muts[1].Partition)
	del.PartitionDeletion = deletion(1, 1)
	if err := l.Add(&del); err == nil {
		t.Fatal("a deletion was taken")
	}
	l.Abort()
	if got := rawDump(t, s, 7); len(got) != 0 {
		t.Fatalf("an aborted load left %d keys", len(got))
	}
	if names, _ := s.fs.List(s.fs.PathJoin(s.dir, "bulk-load")); len(names) != 0 {
		t.Fatalf("an aborted load left files: %v", names)
	}
}

// TestCompactionsRunOnceOpen: the store's compaction scheduler (openGate)
// holds compactions off only while Open runs: overlapping flushes past the
// L0 threshold are compacted afterwards, and again after a reopen.
func TestCompactionsRunOnceOpen(t *testing.T) {
	fs := vfs.NewMem()
	for round := 0; round < 2; round++ {
		s := openMem(t, Options{fs: fs, memTableSize: 1 << 20})
		p := testPartition(1, "k", 0)
		before := s.Stats().Compactions
		for f := 0; f < 8; f++ {
			m := backend.NewMutation(p)
			for j := 0; j < 50; j++ {
				m.Rows = append(m.Rows, rowOf(ck(j), int64(f+1), regularCell(1, "v", int64(f+1))))
			}
			mustApply(t, s, m)
			if err := s.flush(); err != nil {
				t.Fatal(err)
			}
		}
		deadline := time.Now().Add(time.Minute)
		for s.Stats().Compactions == before {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: no compaction within a minute of 8 overlapping flushes (L0 sublevels %d)", round, s.Stats().L0Sublevels)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
