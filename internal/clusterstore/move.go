package clusterstore

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/partita-db/partita/internal/backend"
)

// marker is one decoded deletion marker.
type marker struct {
	col      int64
	c, path  []byte
	deletion backend.DeletionTime
}

// rawRow is the backing cells of one clustering row, as stored.
type rawRow struct {
	c     []byte
	cells []backingCell
}

// readRaw returns the backing cells of p's rows in slice, grouped by row.
func (s *Store) readRaw(ctx context.Context, p backend.PhysicalPartition, slice backend.Slice) ([]rawRow, error) {
	table, cond, vals := s.where(p)
	q := fmt.Sprintf(`SELECT %s FROM %s WHERE %s AND kind = ? AND c >= ?`, selectCells, table, cond)
	args := append(append([]any{}, vals...), kindRow, nonNil(slice.Start))
	if slice.End != nil {
		q += ` AND c < ?`
		args = append(args, slice.End)
	}
	src, err := s.query(ctx, false, q, args...)
	if err != nil {
		return nil, err
	}
	var rows []rawRow
	for ; src.has; src.advance() {
		if n := len(rows); n == 0 || !bytes.Equal(rows[n-1].c, src.cur.c) {
			rows = append(rows, rawRow{c: src.cur.c})
		}
		rows[len(rows)-1].cells = append(rows[len(rows)-1].cells, src.cur)
	}
	return rows, src.close()
}

// readMarkers returns every deletion marker of p.
func (s *Store) readMarkers(ctx context.Context, p backend.PhysicalPartition) ([]marker, error) {
	table, cond, vals := s.where(p)
	src, err := s.query(ctx, false, fmt.Sprintf(`SELECT %s FROM %s WHERE %s AND kind = ?`, selectCells, table, cond),
		append(append([]any{}, vals...), kindMarker)...)
	if err != nil {
		return nil, err
	}
	var out []marker
	for ; src.has; src.advance() {
		d, err := decodeDeletion(src.cur.v)
		if err != nil {
			_ = src.close()
			return nil, err
		}
		out = append(out, marker{col: src.cur.col, c: src.cur.c, path: src.cur.path, deletion: d})
	}
	return out, src.close()
}

// Move implements backend.Mover. The moved rows are written to their
// targets at a fresh generation and their old copies removed at exactly
// their positions and timestamps (invariant 4); the sources' deletions
// follow them (invariant 3). Data, removals and metadata commit all or
// nothing (commitAtomic).
func (s *Store) Move(ctx context.Context, cmd backend.MoveCommand) (backend.MoveStats, error) {
	var stats backend.MoveStats
	if err := s.ensureTable(ctx, cmd.Partition.Table); err != nil {
		return stats, err
	}
	copies, removals := s.newWriter(), s.newWriter()
	copies.markerTTL = s.markerTTL(cmd.Partition.Table)
	gen := s.generation()
	now := time.Now().Unix()
	targets := map[backend.Shard]bool{}
	for _, t := range cmd.Targets {
		targets[t] = true
	}
	for _, from := range cmd.From {
		src := cmd.Partition.Physical(from)
		rows, err := s.readRaw(ctx, src, cmd.Slice)
		if err != nil {
			return stats, err
		}
		for _, r := range rows {
			to := cmd.Route(r.c)
			if to == from {
				continue
			}
			dst := cmd.Partition.Physical(to)
			targets[to] = true
			var b rowBuilder
			b.reset(kindRow, r.c)
			for i := range r.cells {
				b.add(&r.cells[i])
				bc := &r.cells[i]
				removals.deletePrefix(src, bc.ts, "kind = ? AND c = ? AND col = ? AND path = ? AND gen = ?", kindRow, r.c, bc.col, bc.path, bc.gen)
			}
			if !b.finish(now) {
				continue
			}
			stats.Rows++
			stats.Bytes += b.bytes
			if l := b.row.Liveness; !l.IsEmpty() {
				copies.writeCell(dst, kindRow, r.c, livenessColumn, []byte{}, gen, []byte{}, l.Timestamp, l.TTL, l.ExpiresAt)
			}
			for _, c := range b.row.Cells {
				copies.writeCell(dst, kindRow, r.c, int64(c.Column), encodePath(c.Path), gen, c.Value, c.Timestamp,
					c.TTL, c.LocalDeletionTime)
			}
		}
		markers, err := s.readMarkers(ctx, src)
		if err != nil {
			return stats, err
		}
		for _, m := range markers {
			if err := s.carryMarker(copies, cmd, from, targets, m); err != nil {
				return stats, err
			}
		}
	}
	for t := range targets {
		if t != backend.HomeShard {
			copies.register(cmd.Partition.Physical(t))
		}
	}
	meta := s.newWriter()
	for _, m := range cmd.Meta {
		meta.meta(m)
	}
	if err := s.commitMove(ctx, copies, meta, removals); err != nil {
		return stats, fmt.Errorf("clusterstore: move: %w", err)
	}
	copies.registered()
	return stats, nil
}

