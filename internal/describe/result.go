package describe

import (
	"sort"

	"github.com/partita-db/partita/internal/types"
)

// rangeOwnershipType is range_ownership's type: MapType(UTF8Type,
// ListType(UTF8Type, false), false) in DescribeStatement.cluster.
var rangeOwnershipType = types.MapOf(types.Text, types.ListOf(types.Text))

// ColumnTypes returns the CQL type of each column: text, except
// range_ownership.
func (r Result) ColumnTypes() []*types.Type {
	out := make([]*types.Type, len(r.Columns))
	for i, name := range r.Columns {
		out[i] = types.Text
		if name == "range_ownership" && r.RangeOwnership != nil {
			out[i] = rangeOwnershipType
		}
	}
	return out
}

// Values returns every row as serialized cells, one per column, as the
// native protocol carries them. range_ownership is a map serialized with
// its entries in key order, as MapType writes them.
func (r Result) Values() [][][]byte {
	out := make([][][]byte, len(r.Rows))
	for i, row := range r.Rows {
		cells := make([][]byte, 0, len(r.Columns))
		for _, v := range row {
			cells = append(cells, []byte(v))
		}
		if r.RangeOwnership != nil {
			cells = append(cells, encodeRangeOwnership(r.RangeOwnership))
		}
		out[i] = cells
	}
	return out
}

func encodeRangeOwnership(m map[string][]string) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys) // UTF8Type order: bytes
	ks := make([][]byte, len(keys))
	vs := make([][]byte, len(keys))
	for i, k := range keys {
		ks[i] = []byte(k)
		elems := make([][]byte, len(m[k]))
		for j, e := range m[k] {
			elems[j] = []byte(e)
		}
		vs[i] = types.EncodeCollection(elems)
	}
	return types.EncodeMap(ks, vs)
}
