package exec

import (
	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/catalog"
)

// hideDropped wraps a read of table t so that its rows come without the
// cells a re-added column's dropped predecessor wrote at or before the
// drop (catalog.Column.HiddenUpTo), as Cassandra skips a dropped column's
// cells up to its drop time on every read; a row left with no live data
// (now, in seconds) is skipped. Tables with no such column are read as
// they are.
func hideDropped(t *catalog.Table, it backend.RowIterator, now int64) backend.RowIterator {
	hidden := map[backend.ColumnID]int64{}
	for _, c := range t.Columns {
		if c.HiddenUpTo != 0 {
			hidden[c.ID] = c.HiddenUpTo
		}
	}
	if len(hidden) == 0 {
		return it
	}
	return &droppedFilter{RowIterator: it, hidden: hidden, now: now}
}

type droppedFilter struct {
	backend.RowIterator
	hidden map[backend.ColumnID]int64
	now    int64
	row    backend.Row
}

func (f *droppedFilter) Next() bool {
	for f.RowIterator.Next() {
		r := f.RowIterator.Row()
		if r == nil || f.filter(r) || f.row.HasLiveData(f.now) {
			return true
		}
	}
	return false
}

func (f *droppedFilter) Row() *backend.Row { return &f.row }

// filter copies r into f.row without its hidden cells and reports whether
// none was hidden.
func (f *droppedFilter) filter(r *backend.Row) bool {
	f.row = *r
	f.row.Cells = nil
	untouched := true
	for _, c := range r.Cells {
		if upTo, ok := f.hidden[c.Column]; ok && c.Timestamp <= upTo {
			untouched = false
			continue
		}
		f.row.Cells = append(f.row.Cells, c)
	}
	f.row.ComplexDeletions = nil
	for _, d := range r.ComplexDeletions {
		if upTo, ok := f.hidden[d.Column]; ok && d.Deletion.MarkedForDeleteAt <= upTo {
			continue
		}
		f.row.ComplexDeletions = append(f.row.ComplexDeletions, d)
	}
	return untouched
}
