package storage

import (
	"context"
	"fmt"
	"testing"

	"github.com/partita-db/partita/internal/backend"
)

// Benchmarks run on disk (b.TempDir) so that Sync measures an fsync; compare
// runs with benchstat.

func openDisk(b *testing.B, noSync bool) *Store {
	b.Helper()
	s, err := Open(Options{Dir: b.TempDir(), NoSync: noSync})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

// BenchmarkApplySingleRow is one INSERT: a marker and two cells in one
// batch, spread over 1,000 partitions.
func BenchmarkApplySingleRow(b *testing.B) {
	for _, mode := range []struct {
		name   string
		noSync bool
	}{{"NoSync", true}, {"Sync", false}} {
		b.Run(mode.name, func(b *testing.B) {
			s := openDisk(b, mode.noSync)
			parts := make([]backend.PhysicalPartition, 1000)
			for i := range parts {
				parts[i] = testPartition(1, fmt.Sprint("user", i), 0)
			}
			ctx := context.Background()
			batch := &backend.WriteBatch{Mutations: make([]backend.Mutation, 1)}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				ts := int64(i + 1)
				m := backend.NewMutation(parts[i%len(parts)])
				m.Rows = []backend.Row{rowOf(ck(i), ts, regularCell(1, "some text value", ts), regularCell(2, "42", ts))}
				batch.Mutations[0] = m
				if err := s.Apply(ctx, batch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkApplyBatch100 writes 100 rows of one partition per batch (a
// time-series writer), synced.
func BenchmarkApplyBatch100(b *testing.B) {
	s := openDisk(b, false)
	p := testPartition(1, "sensor-1", 0)
	ctx := context.Background()
	rows := make([]backend.Row, 100)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range rows {
			ts := int64(i*100 + j + 1)
			rows[j] = rowOf(ck(i*100+j), ts, regularCell(1, "21.5", ts))
		}
		m := backend.NewMutation(p)
		m.Rows = rows
		if err := s.Apply(ctx, &backend.WriteBatch{Mutations: []backend.Mutation{m}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*100)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkReadLatest100 reads the first 100 rows of a 10,000-row
// partition in clustering order (asc) and the last 100 in reverse (desc),
// from sstables and from the memtable.
func BenchmarkReadLatest100(b *testing.B) {
	for _, flushed := range []bool{true, false} {
		s := openDisk(b, true)
		p := testPartition(1, "sensor-1", 0)
		writeRowRange(b, s, p, 0, 10_000, 10)
		where := "memtable"
		if flushed {
			where = "sstables"
			if err := s.flush(); err != nil {
				b.Fatal(err)
			}
		}
		for _, reverse := range []bool{false, true} {
			dir := "asc"
			if reverse {
				dir = "desc"
			}
			b.Run(where+"/"+dir, func(b *testing.B) {
				ctx := context.Background()
				cmd := backend.ReadCommand{Partition: p, Slices: []backend.Slice{backend.FullSlice}, Reverse: reverse, Now: 100}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					it, err := s.Read(ctx, cmd)
					if err != nil {
						b.Fatal(err)
					}
					n := 0
					for n < 100 && it.Next() {
						n++
					}
					if err := it.Close(); err != nil || n != 100 {
						b.Fatalf("read %d rows: %v", n, err)
					}
				}
			})
		}
	}
}

// BenchmarkReadSlice reads a 100-row slice that starts where a million
// range-deleted rows lie, against a partition that never had them.
func BenchmarkReadSlice(b *testing.B) {
	run := func(b *testing.B, s *Store, p backend.PhysicalPartition) {
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if n, _, _ := sliceRead(b, s, p); n != liveRows {
				b.Fatalf("read %d rows", n)
			}
		}
	}
	// Sub-benchmark bodies run once per b.N: the stores are built once,
	// for the parent.
	clean, cp := cleanStore(b)
	deleted, dp := deletedPrefixStore(b, true)
	b.Run("clean", func(b *testing.B) { run(b, clean, cp) })
	b.Run("behind1MDeleted", func(b *testing.B) { run(b, deleted, dp) })
}

// BenchmarkScan scans a table of 1,000 partitions of 10 rows each.
func BenchmarkScan(b *testing.B) {
	s := openDisk(b, true)
	for i := 0; i < 1000; i++ {
		writeRowRange(b, s, testPartition(1, fmt.Sprint("p", i), 0), 0, 10, 10)
	}
	if err := s.flush(); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		it, err := s.Scan(ctx, backend.ScanCommand{Table: 1, Static: true, Now: 100})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for it.Next() {
			n++
		}
		if err := it.Close(); err != nil || n != 10_000 {
			b.Fatalf("scanned %d rows: %v", n, err)
		}
	}
	b.ReportMetric(float64(b.N*10_000)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkMergeRow is the merge operator on one row key: an older full row
// and a newer update of one of its cells, reconciled as a read or a
// compaction does (two operands: decode, reconcile, encode).
func BenchmarkMergeRow(b *testing.B) {
	key := rowKey(appendPhysical(nil, testPartition(1, "sensor-1", 0)), ck(7))
	older := rowOf(ck(7), 10, regularCell(1, "some text value", 10), regularCell(2, "42", 10))
	newer := rowOf(ck(7), 20, regularCell(2, "43", 20))
	ov, nv := encodeRow(nil, &older), encodeRow(nil, &newer)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, err := merger.Merge(key, nv)
		if err != nil {
			b.Fatal(err)
		}
		if err := m.MergeOlder(ov); err != nil {
			b.Fatal(err)
		}
		if _, _, err := m.Finish(true); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMergeRowSingle is the merge operator on a row key with one
// operand, which is what a read of a recently written row sees until a
// compaction turns the operand into a plain value.
func BenchmarkMergeRowSingle(b *testing.B) {
	key := rowKey(appendPhysical(nil, testPartition(1, "sensor-1", 0)), ck(7))
	row := rowOf(ck(7), 10, regularCell(1, "some text value", 10), regularCell(2, "42", 10))
	v := encodeRow(nil, &row)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, err := merger.Merge(key, v)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := m.Finish(true); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHotKeysNote is the per-row cost of counting writes for folding
// (invariant 13), over 100k distinct rows.
func BenchmarkHotKeysNote(b *testing.B) {
	h := newHotKeys(0)
	p := testPartition(1, "sensor-1", 0)
	keys := make([][]byte, 100_000)
	for i := range keys {
		keys[i] = ck(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.note(p, keys[i%len(keys)])
	}
}
