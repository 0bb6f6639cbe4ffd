package exec

import (
	"math"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/plan"
	"github.com/partita-db/partita/internal/types"
)

// Element and slice selections (cql3/selection/ElementsSelector.java) and
// WRITETIME, MAXWRITETIME and TTL of what they select
// (WritetimeOrTTLSelector.java, ColumnTimestamps.java).

// subscript evaluates the key of an element selection: null and unset are
// refused, naming the selected collection.
func (e *evaluator) subscript(s *plan.Selector) ([]byte, error) {
	v, unset, err := e.evalValid(s.Term)
	switch {
	case err != nil:
		return nil, err
	case unset:
		return nil, cqlerr.Invalidf("Invalid unset value for element selection on %s", s.Args[0].Name)
	case v == nil:
		return nil, cqlerr.Invalidf("Invalid null value for element selection on %s", s.Args[0].Name)
	}
	return v, nil
}

// sliceBounds evaluates the bounds of a slice selection; nil is an open
// bound, which an unset value also gives (ElementsSelector.newSliceFactory
// uses UNSET for "no bound"), while null is refused.
func (e *evaluator) sliceBounds(s *plan.Selector) (from, to []byte, err error) {
	bound := func(t *plan.Term) ([]byte, error) {
		if t == nil {
			return nil, nil
		}
		v, unset, err := e.evalValid(t)
		switch {
		case err != nil || unset:
			return nil, err
		case v == nil:
			return nil, cqlerr.Invalidf("Invalid null value for slice selection on %s", s.Args[0].Name)
		}
		return v, nil
	}
	if from, err = bound(s.Term); err != nil {
		return nil, nil, err
	}
	to, err = bound(s.SliceTo)
	return from, to, err
}

// checkSubscripts evaluates every subscript of a selection once, so a null
// or unset key fails the query even when no row is read, as Cassandra
// fails it when it builds its selectors.
func (e *evaluator) checkSubscripts(sels []*plan.Selector) error {
	for _, s := range sels {
		switch s.Kind {
		case plan.SelElement:
			if _, err := e.subscript(s); err != nil {
				return err
			}
		case plan.SelSlice:
			if _, _, err := e.sliceBounds(s); err != nil {
				return err
			}
		}
		if err := e.checkSubscripts(s.Args); err != nil {
			return err
		}
	}
	return nil
}

// collectionKeys returns the keys of a serialized map, or the elements of
// a set, with the map's values.
func collectionKeys(t *types.Type, v []byte) (keys, vals [][]byte, err error) {
	if t.Kind == types.KindMap {
		return types.DecodeMap(v)
	}
	keys, err = types.DecodeCollection(v)
	return keys, nil, err
}

// elementIndex is the position of key among the keys (-1 if absent).
func elementIndex(t *types.Type, keys [][]byte, key []byte) int {
	for i, k := range keys {
		if types.Compare(t, k, key) == 0 {
			return i
		}
	}
	return -1
}

// sliceRange is CollectionSerializer.getIndexesRangeFromSerialized: the
// half-open range of the keys from from to to (nil: open), both included.
func sliceRange(t *types.Type, keys [][]byte, from, to []byte) (lo, hi int) {
	lo = 0
	if from != nil {
		lo = len(keys)
		for i, k := range keys {
			if types.Compare(t, from, k) <= 0 {
				lo = i
				break
			}
		}
	}
	hi = len(keys)
	if to != nil {
		for i := lo; i < len(keys); i++ {
			if types.Compare(t, keys[i], to) > 0 {
				hi = i
				break
			}
		}
	}
	return lo, max(lo, hi)
}

// selectElement is ElementSelector: the value of a map's key, or a set's
// element, null if absent.
func (e *evaluator) selectElement(s *plan.Selector, v *rowView) ([]byte, error) {
	coll, err := e.selectValue(s.Args[0], v)
	if err != nil {
		return nil, err
	}
	return e.elementOf(s, coll)
}

