package exec

import (
	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/plan"
	"github.com/partita-db/partita/internal/types"
)

// applyCollectionOperation adds the cells of an operation on part of a
// non-frozen collection or UDT, or on a counter.
func (w *writeContext) applyCollectionOperation(row *backend.Row, op plan.Operation, attrs attributes) error {
	col := op.Column
	var v []byte
	if op.Value != nil {
		var unset bool
		var err error
		if v, unset, err = w.evalValid(op.Value); err != nil || unset {
			return err
		}
	}
	switch op.Kind {
	case plan.OpSetField, plan.OpDeleteField:
		path := fieldPath(op.Field)
		if v == nil {
			row.Cells = append(row.Cells, attrs.tombstone(col.ID, path, w.now))
		} else {
			row.Cells = append(row.Cells, attrs.cell(col.ID, path, v, w.now))
		}
		return nil
	case plan.OpSetElement, plan.OpDeleteElement:
		return w.elementOperation(row, op, v, attrs)
	case plan.OpAdd, plan.OpPrepend:
		if col.Type.IsCounter() {
			return w.counterUpdate(row, op, v, attrs, 1)
		}
		if v == nil {
			return nil // adding null adds nothing
		}
		return w.addElements(row, col, v, attrs, op.Kind == plan.OpPrepend)
	case plan.OpSubtract:
		if col.Type.IsCounter() {
			return w.counterUpdate(row, op, v, attrs, -1)
		}
		if v == nil {
			return nil
		}
		return w.removeElements(row, op, v, attrs)
	}
	return cqlerr.Serverf("unknown operation %d", op.Kind)
}

func (w *writeContext) elementOperation(row *backend.Row, op plan.Operation, v []byte, attrs attributes) error {
	col := op.Column
	key, unset, err := w.evalValid(op.Key)
	if err != nil {
		return err
	}
	if unset {
		switch {
		case col.Type.Kind == types.KindMap:
			return cqlerr.Invalidf("Invalid unset map key")
		case op.Kind == plan.OpDeleteElement:
			return nil // Lists.DiscarderByIndex and Sets.ElementDiscarder skip it
		case col.Type.Kind == types.KindList:
			return cqlerr.Invalidf("Invalid unset value for list index")
		}
		return cqlerr.Invalidf("Invalid unset map key")
	}
	switch col.Type.Kind {
	case types.KindMap:
		if key == nil {
			return cqlerr.Invalidf("Invalid null map key")
		}
		path := elementPath(col.Type.Elems[0], key)
		if op.Kind == plan.OpDeleteElement || v == nil {
			row.Cells = append(row.Cells, attrs.tombstone(col.ID, path, w.now))
			return nil
		}
		row.Cells = append(row.Cells, attrs.cell(col.ID, path, v, w.now))
		return nil
	case types.KindSet:
		if key == nil {
			return cqlerr.Invalidf("Invalid null set element")
		}
		row.Cells = append(row.Cells, attrs.tombstone(col.ID, elementPath(col.Type.Elems[0], key), w.now))
		return nil
	}
	return w.listIndexOperation(row, op, key, v, attrs)
}

// listIndexOperation is l[i] = v or DELETE l[i]: it needs the current list
// to find the element's cell (Lists.SetterByIndex, DiscarderByIndex).
func (w *writeContext) listIndexOperation(row *backend.Row, op plan.Operation, key, v []byte, attrs attributes) error {
	if key == nil {
		return cqlerr.Invalidf("Invalid null value for list index")
	}
	idx, err := types.Int64(types.Int, key)
	if err != nil {
		return err
	}
	cells := w.listSoFar(row, op.Column)
	if len(cells) == 0 {
		if op.Kind == plan.OpDeleteElement {
			return cqlerr.Invalidf("Attempted to delete an element from a list which is null")
		}
		return cqlerr.Invalidf("Attempted to set an element on a list which is null")
	}
	if idx < 0 || idx >= int64(len(cells)) {
		return cqlerr.Invalidf("List index %d out of bound, list has size %d", idx, len(cells))
	}
	path := cells[idx].Path
	if op.Kind == plan.OpDeleteElement || v == nil {
		row.Cells = append(row.Cells, attrs.tombstone(op.Column.ID, path, w.now))
		return nil
	}
	row.Cells = append(row.Cells, attrs.cell(op.Column.ID, path, v, w.now))
	return nil
}

