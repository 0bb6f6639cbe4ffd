package exec

import (
	"bytes"
	"context"

	"github.com/partita-db/partita/internal/backend"
)

// The base rows before a write are read live: the deletions they no longer
// show (a row, range or partition deletion that removed them, a cell
// tombstone) are not in them. A write stamped older than such a deletion
// (a client's USING TIMESTAMP) is hidden by it in the base, and the view
// rows computed from the expected after-row would show it. So, still under
// the partitions' locks, correctViews reads the rows the write touched and,
// for each that differs from what was expected, moves the view from the
// expected row to the one read, as a later write would: the view row of
// the expected row loses what the real one does not have (tombstones at
// the same timestamps, an expired marker for a key that is not there).

// correctViews fixes the view rows of base rows that read back otherwise
// than expected.
func (x *Executor) correctViews(ctx context.Context, written []*baseRows, now int64) error {
	var fix []backend.Mutation
	for _, rows := range written {
		actual, err := x.readRows(ctx, rows.partition, rows.slices, now)
		if err != nil {
			return err
		}
		for _, k := range rows.order {
			expected, got := rows.after[k], actual[k]
			if sameVisible(expected, got, now) {
				continue
			}
			if got == nil {
				empty := backend.NewRow([]byte(k))
				got = &empty
			}
			ck, err := decodeClustering(rows.vt.base, []byte(k), nil)
			if err != nil {
				return err
			}
			hidden := hiddenCells(expected, got, now)
			for _, v := range rows.vt.views {
				g := viewUpdate{base: rows.vt.base, view: v, pk: rows.pk, ck: ck, now: now}
				fix = append(fix, g.correct(expected, got, hidden)...)
			}
		}
	}
	if len(fix) == 0 {
		return nil
	}
	return x.apply(ctx, mergeMutations(fix))
}

func (x *Executor) readRows(ctx context.Context, p backend.PhysicalPartition, slices []backend.Slice, now int64) (map[string]*backend.Row, error) {
	it, err := x.store.Read(ctx, backend.ReadCommand{Partition: p, Slices: slices, Now: now})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	out := map[string]*backend.Row{}
	for it.Next() {
		if r := it.Row(); r.Clustering != nil {
			out[string(r.Clustering)] = copyRow(r)
		}
	}
	return out, it.Err()
}

// sameVisible reports whether two versions of a row show the same live
// marker and cells.
func sameVisible(a, b *backend.Row, now int64) bool {
	aLive, bLive := a != nil && a.HasLiveData(now), b != nil && b.HasLiveData(now)
	if !aLive || !bLive {
		return aLive == bLive
	}
	if a.Liveness.IsLive(now) != b.Liveness.IsLive(now) ||
		(a.Liveness.IsLive(now) && a.Liveness.Timestamp != b.Liveness.Timestamp) {
		return false
	}
	return len(hiddenCells(a, b, now)) == 0 && len(hiddenCells(b, a, now)) == 0
}

// hiddenCells returns the live cells of expected that got does not show,
// as tombstones at their timestamps.
func hiddenCells(expected, got *backend.Row, now int64) []backend.Cell {
	var out []backend.Cell
	for _, c := range expected.Cells {
		if !c.IsLive(now) {
			continue
		}
		found := false
		for _, d := range findCells(got, c.Column) {
			if bytes.Equal(d.Path, c.Path) && d.Timestamp == c.Timestamp && bytes.Equal(d.Value, c.Value) {
				found = true
				break
			}
		}
		if !found {
			out = append(out, backend.Cell{Column: c.Column, Path: c.Path, Timestamp: c.Timestamp,
				LocalDeletionTime: now})
		}
	}
	return out
}

// correct moves one view from the row expected to the row got: the row
// got as the write would have produced it, and the cells the expected row
// wrongly gave the view as tombstones.
func (g *viewUpdate) correct(expected, got *backend.Row, hidden []backend.Cell) []backend.Mutation {
	out := g.change(expected, got)
	if len(hidden) == 0 {
		return out
	}
	part, ck, ok := g.key(expected)
	if !ok {
		return out
	}
	tombs := backend.Row{Clustering: ck, Liveness: backend.NoLiveness, Deletion: backend.LiveDeletion, Cells: hidden}
	r := g.project(&tombs, ck)
	if len(r.Cells) == 0 {
		return out
	}
	return append(out, viewMutation(part, r))
}
