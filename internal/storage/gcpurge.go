package storage

import (
	"bytes"
	"math"

	"github.com/partita-db/partita/internal/backend"
)

// rowPurger applies deletions and gc_grace to rows and counts what it
// removes (GCStats.CellsPurged and TombstonesPurged).
type rowPurger struct {
	now      int64 // seconds: what has expired
	gcBefore int64 // seconds: tombstones deleted before this may go
	cells    int64
	// tombstones counts dropped deletions of any kind.
	tombstones int64
	scratch    shadowers
}

// outlives reports whether deletion d shadows everything written at ts and
// will itself be kept at least as long as a tombstone dated purgeAt: then
// dropping that tombstone now changes nothing, today or after either is
// purged (invariant 9).
func outlives(d backend.DeletionTime, ts, purgeAt int64) bool {
	return d.Deletes(ts) && d.LocalDeletionTime >= purgeAt
}

// purge applies covering (the partition and range deletions over the row)
// and the row's own deletions to row, turns expired cells into tombstones
// and drops every tombstone deleted before gcBefore or outlived by a
// deletion that shadows it. It reports whether the row changed. Cells are
// filtered in place.
func (p *rowPurger) purge(row *backend.Row, covering shadowers) bool {
	p.scratch = append(append(p.scratch[:0], covering...), row.Deletion)
	ds := p.scratch
	changed := p.purgeLiveness(row, ds)
	if p.purgeCells(row, ds) {
		changed = true
	}
	if len(row.ComplexDeletions) > 0 {
		kept := row.ComplexDeletions[:0]
		for _, cd := range row.ComplexDeletions {
			del := cd.Deletion
			if del.LocalDeletionTime < p.gcBefore || ds.outlive(del.MarkedForDeleteAt, del.LocalDeletionTime) {
				p.tombstones++
				changed = true
				continue
			}
			kept = append(kept, cd)
		}
		row.ComplexDeletions = kept
	}
	if rd := row.Deletion; !rd.IsLive() &&
		(rd.LocalDeletionTime < p.gcBefore || covering.outlive(rd.MarkedForDeleteAt, rd.LocalDeletionTime)) {
		row.Deletion = backend.LiveDeletion
		p.tombstones++
		changed = true
	}
	return changed
}

// shadowers are deletions over a row: its partition deletion, the range
// tombstones that contain it and, once inside purge, its own deletion.
type shadowers []backend.DeletionTime

func (ds shadowers) shadow(ts int64) bool {
	for _, d := range ds {
		if d.Deletes(ts) {
			return true
		}
	}
	return false
}

// outlive reports whether one of ds outlives a tombstone (see outlives).
// Each is checked, not only the newest: an older deletion may be the one
// kept longer.
func (ds shadowers) outlive(ts, purgeAt int64) bool {
	for _, d := range ds {
		if outlives(d, ts, purgeAt) {
			return true
		}
	}
	return false
}

// purgeLiveness drops a row marker that a deletion shadows (unless it has
// expired and so acts as a tombstone the deletion does not outlive) and an
// expired marker whose expiry is before gcBefore: an expired marker still
// outranks an older marker that arrives later (Liveness.Supersedes), so it
// is kept like a tombstone until then (Cassandra's
// DeletionPurger.shouldPurge(LivenessInfo, nowInSec)).
func (p *rowPurger) purgeLiveness(row *backend.Row, ds shadowers) bool {
	l := row.Liveness
	if l.IsEmpty() {
		return false
	}
	dead := !l.IsLive(p.now)
	switch {
	case ds.shadow(l.Timestamp) && (!dead || ds.outlive(l.Timestamp, l.ExpiresAt)):
		p.cells++
	case dead && l.ExpiresAt < p.gcBefore:
		p.tombstones++
	default:
		return false
	}
	row.Liveness = backend.NoLiveness
	return true
}