// elementOf selects the element of s from the collection coll.
func (e *evaluator) elementOf(s *plan.Selector, coll []byte) ([]byte, error) {
	key, err := e.subscript(s)
	if err != nil || coll == nil {
		return nil, err
	}
	ct := s.Args[0].Type
	keys, vals, err := collectionKeys(ct, coll)
	if err != nil {
		return nil, err
	}
	i := elementIndex(ct.Elems[0], keys, key)
	switch {
	case i < 0:
		return nil, nil
	case vals != nil:
		return vals[i], nil
	}
	return keys[i], nil
}

// selectSlice is SliceSelector: the elements between the bounds. An empty
// slice of a non-frozen collection is null, as such a collection never is
// empty; of a frozen one it is the empty collection.
func (e *evaluator) selectSlice(s *plan.Selector, v *rowView) ([]byte, error) {
	coll, err := e.selectValue(s.Args[0], v)
	if err != nil {
		return nil, err
	}
	return e.sliceOf(s, coll)
}

// sliceOf selects the slice of s from the collection coll.
func (e *evaluator) sliceOf(s *plan.Selector, coll []byte) ([]byte, error) {
	from, to, err := e.sliceBounds(s)
	if err != nil || coll == nil || from == nil && to == nil {
		return coll, err
	}
	ct := s.Args[0].Type
	keys, vals, err := collectionKeys(ct, coll)
	if err != nil {
		return nil, err
	}
	lo, hi := sliceRange(ct.Elems[0], keys, from, to)
	if lo == hi && ct.IsMultiCell() {
		return nil, nil
	}
	if vals != nil {
		return types.EncodeMap(keys[lo:hi], vals[lo:hi]), nil
	}
	return types.EncodeCollection(keys[lo:hi]), nil
}

// cellTimes is ColumnTimestamps: no timestamp, one (a simple or frozen
// value and what is selected inside it), or one per cell (a non-frozen
// collection, or UDT with an entry per field). noTime marks a missing one.
type cellTimes struct {
	none   bool
	multi  bool
	single int64
	list   []int64
}

var noTimes = cellTimes{none: true}

// noTime is ColumnTimestamps' "no timestamp" for writetimes (Long.MIN_VALUE)
// and TTLs (-1).
func noTime(ttl bool) int64 {
	if ttl {
		return -1
	}
	return math.MinInt64
}

// cellTime is the writetime of a cell, or its remaining TTL (none for a
// cell without TTL).
func cellTime(c *backend.Cell, ttl bool, now int64) int64 {
	if !ttl {
		return c.Timestamp
	}
	if !c.IsExpiring() || c.LocalDeletionTime-now < 0 {
		return -1
	}
	return c.LocalDeletionTime - now
}

func (c cellTimes) get(i int) cellTimes {
	switch {
	case c.none || !c.multi:
		return c // the elements of a frozen value share its time
	case i >= len(c.list):
		return noTimes
	}
	return cellTimes{single: c.list[i]}
}

func (c cellTimes) slice(lo, hi int) cellTimes {
	switch {
	case c.none:
		return c
	case lo >= hi:
		return noTimes
	case !c.multi:
		return c
	}
	return cellTimes{multi: true, list: c.list[min(lo, len(c.list)):min(hi, len(c.list))]}
}

func (c cellTimes) max() cellTimes {
	if c.none || !c.multi {
		return c
	}
	if len(c.list) == 0 {
		return noTimes
	}
	m := c.list[0]
	for _, t := range c.list[1:] {
		m = max(m, t)
	}
	return cellTimes{single: m}
}

