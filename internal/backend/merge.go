package backend

// MergeInto folds src into dst: both are versions of the same row, and the
// result is what reading both would show (invariants 1 and 2). Cells of the
// result may alias either input; scratch is reused for the merged cell list
// and returned for the next call.
func MergeInto(dst, src *Row, scratch []Cell) []Cell {
	if src.Liveness.Supersedes(dst.Liveness) {
		dst.Liveness = src.Liveness
	}
	dst.Deletion = dst.Deletion.Max(src.Deletion)
	if len(src.ComplexDeletions) > 0 {
		dst.ComplexDeletions = mergeComplexDeletions(dst.ComplexDeletions, src.ComplexDeletions)
	}
	merged := scratch[:0]
	a, b := dst.Cells, src.Cells
	for len(a) > 0 || len(b) > 0 {
		switch {
		case len(b) == 0:
			merged = append(merged, a...)
			a = nil
		case len(a) == 0:
			merged = append(merged, b...)
			b = nil
		default:
			switch c := ComparePosition(&a[0], &b[0]); {
			case c < 0:
				merged = append(merged, a[0])
				a = a[1:]
			case c > 0:
				merged = append(merged, b[0])
				b = b[1:]
			default:
				merged = append(merged, *Reconcile(&a[0], &b[0]))
				a, b = a[1:], b[1:]
			}
		}
	}
	old := dst.Cells
	dst.Cells = merged
	dst.Purge(dst.Deletion)
	return old
}

func mergeComplexDeletions(a, b []ComplexDeletion) []ComplexDeletion {
	out := make([]ComplexDeletion, 0, len(a)+len(b))
	for len(a) > 0 || len(b) > 0 {
		switch {
		case len(b) == 0 || (len(a) > 0 && a[0].Column < b[0].Column):
			out = append(out, a[0])
			a = a[1:]
		case len(a) == 0 || b[0].Column < a[0].Column:
			out = append(out, b[0])
			b = b[1:]
		default:
			out = append(out, ComplexDeletion{Column: a[0].Column, Deletion: a[0].Deletion.Max(b[0].Deletion)})
			a, b = a[1:], b[1:]
		}
	}
	return out
}

// Purge removes from r everything that deletion d, r's own deletion and its
// complex deletions shadow. Cells are filtered in place. It reports whether
// anything but deletions is left.
func (r *Row) Purge(d DeletionTime) bool {
	d = d.Max(r.Deletion)
	if d.Deletes(r.Liveness.Timestamp) {
		r.Liveness = NoLiveness
	}
	kept := r.Cells[:0]
	ci := 0
	for i := range r.Cells {
		c := &r.Cells[i]
		if d.Deletes(c.Timestamp) {
			continue
		}
		if c.Path != nil && len(r.ComplexDeletions) > 0 {
			for ci < len(r.ComplexDeletions) && r.ComplexDeletions[ci].Column < c.Column {
				ci++
			}
			if ci < len(r.ComplexDeletions) && r.ComplexDeletions[ci].Column == c.Column &&
				r.ComplexDeletions[ci].Deletion.Deletes(c.Timestamp) {
				continue
			}
		}
		kept = append(kept, *c)
	}
	r.Cells = kept
	return !r.Liveness.IsEmpty() || len(r.Cells) > 0
}

// MaxTimestamp returns the newest timestamp of anything r carries, deletions
// included, or NoTimestamp for an empty row.
func (r *Row) MaxTimestamp() int64 {
	max := r.Liveness.Timestamp
	if r.Deletion.MarkedForDeleteAt > max {
		max = r.Deletion.MarkedForDeleteAt
	}
	for i := range r.Cells {
		if r.Cells[i].Timestamp > max {
			max = r.Cells[i].Timestamp
		}
	}
	for _, cd := range r.ComplexDeletions {
		if cd.Deletion.MarkedForDeleteAt > max {
			max = cd.Deletion.MarkedForDeleteAt
		}
	}
	return max
}

// LiveCells removes every cell that is not live at now (expired cells and
// tombstones) and reports how many it removed.
func (r *Row) LiveCells(now int64) (removed int) {
	kept := r.Cells[:0]
	for i := range r.Cells {
		if r.Cells[i].IsLive(now) {
			kept = append(kept, r.Cells[i])
		} else {
			removed++
		}
	}
	r.Cells = kept
	return removed
}
