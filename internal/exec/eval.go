package exec

import (
	"sort"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/plan"
	"github.com/partita-db/partita/internal/types"
)

// Value is a bound value: nil Bytes is null unless Unset is set.
type Value struct {
	Bytes []byte
	Unset bool
}

// evaluator computes term values for one execution.
type evaluator struct {
	values []Value
}

// eval returns the value of t; unset reports an unset bound value.
func (e *evaluator) eval(t *plan.Term) (v []byte, unset bool, err error) {
	switch t.Kind {
	case plan.TermConst:
		return t.Value, false, nil
	case plan.TermBind, plan.TermBindList:
		if t.Bind >= len(e.values) {
			return nil, false, cqlerr.Invalidf("There were %d markers(?) in CQL but %d bound variables", t.Bind+1, len(e.values))
		}
		bv := e.values[t.Bind]
		if bv.Unset {
			return nil, true, nil
		}
		return bv.Bytes, false, nil
	case plan.TermFunc:
		args := make([][]byte, len(t.Args))
		for i, a := range t.Args {
			v, unset, err := e.eval(a)
			if err != nil {
				return nil, false, err
			}
			if unset {
				return nil, false, cqlerr.Invalidf("Invalid unset value for argument in call to function %s", t.Func.Name)
			}
			args[i] = v
		}
		out, err := t.Func.Call(args)
		return out, false, err
	case plan.TermList, plan.TermSet:
		return e.evalElems(t)
	case plan.TermMap:
		return e.evalMap(t)
	case plan.TermTuple, plan.TermUDT:
		parts := make([][]byte, len(t.Args))
		for i, a := range t.Args {
			if a == nil {
				continue
			}
			v, unset, err := e.eval(a)
			if err != nil {
				return nil, false, err
			}
			if unset && t.Kind == plan.TermUDT {
				// UserTypes.DelayedValue.
				return nil, false, cqlerr.Invalidf("Invalid unset value for field '%s' of user defined type %s", t.Type.FieldNames[i], t.Type.Name)
			}
			if unset {
				// Tuples.DelayedValue.
				return nil, false, cqlerr.Invalidf("Invalid unset value for tuple field number %d", i)
			}
			parts[i] = v
		}
		return types.EncodeTuple(parts), false, nil
	}
	return nil, false, cqlerr.Serverf("unknown term kind %d", t.Kind)
}

// evalValid evaluates t and validates a bound value against its type.
func (e *evaluator) evalValid(t *plan.Term) ([]byte, bool, error) {
	v, unset, err := e.eval(t)
	if err != nil || unset || v == nil {
		return v, unset, err
	}
	if t.Kind == plan.TermBind {
		if err := types.Validate(t.Type, v); err != nil {
			return nil, false, err
		}
	}
	return v, false, nil
}

func (e *evaluator) evalElems(t *plan.Term) ([]byte, bool, error) {
	elems := make([][]byte, 0, len(t.Args))
	for _, a := range t.Args {
		v, unset, err := e.evalValid(a)
		if err != nil {
			return nil, false, err
		}
		if unset {
			return nil, false, cqlerr.Invalidf("unset value is not supported inside collections")
		}
		if v == nil {
			return nil, false, cqlerr.Invalidf("null is not supported inside collections")
		}
		elems = append(elems, v)
	}
	if t.Kind == plan.TermSet {
		elems = sortedUnique(t.Type.Elems[0], elems)
	}
	return types.EncodeCollection(elems), false, nil
}

func sortedUnique(t *types.Type, elems [][]byte) [][]byte {
	sort.SliceStable(elems, func(i, j int) bool { return types.Compare(t, elems[i], elems[j]) < 0 })
	out := elems[:0]
	for i, el := range elems {
		if i > 0 && types.Compare(t, out[len(out)-1], el) == 0 {
			continue
		}
		out = append(out, el)
	}
	return out
}

func (e *evaluator) evalMap(t *plan.Term) ([]byte, bool, error) {
	type entry struct{ k, v []byte }
	var entries []entry
	for i := 0; i+1 < len(t.Args); i += 2 {
		k, unsetK, err := e.evalValid(t.Args[i])
		if err != nil {
			return nil, false, err
		}
		v, unsetV, err := e.evalValid(t.Args[i+1])
		if err != nil {
			return nil, false, err
		}
		if unsetK || unsetV {
			return nil, false, cqlerr.Invalidf("unset value is not supported inside collections")
		}
		if k == nil || v == nil {
			return nil, false, cqlerr.Invalidf("null is not supported inside collections")
		}
		entries = append(entries, entry{k, v})
	}
	kt := t.Type.Elems[0]
	sort.SliceStable(entries, func(i, j int) bool { return types.Compare(kt, entries[i].k, entries[j].k) < 0 })
	var keys, vals [][]byte
	for _, en := range entries {
		if n := len(keys); n > 0 && types.Compare(kt, keys[n-1], en.k) == 0 {
			vals[n-1] = en.v // the later entry wins
			continue
		}
		keys, vals = append(keys, en.k), append(vals, en.v)
	}
	return types.EncodeMap(keys, vals), false, nil
}

// keyValues evaluates the values restricting one key column (EQ, IN list
// or IN ?) and rejects null and unset as Cassandra does.
func (e *evaluator) keyValues(column string, terms []*plan.Term) ([][]byte, error) {
	var out [][]byte
	for _, t := range terms {
		v, unset, err := e.evalValid(t)
		if err != nil {
			return nil, err
		}
		if unset {
			return nil, cqlerr.Invalidf("Invalid unset value for column %s", column)
		}
		if t.Kind == plan.TermBindList {
			if v == nil {
				return nil, cqlerr.Invalidf("Invalid null value for IN restriction")
			}
			elems, err := types.DecodeCollection(v)
			if err != nil {
				return nil, err
			}
			for _, el := range elems {
				if err := types.Validate(t.Type, el); err != nil {
					return nil, err
				}
			}
			out = append(out, elems...)
			continue
		}
		if v == nil {
			return nil, cqlerr.Invalidf("Invalid null value in condition for column %s", column)
		}
		out = append(out, v)
	}
	return out, nil
}
