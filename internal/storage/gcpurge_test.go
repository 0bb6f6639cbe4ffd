package storage

import (
	"fmt"
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/backend"
)

// TestRowPurger pins the purge rules on single rows: now = 1000 and
// gcBefore = 900 (gc_grace 100).
func TestRowPurger(t *testing.T) {
	const now, before = 1000, 900
	withDeletion := func(r backend.Row, d backend.DeletionTime) backend.Row { r.Deletion = d; return r }
	withComplex := func(r backend.Row, col backend.ColumnID, d backend.DeletionTime) backend.Row {
		r.ComplexDeletions = []backend.ComplexDeletion{{Column: col, Deletion: d}}
		return r
	}
	element := func(path, value string, ts int64) backend.Cell {
		c := regularCell(3, value, ts)
		c.Path = []byte(path)
		return c
	}
	expiredMarker := rowOf([]byte("a"), 10)
	expiredMarker.Liveness.TTL, expiredMarker.Liveness.ExpiresAt = 10, 950
	oldExpiredMarker := rowOf([]byte("a"), 10)
	oldExpiredMarker.Liveness.TTL, oldExpiredMarker.Liveness.ExpiresAt = 10, 850
	tests := []struct {
		name     string
		row      backend.Row
		covering []backend.DeletionTime
		want     string // the row after purge, or "empty"
		changed  bool
	}{
		{"nothing to do", rowOf([]byte("a"), 10, regularCell(1, "x", 10), tombstoneCell(2, 10, 950)), nil,
			"a: marker@10 c1=x@10 c2=tomb@10,ldt=950", false},
		{"old tombstone dropped", rowOf([]byte("a"), 10, tombstoneCell(2, 10, 899)), nil, "a: marker@10", true},
		{"tombstone at gcBefore kept", rowOf([]byte("a"), 10, tombstoneCell(2, 10, 900)), nil,
			"a: marker@10 c2=tomb@10,ldt=900", false},
		{"expired cell becomes a tombstone dated expiry - ttl", rowOf([]byte("a"), 10, expiringCell(1, "x", 10, 60, 1000)), nil,
			"a: marker@10 c1=tomb@10,ldt=940", true},
		{"expired cell older than gc_grace dropped", rowOf([]byte("a"), 10, expiringCell(1, "x", 10, 200, 1000)), nil,
			"a: marker@10", true},
		{"live expiring cell kept", rowOf([]byte("a"), 10, expiringCell(1, "x", 10, 200, 1001)), nil,
			"a: marker@10 c1=x@10,ttl=200,exp=1001", false},
		{"shadowed data dropped whatever the deletion's age",
			rowOf([]byte("a"), 10, regularCell(1, "x", 10), expiringCell(2, "y", 5, 1000, 5000)),
			[]backend.DeletionTime{deletion(10, 1)}, "empty", true},
		{"shadowed tombstone kept while the deletion does not outlive it",
			rowOf([]byte("a"), backend.NoTimestamp, tombstoneCell(1, 5, 990)),
			[]backend.DeletionTime{deletion(10, 950)}, "a: c1=tomb@5,ldt=990", false},
		{"shadowed tombstone dropped when the deletion outlives it",
			rowOf([]byte("a"), backend.NoTimestamp, tombstoneCell(1, 5, 940)),
			[]backend.DeletionTime{deletion(10, 950)}, "empty", true},
		{"an older covering deletion may be the one that outlives",
			rowOf([]byte("a"), backend.NoTimestamp, tombstoneCell(1, 5, 940)),
			[]backend.DeletionTime{deletion(20, 910), deletion(10, 950)}, "empty", true},
		{"newer data survives the deletion", rowOf([]byte("a"), 20, regularCell(1, "x", 10), regularCell(2, "y", 20)),
			[]backend.DeletionTime{deletion(15, 950)}, "a: marker@20 c2=y@20", true},
		{"row deletion applied and kept within gc_grace",
			withDeletion(rowOf([]byte("a"), 10, regularCell(1, "x", 12)), deletion(11, 950)), nil,
			"a: rowdel=11/950 c1=x@12", true},
		{"row deletion dropped after gc_grace",
			withDeletion(rowOf([]byte("a"), 10, regularCell(1, "x", 12)), deletion(11, 850)), nil,
			"a: c1=x@12", true},
		{"row deletion outlived by a covering deletion",
			withDeletion(rowOf([]byte("a"), backend.NoTimestamp, regularCell(1, "x", 12)), deletion(11, 950)),
			[]backend.DeletionTime{deletion(11, 960)}, "a: c1=x@12", true},
		{"collection deletion applied to elements",
			withComplex(rowOf([]byte("a"), 10, element("k1", "v", 5), element("k2", "w", 15)), 3, deletion(10, 950)), nil,
			"a: marker@10 c3{}del=10/950 c3[k2]=w@15", true},
		{"collection deletion dropped after gc_grace",
			withComplex(rowOf([]byte("a"), 10, element("k2", "w", 15)), 3, deletion(10, 850)), nil,
			"a: marker@10 c3[k2]=w@15", true},
		{"expired marker kept until its expiry is before gcBefore", expiredMarker, nil, "a: marker@10,ttl=10,exp=950", false},
		{"expired marker dropped", oldExpiredMarker, nil, "empty", true},
		{"shadowed marker dropped", rowOf([]byte("a"), 10), []backend.DeletionTime{deletion(10, 999)}, "empty", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := rowPurger{now: now, gcBefore: before}
			row := copyRow(&tc.row)
			covering := shadowers{backend.LiveDeletion}
			covering = append(covering, tc.covering...)
			changed := p.purge(&row, covering)
			got := fmtRow(&row)
			if rowIsEmpty(&row) {
				got = "empty"
			}
			if got != tc.want || changed != tc.changed {
				t.Errorf("purge = %q (changed %t), want %q (changed %t)", got, changed, tc.want, tc.changed)
			}
		})
	}
}

