package exec

import (
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/functions"
	"github.com/partita-db/partita/internal/plan"
	"github.com/partita-db/partita/internal/token"
	"github.com/partita-db/partita/internal/types"
)

// selectValue computes a non-aggregate selector on a row.
func (e *evaluator) selectValue(s *plan.Selector, v *rowView) ([]byte, error) {
	switch s.Kind {
	case plan.SelColumn:
		return v.value(s.Column), nil
	case plan.SelWriteTime, plan.SelMaxWriteTime, plan.SelTTL:
		return e.selectTimes(s, v)
	case plan.SelElement:
		return e.selectElement(s, v)
	case plan.SelSlice:
		return e.selectSlice(s, v)
	case plan.SelConst:
		val, _, err := e.eval(s.Term)
		return val, err
	case plan.SelToken:
		return types.EncodeInt(types.Bigint, int64(token.Of(v.pkKey)))
	case plan.SelFunc:
		args := make([][]byte, len(s.Args))
		for i, a := range s.Args {
			if a.Kind == plan.SelConst {
				val, unset, err := e.eval(a.Term)
				if err != nil {
					return nil, err
				}
				if unset {
					return nil, cqlerr.Invalidf("Invalid unset value for argument in call to function %s", s.Func.Name)
				}
				args[i] = val
				continue
			}
			val, err := e.selectValue(a, v)
			if err != nil {
				return nil, err
			}
			args[i] = val
		}
		return s.Func.Call(args)
	case plan.SelCast:
		val, err := e.selectValue(s.Args[0], v)
		if err != nil {
			return nil, err
		}
		return functions.Cast(s.Args[0].Type, s.Type, val)
	case plan.SelField:
		val, err := e.selectValue(s.Args[0], v)
		if err != nil {
			return nil, err
		}
		return fieldOf(s, val)
	}
	return nil, cqlerr.Serverf("selector kind %d outside an aggregation", s.Kind)
}

// fieldOf selects the field of s from the UDT value val.
func fieldOf(s *plan.Selector, val []byte) ([]byte, error) {
	if val == nil {
		return nil, nil
	}
	fields, err := types.DecodeTuple(s.Args[0].Type, val)
	if err != nil {
		return nil, err
	}
	if s.Field < len(fields) {
		return fields[s.Field], nil
	}
	return nil, nil
}
