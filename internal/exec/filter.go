package exec

import (
	"bytes"

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
}

func (e *evaluator) compileFilters(rs []*plan.Restriction) ([]compiledFilter, error) {
	out := make([]compiledFilter, 0, len(rs))
	for _, r := range rs {
		f := compiledFilter{r: r}
		var err error
		switch r.Kind {
		case plan.RestrictEQ, plan.RestrictIN:
			var tuples [][][]byte
			if tuples, err = e.clusteringTuples(r); err == nil {
				if r.Kind == plan.RestrictEQ {
					f.value = tuples[0]
				} else {
					f.values = tuples
				}
			}
		case plan.RestrictSlice:
			if r.Start.Value != nil {
				f.start, err = e.boundValues(r, r.Start)
			}
			if err == nil && r.End.Value != nil {
				f.end, err = e.boundValues(r, r.End)
			}
		case plan.RestrictMapEQ:
			if f.mapKey, err = e.filterValue(r.MapKey, r); err == nil {
				var v []byte
				v, err = e.filterValue(r.Value, r)
				f.value = [][]byte{v}
			}
		case plan.RestrictContains:
			for _, t := range r.Contains {
				var v []byte
				if v, err = e.filterValue(t, r); err != nil {
					break
				}
				f.contains = append(f.contains, v)
			}
			for _, t := range r.ContainsKey {
				var v []byte
				if v, err = e.filterValue(t, r); err != nil {
					break
				}
				f.containsKey = append(f.containsKey, v)
			}
		}
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func (e *evaluator) filterValue(t *plan.Term, r *plan.Restriction) ([]byte, error) {
	v, unset, err := e.evalValid(t)
	if err != nil {
		return nil, err
	}
	if unset {
		return nil, cqlerr.Invalidf("Invalid unset value for column %s", r.Columns[0].Name)
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
