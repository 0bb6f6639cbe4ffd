package storage

import (
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/partita-db/partita/internal/backend"
)

// genTimestamp draws timestamps over the whole range, extremes included, so
// that the codec's deltas from the base timestamp overflow.
func genTimestamp(t *rapid.T, label string) int64 {
	return rapid.OneOf(
		rapid.Int64Range(-5, 5),
		rapid.Int64(),
		rapid.SampledFrom([]int64{math.MinInt64 + 1, math.MaxInt64, 1_700_000_000_000_000}),
	).Draw(t, label)
}

// genCell draws a regular, expiring or tombstone cell.
func genCell(t *rapid.T, col backend.ColumnID, path []byte) backend.Cell {
	c := backend.Cell{Column: col, Path: path, Timestamp: genTimestamp(t, "ts"), LocalDeletionTime: backend.NoDeletionTime}
	switch rapid.IntRange(0, 2).Draw(t, "cellKind") {
	case 0:
		c.Value = genBytes(t, "value")
	case 1:
		c.Value = genBytes(t, "value")
		c.TTL = rapid.Int32().Filter(func(v int32) bool { return v != 0 }).Draw(t, "ttl")
		c.LocalDeletionTime = rapid.Int64().Draw(t, "expiresAt")
	case 2:
		c.LocalDeletionTime = rapid.Int64Max(math.MaxInt64-1).Draw(t, "ldt")
	}
	return c
}

func genDeletion(t *rapid.T, label string) backend.DeletionTime {
	return backend.DeletionTime{
		MarkedForDeleteAt: rapid.Int64Min(math.MinInt64+1).Draw(t, label+"At"),
		LocalDeletionTime: rapid.Int64().Draw(t, label+"Ldt"),
	}
}

// genRow draws any row the data model allows: liveness (none, regular,
// expiring), a deletion, cells of simple and collection columns sorted by
// position, and collection deletions.
func genRow(t *rapid.T) backend.Row {
	r := backend.NewRow(genBytes(t, "clustering"))
	switch rapid.IntRange(0, 2).Draw(t, "liveness") {
	case 1:
		r.Liveness = backend.Liveness{Timestamp: genTimestamp(t, "livenessTs"), ExpiresAt: backend.NoDeletionTime}
	case 2:
		r.Liveness = backend.Liveness{Timestamp: genTimestamp(t, "livenessTs"),
			TTL:       rapid.Int32().Filter(func(v int32) bool { return v != 0 }).Draw(t, "livenessTTL"),
			ExpiresAt: rapid.Int64().Draw(t, "livenessExp")}
	}
	if r.Liveness.Timestamp == backend.NoTimestamp {
		r.Liveness = backend.NoLiveness
	}
	if rapid.Bool().Draw(t, "deleted") {
		r.Deletion = genDeletion(t, "deletion")
	}
	seen := map[string]bool{}
	for i, n := 0, rapid.IntRange(0, 6).Draw(t, "cells"); i < n; i++ {
		col := backend.ColumnID(rapid.Uint32Range(0, 5).Draw(t, "column"))
		var path []byte
		if col >= 3 {
			path = genBytes(t, "path")
		}
		pos := string(rune(col)) + "/" + string(path)
		if seen[pos] {
			continue
		}
		seen[pos] = true
		r.Cells = append(r.Cells, genCell(t, col, path))
	}
	sortCells(r.Cells)
	for col := backend.ColumnID(3); col <= 5; col++ {
		if rapid.Bool().Draw(t, "complexDeleted") {
			r.ComplexDeletions = append(r.ComplexDeletions, backend.ComplexDeletion{Column: col, Deletion: genDeletion(t, "complex")})
		}
	}
	return r
}

func TestRowCodecRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := genRow(t)
		enc := encodeRow(nil, &r)
		for _, copyOut := range []bool{false, true} {
			var got backend.Row
			if err := decodeRow(enc, &got, copyOut); err != nil {
				t.Fatalf("decode %x: %v", enc, err)
			}
			got.Clustering = r.Clustering
			if fmtRow(&got) != fmtRow(&r) {
				t.Fatalf("round trip:\n got %s\nwant %s", fmtRow(&got), fmtRow(&r))
			}
		}
		// Decoding into a used row must not keep anything of it.
		reused := genRow(t)
		if err := decodeRow(enc, &reused, false); err != nil {
			t.Fatal(err)
		}
		reused.Clustering = r.Clustering
		if fmtRow(&reused) != fmtRow(&r) {
			t.Fatalf("decode into used row:\n got %s\nwant %s", fmtRow(&reused), fmtRow(&r))
		}
	})
}

