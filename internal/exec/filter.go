package exec

import (
	"bytes"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/plan"
	"github.com/partita-db/partita/internal/types"
)

// compiledFilter is a filter restriction with its values evaluated once per
// execution.
type compiledFilter struct {
	r                     *plan.Restriction
	value                 [][]byte   // EQ / MapEQ value (tuple components for multi)
	values                [][][]byte // IN
	start                 [][]byte
	end                   [][]byte
	mapKey                []byte
	contains, containsKey [][]byte
	entryKeys, entryVals  [][]byte
}

// compileFilters evaluates row-filter restrictions (RowFilter expressions:
// a null value is "Unsupported", a null IN element matches nothing).
func (e *evaluator) compileFilters(rs []*plan.Restriction) ([]compiledFilter, error) {
	return e.compile(rs, e.filterTuples, e.filterBound)
}

// compileKeyFilters evaluates key restrictions applied as filters (rows that
// are not read by key, as system tables' are): values are checked as the
// key and slice restrictions they stand for.
func (e *evaluator) compileKeyFilters(rs []*plan.Restriction) ([]compiledFilter, error) {
	return e.compile(rs, e.clusteringTuples, e.boundValues)
}

func (e *evaluator) compile(rs []*plan.Restriction, tuples func(*plan.Restriction) ([][][]byte, error),
	bound func(*plan.Restriction, plan.Bound) ([][]byte, error)) ([]compiledFilter, error) {
	out := make([]compiledFilter, 0, len(rs))
	for _, r := range rs {
		f := compiledFilter{r: r}
		var err error
		switch r.Kind {
		case plan.RestrictEQ, plan.RestrictIN:
			var ts [][][]byte
			if ts, err = tuples(r); err == nil {
				if r.Kind == plan.RestrictEQ {
					f.value = ts[0]
				} else {
					f.values = ts
				}
			}
		case plan.RestrictSlice:
			if r.Start.Value != nil {
				f.start, err = bound(r, r.Start)
			}
			if err == nil && r.End.Value != nil {
				f.end, err = bound(r, r.End)
			}
		case plan.RestrictMapEQ:
			var v []byte
			if f.mapKey, v, err = e.mapEntry(plan.MapEntry{Key: r.MapKey, Value: r.Value}, r); err == nil {
				f.value = [][]byte{v}
			}
		case plan.RestrictContains:
			err = e.compileContains(&f)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func (e *evaluator) compileContains(f *compiledFilter) error {
	for _, t := range f.r.Contains {
		v, err := e.filterValue(t, f.r)
		if err != nil {
			return err
		}
		f.contains = append(f.contains, v)
	}
	for _, t := range f.r.ContainsKey {
		v, err := e.filterValue(t, f.r)
		if err != nil {
			return err
		}
		f.containsKey = append(f.containsKey, v)
	}
	for _, entry := range f.r.Entries {
		k, v, err := e.mapEntry(entry, f.r)
		if err != nil {
			return err
		}
		f.entryKeys, f.entryVals = append(f.entryKeys, k), append(f.entryVals, v)
	}
	return nil
}

// mapEntry evaluates the key and value of m[k] = v; RowFilter refuses a
// null key or value (SimpleExpression.validate, MAP_ELEMENT).
func (e *evaluator) mapEntry(entry plan.MapEntry, r *plan.Restriction) (key, value []byte, err error) {
	eval := func(t *plan.Term, what string) ([]byte, error) {
		v, unset, err := e.evalValid(t)
		switch {
		case err != nil:
			return nil, err
		case unset:
			return nil, cqlerr.Invalidf("Unsupported unset %s for column %s", what, r.Columns[0].Name)
		case v == nil:
			return nil, cqlerr.Invalidf("Unsupported null %s for column %s", what, r.Columns[0].Name)
		}
		return v, nil
	}
	if key, err = eval(entry.Key, "map key"); err != nil {
		return nil, nil, err
	}
	value, err = eval(entry.Value, "map value")
	return key, value, err
}

// filterTuples evaluates an EQ or IN row filter into the value tuples it
// allows. RowFilter refuses a null EQ value (SimpleExpression.validate);
// Cassandra 5.0 drops the null elements of an IN list, which match no row.
func (e *evaluator) filterTuples(r *plan.Restriction) ([][][]byte, error) {
	if r.Kind == plan.RestrictEQ {
		v, err := e.filterValue(r.Value, r)
		if err != nil {
			return nil, err
		}
		t, err := splitTuple(r.Multi, r.Columns, v)
		return [][][]byte{t}, err
	}
	var out [][][]byte
	for _, term := range r.Values {
		v, unset, err := e.evalValid(term)
		switch {
		case err != nil:
			return nil, err
		case unset:
			continue // dropped, as a null element is
		case term.Kind == plan.TermBindList && v == nil:
			return nil, cqlerr.Invalidf("Invalid null value for IN restriction")
		}
		elems := [][]byte{v}
		if term.Kind == plan.TermBindList {
			if elems, err = types.DecodeCollection(v); err != nil {
				return nil, err
			}
		}
		for _, el := range elems {
			if el == nil {
				continue
			}
			t, err := splitTuple(r.Multi, r.Columns, el)
			if err != nil {
				return nil, err
			}
			out = append(out, t)
		}
	}
	return out, nil
}

// filterBound evaluates a slice bound of a row filter.
func (e *evaluator) filterBound(r *plan.Restriction, b plan.Bound) ([][]byte, error) {
	v, err := e.filterValue(b.Value, r)
	if err != nil {
		return nil, err
	}
	return splitTuple(r.Multi, r.BoundColumns(b), v)
}

// splitTuple returns the values of a restriction's columns: the value
// itself, or a multi-column relation's tuple components.
func splitTuple(multi bool, cols []*catalog.Column, v []byte) ([][]byte, error) {
	if !multi {
		return [][]byte{v}, nil
	}
	parts, err := types.DecodeTuple(types.TupleOf(columnTypes(cols)...), v)
	if err != nil {
		return nil, err
	}
	if len(parts) != len(cols) {
		return nil, cqlerr.Invalidf("Expected %d elements in value tuple, but got %d", len(cols), len(parts))
	}
	for i, p := range parts {
		if p == nil {
			return nil, cqlerr.Invalidf("Unsupported null value for column %s", cols[i].Name)
		}
	}
	return parts, nil
}

func (e *evaluator) filterValue(t *plan.Term, r *plan.Restriction) ([]byte, error) {
	v, unset, err := e.evalValid(t)
	if err != nil {
		return nil, err
	}
	if unset {
		// RowFilter.SimpleExpression.validate.
		return nil, cqlerr.Invalidf("Unsupported unset value for column %s", r.Columns[0].Name)
	}
	if v == nil {
		return nil, cqlerr.Invalidf("Unsupported null value for column %s", r.Columns[0].Name)
	}
	return v, nil
}

// matches reports whether the row satisfies f.
func (f *compiledFilter) matches(v *rowView) bool {
	r := f.r
	vals := make([][]byte, len(r.Columns))
	for i, c := range r.Columns {
		vals[i] = v.value(c)
		if vals[i] == nil && r.Kind != plan.RestrictContains && r.Kind != plan.RestrictMapEQ {
			return false
		}
	}
	switch r.Kind {
	case plan.RestrictEQ:
		return compareTuple(r, vals, f.value) == 0
	case plan.RestrictIN:
		for _, tup := range f.values {
			if compareTuple(r, vals, tup) == 0 {
				return true
			}
		}
		return false
	case plan.RestrictSlice:
		if f.start != nil {
			c := compareTuple(r, vals, f.start)
			if c < 0 || (c == 0 && !r.Start.Inclusive) {
				return false
			}
		}
		if f.end != nil {
			c := compareTuple(r, vals, f.end)
			if c > 0 || (c == 0 && !r.End.Inclusive) {
				return false
			}
		}
		return true
	case plan.RestrictMapEQ:
		return mapGet(r.Columns[0].Type, vals[0], f.mapKey, f.value[0])
	case plan.RestrictContains:
		return f.collectionMatches(r.Columns[0].Type, vals[0])
	}
	return false
}

// compareTuple compares a row's values with restriction values,
// lexicographically over the restriction's columns.
func compareTuple(r *plan.Restriction, row, bound [][]byte) int {
	for i := range bound {
		if c := types.Compare(r.Columns[i].Type, row[i], bound[i]); c != 0 {
			return c
		}
	}
	return 0
}

func mapGet(t *types.Type, m, key, want []byte) bool {
	if m == nil {
		return false
	}
	keys, vals, err := types.DecodeMap(m)
	if err != nil {
		return false
	}
	for i, k := range keys {
		if types.Compare(t.Elems[0], k, key) == 0 {
			return types.Compare(t.Elems[1], vals[i], want) == 0
		}
	}
	return false
}

func (f *compiledFilter) collectionMatches(t *types.Type, v []byte) bool {
	if v == nil {
		return false
	}
	var keys, elems [][]byte
	var err error
	switch t.Kind {
	case types.KindMap:
		keys, elems, err = types.DecodeMap(v)
	default:
		elems, err = types.DecodeCollection(v)
	}
	if err != nil {
		return false
	}
	elemType := t.Elems[len(t.Elems)-1]
	for _, want := range f.contains {
		if !containsValue(elemType, elems, want) {
			return false
		}
	}
	for _, want := range f.containsKey {
		if !containsValue(t.Elems[0], keys, want) {
			return false
		}
	}
	for i := range f.entryKeys {
		if !mapGet(t, v, f.entryKeys[i], f.entryVals[i]) {
			return false
		}
	}
	return true
}

func containsValue(t *types.Type, elems [][]byte, want []byte) bool {
	for _, el := range elems {
		if bytes.Equal(el, want) || types.Compare(t, el, want) == 0 {
			return true
		}
	}
	return false
}
