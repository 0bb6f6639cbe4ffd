package exec

import (
	"github.com/partita-db/partita/internal/backend"
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
			return cqlerr.Invalidf("counter updates are not supported yet")
		}
		if v == nil {
			return nil // adding null adds nothing
		}
		return w.addElements(row, col, v, attrs, op.Kind == plan.OpPrepend)
	case plan.OpSubtract:
		if col.Type.IsCounter() {
			return cqlerr.Invalidf("counter updates are not supported yet")
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
	return cqlerr.Invalidf("list index operations are not supported yet")
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
	return cqlerr.Invalidf("list element removal is not supported yet")
}