// TestRedundantTombstones: range tombstones dropped for their age, for
// covering nothing, or because a kept deletion covers and outlives them.
func TestRedundantTombstones(t *testing.T) {
	const before = 900
	rt := func(start, end string, ts, ldt int64) storedTomb {
		return storedTomb{tomb: backend.RangeTombstone{Slice: backend.Slice{Start: boundKey(start), End: boundKey(end)},
			Deletion: deletion(ts, ldt)}}
	}
	tests := []struct {
		name      string
		tombs     []storedTomb
		partition backend.DeletionTime
		want      string // one letter per tombstone: d dropped, k kept
	}{
		{"queue consumer: a growing prefix", []storedTomb{
			rt("*", "b", 10, 910), rt("*", "c", 20, 920), rt("*", "d", 30, 930)}, backend.LiveDeletion, "ddk"},
		{"cover with an older local deletion time keeps both", []storedTomb{
			rt("*", "b", 10, 950), rt("*", "c", 20, 920)}, backend.LiveDeletion, "kk"},
		{"cover by an older timestamp keeps both", []storedTomb{
			rt("*", "b", 30, 910), rt("*", "c", 20, 920)}, backend.LiveDeletion, "kk"},
		{"partial overlap keeps both", []storedTomb{
			rt("a", "c", 10, 910), rt("b", "d", 20, 920)}, backend.LiveDeletion, "kk"},
		{"open end covers", []storedTomb{rt("b", "c", 10, 910), rt("a", "*", 20, 920)}, backend.LiveDeletion, "dk"},
		{"aged ones go and make nothing redundant", []storedTomb{
			rt("*", "b", 10, 910), rt("*", "*", 20, 899)}, backend.LiveDeletion, "kd"},
		{"empty slice", []storedTomb{rt("c", "a", 10, 990)}, backend.LiveDeletion, "d"},
		{"partition deletion outlives", []storedTomb{rt("a", "b", 10, 910), rt("a", "c", 30, 910)}, deletion(20, 950), "dk"},
		{"aged partition deletion does not", []storedTomb{rt("a", "b", 10, 910)}, deletion(20, 850), "k"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got strings.Builder
			for _, d := range redundantTombstones(tc.tombs, tc.partition, before) {
				got.WriteString(map[bool]string{true: "d", false: "k"}[d])
			}
			if got.String() != tc.want {
				t.Errorf("got %s, want %s", got.String(), tc.want)
			}
		})
	}
	// Past the bound only age and emptiness count.
	many := make([]storedTomb, maxSupersedeCheck+1)
	for i := range many {
		many[i] = rt("*", fmt.Sprintf("k%05d", i), int64(i), 910)
	}
	for i, d := range redundantTombstones(many, backend.LiveDeletion, before) {
		if d {
			t.Fatalf("tombstone %d dropped beyond the check bound", i)
		}
	}
}