func TestRowCodecCases(t *testing.T) {
	tests := []struct {
		name string
		row  backend.Row
	}{
		{"empty", backend.NewRow([]byte("a"))},
		{"marker only", rowOf([]byte("a"), 10)},
		{"cells without marker", rowOf([]byte("a"), backend.NoTimestamp, regularCell(1, "x", 5), regularCell(2, "", -5))},
		{"expiring and tombstone", rowOf([]byte("a"), 10, expiringCell(1, "x", 10, 60, 1060), tombstoneCell(2, 11, 1000))},
		{"collection", func() backend.Row {
			r := rowOf([]byte("a"), backend.NoTimestamp, backend.Cell{Column: 3, Path: []byte{}, Value: []byte("v"), Timestamp: 1, LocalDeletionTime: backend.NoDeletionTime})
			r.ComplexDeletions = []backend.ComplexDeletion{{Column: 3, Deletion: deletion(0, 99)}}
			return r
		}()},
		{"row deletion", func() backend.Row {
			r := backend.NewRow([]byte("a"))
			r.Deletion = deletion(math.MaxInt64, math.MinInt64)
			return r
		}()},
		{"extreme timestamps", rowOf([]byte("a"), math.MinInt64+1, regularCell(1, "x", math.MaxInt64))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got backend.Row
			if err := decodeRow(encodeRow(nil, &tc.row), &got, true); err != nil {
				t.Fatal(err)
			}
			got.Clustering = tc.row.Clustering
			if fmtRow(&got) != fmtRow(&tc.row) {
				t.Errorf("got %s, want %s", fmtRow(&got), fmtRow(&tc.row))
			}
		})
	}
}

func TestHeaderAndDeletionCodec(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := header{
			deletion:          genDeletion(t, "deletion"),
			maxTimestamp:      genTimestamp(t, "max"),
			rowsWritten:       rapid.Int64().Draw(t, "rows"),
			bytesWritten:      rapid.Int64().Draw(t, "bytes"),
			tombstonesWritten: rapid.Int64().Draw(t, "tombs"),
		}
		got, err := decodeHeader(h.encode(nil))
		if err != nil || got != h {
			t.Fatalf("header round trip: %+v, %v; want %+v", got, err, h)
		}
		d := genDeletion(t, "rt")
		gotD, err := decodeDeletion(encodeDeletion(nil, d))
		if err != nil || gotD != d {
			t.Fatalf("deletion round trip: %+v, %v; want %+v", gotD, err, d)
		}
	})
}

// FuzzDecodeRow feeds arbitrary values to every value decoder and to the
// merge operator: none may panic, and a row that decodes must re-encode to
// a value that decodes to the same row.
func FuzzDecodeRow(f *testing.F) {
	seeds := []backend.Row{
		rowOf([]byte("a"), 10, regularCell(1, "x", 10), expiringCell(2, "y", 11, 5, 100), tombstoneCell(3, 12, 50)),
		backend.NewRow(nil),
	}
	for i := range seeds {
		f.Add(encodeRow(nil, &seeds[i]))
	}
	h := newHeader()
	f.Add(h.encode(nil))
	f.Add(encodeDeletion(nil, deletion(1, 2)))
	f.Add([]byte{rowHasComplex, 0, 0, 1})
	f.Fuzz(fuzzRowBody)
}

// fuzzRowBody is FuzzDecodeRow's check of one value.
func fuzzRowBody(t *testing.T, value []byte) {
	var r backend.Row
	if err := decodeRow(value, &r, false); err == nil {
		enc := encodeRow(nil, &r)
		var again backend.Row
		if err := decodeRow(enc, &again, true); err != nil {
			t.Fatalf("re-encoded row %x does not decode: %v", enc, err)
		}
		if fmtRow(&again) != fmtRow(&r) {
			t.Fatalf("re-encoding changed the row:\n%s\n%s", fmtRow(&again), fmtRow(&r))
		}
	}
	_, _ = decodeHeader(value)
	_, _ = decodeDeletion(value)
	// The merge operator sees stored values only, but must fail cleanly.
	key := rowKey(appendPhysical(nil, testPartition(1, "k", 0)), []byte("c"))
	if m, err := merger.Merge(key, value); err == nil {
		if err := m.MergeOlder(value); err == nil {
			_, _, _ = m.Finish(true)
		}
	}
}