func remaining(ttl int32, expiresAt, now int64) int32 {
	if ttl == 0 {
		return 0
	}
	return int32(max(expiresAt-now, 1))
}

// carryMarker writes a source's deletion to the shards that receive the
// rows it covers: the partition deletion and range deletions (clipped to
// the moved slice) to every target, a row's deletions to its row's target.
func (s *Store) carryMarker(w *writer, cmd backend.MoveCommand, from backend.Shard, targets map[backend.Shard]bool, m marker) error {
	d := m.deletion
	ts := d.MarkedForDeleteAt
	switch m.col {
	case markerPartition:
		for t := range targets {
			if t != from {
				dst := cmd.Partition.Physical(t)
				w.deletePrefix(dst, ts, "")
				w.marker(dst, markerPartition, nil, nil, d)
			}
		}
	case markerRange:
		sl := backend.Slice{Start: m.c, End: decodeRangeEnd(m.path)}
		if len(m.c) == 0 {
			sl.Start = nil
		}
		sl = sl.Intersect(cmd.Slice)
		if sl.IsEmpty() {
			return nil
		}
		for t := range targets {
			if t != from {
				w.rangeTombstone(cmd.Partition.Physical(t), backend.RangeTombstone{Slice: sl, Deletion: d})
			}
		}
	case markerRow, markerCell, markerComplex:
		if !cmd.Slice.Contains(m.c) {
			return nil
		}
		to := cmd.Route(m.c)
		if to == from {
			return nil
		}
		dst := cmd.Partition.Physical(to)
		switch m.col {
		case markerRow:
			w.deletePrefix(dst, ts, "kind = ? AND c = ?", kindRow, m.c)
		case markerCell:
			col, path, err := decodeCellPosition(m.path)
			if err != nil {
				return err
			}
			w.deletePrefix(dst, ts, "kind = ? AND c = ? AND col = ? AND path = ?", kindRow, m.c, int64(col), encodePath(path))
		case markerComplex:
			col, err := decodeColumn(m.path)
			if err != nil {
				return err
			}
			w.deletePrefix(dst, ts, "kind = ? AND c = ? AND col = ?", kindRow, m.c, int64(col))
		}
		w.marker(dst, m.col, m.c, m.path, d)
	}
	// Static markers stay: the static row never leaves the home shard.
	return nil
}

// commitMove commits a move all or nothing (through the batch log when
// it is larger than one batch may be).
func (s *Store) commitMove(ctx context.Context, copies, meta, removals *writer) error {
	all := append(append(append([]statement{}, copies.stmts...), meta.stmts...), removals.stmts...)
	return s.commitAtomic(ctx, all)
}

func batchBytes(stmts []statement) int {
	n := 0
	for _, st := range stmts {
		n += st.bytes
	}
	return n
}

// EstimateSize implements backend.Mover. The cluster keeps sizes per token
// range (system.size_estimates), not per partition, so there is no cheap
// per-partition figure: 0 lets the split layer's exact measurement (the
// bytes its counted read saw) stand.
func (s *Store) EstimateSize(context.Context, backend.PhysicalPartition) (int64, error) {
	return 0, nil
}