// listSoFar is the list as the statement's earlier operations left it: the
// current cells merged with the cells and deletions already in row. An
// operation that reads the list sees those of its own statement
// (UpdateParameters.getPrefetchedRow merges the pending updates), so
// l = l + [9], l = l - [9] leaves no 9.
func (w *writeContext) listSoFar(row *backend.Row, col *catalog.Column) []backend.Cell {
	current := findCells(w.cur.rowOf(col), col.ID)
	pending := backend.NewRow(nil)
	for _, c := range row.Cells[w.pendingCells:] {
		if c.Column == col.ID {
			pending.Cells = append(pending.Cells, c)
		}
	}
	for _, d := range row.ComplexDeletions[w.pendingDeletions:] {
		if d.Column == col.ID {
			pending.ComplexDeletions = append(pending.ComplexDeletions, d)
		}
	}
	if len(pending.Cells) == 0 && len(pending.ComplexDeletions) == 0 {
		return current
	}
	sortCells(&pending)
	merged := backend.NewRow(nil)
	merged.Cells = append([]backend.Cell(nil), current...)
	backend.MergeInto(&merged, &pending, nil)
	merged.LiveCells(w.now)
	return merged.Cells
}

// counterUpdate adds delta (sign applied) to the counter's current value,
// read under the partition's lock; the write supersedes that value because
// its timestamp was raised above it (Request.lockedTimestamp). A counter
// this statement already updated (c = c + 1, c = c + 2, or a static counter
// updated once per clustering row) adds to that update, as Cassandra sums
// the increments of one mutation. The sum wraps like Java's long
// arithmetic.
func (w *writeContext) counterUpdate(row *backend.Row, op plan.Operation, v []byte, attrs attributes, sign int64) error {
	if v == nil {
		return cqlerr.Invalidf("Invalid null value for counter increment/decrement")
	}
	delta, err := types.Int64(types.Bigint, v)
	if err != nil {
		return err
	}
	cur := w.cur.value(op.Column)
	pending := -1
	for i := range row.Cells {
		if row.Cells[i].Column == op.Column.ID {
			pending, cur = i, row.Cells[i].Value
		}
	}
	var current int64
	if cur != nil {
		if current, err = types.Int64(types.Counter, cur); err != nil {
			return err
		}
	}
	out, err := types.EncodeInt(types.Bigint, int64(uint64(current)+uint64(sign*delta)))
	if err != nil {
		return err
	}
	cell := attrs.cell(op.Column.ID, nil, out, w.now)
	if pending >= 0 {
		row.Cells[pending] = cell
		return nil
	}
	row.Cells = append(row.Cells, cell)
	return nil
}

func (w *writeContext) removeElements(row *backend.Row, op plan.Operation, v []byte, attrs attributes) error {
	col := op.Column
	switch col.Type.Kind {
	case types.KindSet, types.KindMap:
		elems, err := types.DecodeCollection(v)
		if err != nil {
			return err
		}
		for _, el := range elems {
			row.Cells = append(row.Cells, attrs.tombstone(col.ID, elementPath(col.Type.Elems[0], el), w.now))
		}
		return nil
	}
	// l = l - [v...]: tombstone every current element equal to one of v.
	remove, err := types.DecodeCollection(v)
	if err != nil {
		return err
	}
	for _, cell := range w.listSoFar(row, col) {
		for _, r := range remove {
			if equalValues(col.Type.Elems[0], cell.Value, r) {
				row.Cells = append(row.Cells, attrs.tombstone(col.ID, cell.Path, w.now))
				break
			}
		}
	}
	return nil
}