// purgeCells drops what ds or a collection deletion shadows: live values
// always — they must stay invisible once the deletion is purged — and
// tombstones (expired cells included) when the deletion outlives them. It
// converts expired cells to tombstones dated at their write time, as
// Cassandra's AbstractCell.purge does, and drops tombstones older than
// gcBefore.
func (p *rowPurger) purgeCells(row *backend.Row, ds shadowers) bool {
	changed := false
	kept := row.Cells[:0]
	ci := 0
	for i := range row.Cells {
		c := row.Cells[i]
		purgeAt := cellPurgeTime(&c)
		cd, hasCD := collectionDeletion(row.ComplexDeletions, &ci, &c)
		shadowed := ds.shadow(c.Timestamp) || (hasCD && cd.Deletes(c.Timestamp))
		outlived := ds.outlive(c.Timestamp, purgeAt) || (hasCD && outlives(cd, c.Timestamp, purgeAt))
		dead := !c.IsLive(p.now)
		if shadowed && (!dead || outlived) {
			if c.IsTombstone() {
				p.tombstones++
			} else {
				p.cells++
			}
			changed = true
			continue
		}
		if c.IsExpiring() && dead {
			// Equal to a tombstone from now on, and smaller. Like Cassandra,
			// the tombstone then beats an expiring cell of the same
			// timestamp that arrives later and would have outlived it.
			c = backend.Cell{Column: c.Column, Path: c.Path, Timestamp: c.Timestamp, LocalDeletionTime: purgeAt}
			p.cells++
			changed = true
		}
		if c.IsTombstone() && c.LocalDeletionTime < p.gcBefore {
			p.tombstones++
			changed = true
			continue
		}
		kept = append(kept, c)
	}
	row.Cells = kept
	return changed
}

// cellPurgeTime is the local deletion time c has, or will have, as a
// tombstone: its own for a tombstone, expiry minus TTL for an expiring
// cell, and none (the minimum) for a regular cell.
func cellPurgeTime(c *backend.Cell) int64 {
	switch {
	case c.IsTombstone():
		return c.LocalDeletionTime
	case c.IsExpiring():
		return c.LocalDeletionTime - int64(c.TTL)
	}
	return math.MinInt64
}

// collectionDeletion returns the deletion of c's collection, if any; cds is
// sorted by column and *ci advances with the cells.
func collectionDeletion(cds []backend.ComplexDeletion, ci *int, c *backend.Cell) (backend.DeletionTime, bool) {
	if c.Path == nil {
		return backend.LiveDeletion, false
	}
	for *ci < len(cds) && cds[*ci].Column < c.Column {
		*ci++
	}
	if *ci < len(cds) && cds[*ci].Column == c.Column {
		return cds[*ci].Deletion, true
	}
	return backend.LiveDeletion, false
}

// maxSupersedeCheck bounds the quadratic search for range tombstones that
// another deletion makes redundant.
const maxSupersedeCheck = 4096

// redundantTombstones marks the range tombstones that need not be kept:
// those older than gcBefore, empty ones, and those that a kept range
// tombstone or partition deletion covers and outlives (repeated deletions
// of a growing prefix, as a queue consumer does, leave one).
func redundantTombstones(tombs []storedTomb, partition backend.DeletionTime, gcBefore int64) []bool {
	drop := make([]bool, len(tombs))
	for i := range tombs {
		t := tombs[i].tomb
		drop[i] = t.Deletion.LocalDeletionTime < gcBefore || t.Slice.IsEmpty() ||
			(partition.LocalDeletionTime >= gcBefore &&
				outlives(partition, t.Deletion.MarkedForDeleteAt, t.Deletion.LocalDeletionTime))
	}
	if len(tombs) > maxSupersedeCheck {
		return drop
	}
	for i := range tombs {
		if drop[i] {
			continue
		}
		a := tombs[i].tomb
		for j := range tombs {
			// A kept tombstone may make another redundant; one that is
			// dropped for its age may not, and two never drop each other
			// (slices are distinct keys, so mutual cover means equality).
			if j == i || tombs[j].tomb.Deletion.LocalDeletionTime < gcBefore {
				continue
			}
			b := tombs[j].tomb
			if sliceCovers(b.Slice, a.Slice) && outlives(b.Deletion, a.Deletion.MarkedForDeleteAt, a.Deletion.LocalDeletionTime) {
				drop[i] = true
				break
			}
		}
	}
	return drop
}

// sliceCovers reports whether every key of inner is in outer.
func sliceCovers(outer, inner backend.Slice) bool {
	if bytes.Compare(outer.Start, inner.Start) > 0 {
		return false
	}
	return outer.End == nil || (inner.End != nil && bytes.Compare(inner.End, outer.End) <= 0)
}
