package exec

import (
	"sort"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/types"
)

// rowView is one CQL row as selectors and filters see it: the partition key
// and clustering values, the clustering row's cells and the partition's
// static row.
type rowView struct {
	table  *catalog.Table
	pk     [][]byte
	pkKey  []byte   // serialized partition key
	ck     [][]byte // nil for a partition's static-only row
	ckKey  []byte   // encoded clustering key
	row    *backend.Row
	static *backend.Row
	now    int64
	// direct holds a system table row's values by column index (index).
	direct [][]byte
	index  map[*catalog.Column]int
}

// findCells returns the cells of column id in r (cells are sorted).
func findCells(r *backend.Row, id backend.ColumnID) []backend.Cell {
	if r == nil {
		return nil
	}
	cs := r.Cells
	i := sort.Search(len(cs), func(i int) bool { return cs[i].Column >= id })
	j := i
	for j < len(cs) && cs[j].Column == id {
		j++
	}
	return cs[i:j]
}

func (v *rowView) rowOf(c *catalog.Column) *backend.Row {
	if c.Kind == catalog.Static {
		return v.static
	}
	return v.row
}

// cell returns the live cell of a simple column, or nil.
func (v *rowView) cell(c *catalog.Column) *backend.Cell {
	cs := findCells(v.rowOf(c), c.ID)
	if len(cs) == 1 && cs[0].Path == nil {
		return &cs[0]
	}
	return nil
}

// value returns a column's value (nil for null), assembling non-frozen
// collections and UDTs from their element cells.
func (v *rowView) value(c *catalog.Column) []byte {
	if v.direct != nil {
		return v.direct[v.index[c]]
	}
	switch c.Kind {
	case catalog.PartitionKey:
		return v.pk[c.Position]
	case catalog.Clustering:
		if c.Position < len(v.ck) {
			return v.ck[c.Position]
		}
		return nil
	}
	if !c.Type.IsMultiCell() {
		if cell := v.cell(c); cell != nil {
			return cell.Value
		}
		return nil
	}
	return assemble(c.Type, findCells(v.rowOf(c), c.ID))
}

// assemble builds the serialized value of a multi-cell column from its
// element cells (in path order); no cells means null.
func assemble(t *types.Type, cells []backend.Cell) []byte {
	if len(cells) == 0 {
		return nil
	}
	switch t.Kind {
	case types.KindList:
		elems := make([][]byte, len(cells))
		for i := range cells {
			elems[i] = cells[i].Value
		}
		return types.EncodeCollection(elems)
	case types.KindSet:
		elems := make([][]byte, 0, len(cells))
		for i := range cells {
			if el, _, err := types.DecodeKey(t.Elems[0], cells[i].Path, false); err == nil {
				elems = append(elems, el)
			}
		}
		return types.EncodeCollection(elems)
	case types.KindMap:
		keys := make([][]byte, 0, len(cells))
		vals := make([][]byte, 0, len(cells))
		for i := range cells {
			if k, _, err := types.DecodeKey(t.Elems[0], cells[i].Path, false); err == nil {
				keys, vals = append(keys, k), append(vals, cells[i].Value)
			}
		}
		return types.EncodeMap(keys, vals)
	case types.KindUDT:
		fields := make([][]byte, len(t.Elems))
		for i := range cells {
			if len(cells[i].Path) != 2 {
				continue
			}
			idx := int(cells[i].Path[0])<<8 | int(cells[i].Path[1])
			if idx < len(fields) {
				fields[idx] = cells[i].Value
			}
		}
		return types.EncodeTuple(fields)
	}
	return nil
}