// encode serializes the times as bigint writetimes or int TTLs: a list for
// several cells (a missing time is a null element), null for none.
func (c cellTimes) encode(ttl bool) ([]byte, error) {
	one := func(t int64) ([]byte, error) {
		switch {
		case t == noTime(ttl):
			return nil, nil
		case ttl:
			return types.EncodeInt(types.Int, t)
		}
		return types.EncodeInt(types.Bigint, t)
	}
	switch {
	case c.none:
		return nil, nil
	case !c.multi:
		return one(c.single)
	case len(c.list) == 0:
		return nil, nil
	}
	elems := make([][]byte, len(c.list))
	for i, t := range c.list {
		b, err := one(t)
		if err != nil {
			return nil, err
		}
		elems[i] = b
	}
	return types.EncodeCollection(elems), nil
}

// columnTimes collects a column's cell times (Selector.InputRow.add): one
// per collection element, one per UDT field (missing fields have none).
func columnTimes(s *plan.Selector, v *rowView, ttl bool) cellTimes {
	c := s.Column
	if !c.Type.IsMultiCell() {
		if cell := v.cell(c); cell != nil {
			return cellTimes{single: cellTime(cell, ttl, v.now)}
		}
		return cellTimes{single: noTime(ttl)}
	}
	cells := findCells(v.rowOf(c), c.ID)
	if len(cells) == 0 {
		return cellTimes{multi: true}
	}
	if c.Type.Kind != types.KindUDT {
		list := make([]int64, len(cells))
		for i := range cells {
			list[i] = cellTime(&cells[i], ttl, v.now)
		}
		return cellTimes{multi: true, list: list}
	}
	list := make([]int64, len(c.Type.Elems))
	for i := range list {
		list[i] = noTime(ttl)
	}
	for i := range cells {
		if p := cells[i].Path; len(p) == 2 {
			if field := int(p[0])<<8 | int(p[1]); field < len(list) {
				list[field] = cellTime(&cells[i], ttl, v.now)
			}
		}
	}
	return cellTimes{multi: true, list: list}
}

// timesOf computes the cell times of what a selector selects
// (Selector.getWritetimes / getTTLs of each selector kind).
func (e *evaluator) timesOf(s *plan.Selector, v *rowView, ttl bool) (cellTimes, error) {
	switch s.Kind {
	case plan.SelColumn:
		return columnTimes(s, v, ttl), nil
	case plan.SelField, plan.SelElement, plan.SelSlice:
	default:
		return noTimes, nil
	}
	inner := s.Args[0]
	if s.Kind == plan.SelField {
		// FieldSelector: none for a null field, else the field's time.
		if field, err := e.selectValue(s, v); err != nil || field == nil {
			return noTimes, err
		}
		times, err := e.timesOf(inner, v, ttl)
		return times.get(s.Field), err
	}
	out, err := e.selectValue(inner, v)
	if err != nil || out == nil {
		return noTimes, err
	}
	times, err := e.timesOf(inner, v, ttl)
	if err != nil {
		return noTimes, err
	}
	keys, _, err := collectionKeys(inner.Type, out)
	if err != nil {
		return noTimes, err
	}
	kt := inner.Type.Elems[0]
	if s.Kind == plan.SelElement {
		key, err := e.subscript(s)
		if err != nil {
			return noTimes, err
		}
		i := elementIndex(kt, keys, key)
		if i < 0 {
			return noTimes, nil
		}
		return times.get(i), nil
	}
	if len(keys) == 0 {
		return noTimes, nil // an empty frozen collection
	}
	from, to, err := e.sliceBounds(s)
	if err != nil {
		return noTimes, err
	}
	return times.slice(sliceRange(kt, keys, from, to)), nil
}

// selectTimes computes WRITETIME, MAXWRITETIME or TTL.
func (e *evaluator) selectTimes(s *plan.Selector, v *rowView) ([]byte, error) {
	ttl := s.Kind == plan.SelTTL
	times, err := e.timesOf(s.Args[0], v, ttl)
	if err != nil {
		return nil, err
	}
	if s.Kind == plan.SelMaxWriteTime {
		times = times.max()
	}
	return times.encode(ttl)
}
