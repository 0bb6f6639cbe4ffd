package exec

import (
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/functions"
	"github.com/partita-db/partita/internal/plan"
)

// nestedAcc computes a selector that applies scalar functions, operators,
// casts or subscripts to aggregates: `max(v) + 1`, `count(*) * 2`,
// `cast(max(v) as text)`, `v + max(v)`. Each aggregate inside accumulates
// every row of the group; each part that aggregates nothing takes the
// group's first row (as Cassandra's SimpleSelector keeps its first input);
// the result applies the outer selectors to those values
// (AbstractFunctionSelector over AggregateFunctionSelector).
type nestedAcc struct {
	s     *plan.Selector
	ev    *evaluator
	accs  map[*plan.Selector]accumulator
	first map[*plan.Selector][]byte
	seen  bool
}

// rowAccumulator is an accumulator that reads whole rows.
type rowAccumulator interface {
	accumulator
	addRow(ev *evaluator, v *rowView) error
}

func newNestedAcc(s *plan.Selector, ev *evaluator) *nestedAcc {
	n := &nestedAcc{s: s, ev: ev, accs: map[*plan.Selector]accumulator{}, first: map[*plan.Selector][]byte{}}
	n.collect(s)
	return n
}

// collect finds the aggregates of s.
func (n *nestedAcc) collect(s *plan.Selector) {
	if s.Kind == plan.SelCountRows || s.Kind == plan.SelAggregate {
		n.accs[s] = newAccumulator(s)
		return
	}
	for _, a := range s.Args {
		if a.IsAggregate() {
			n.collect(a)
		}
	}
}

// add is unused: a nestedAcc reads rows (addRow).
func (n *nestedAcc) add([]byte) error { return nil }

func (n *nestedAcc) addRow(ev *evaluator, v *rowView) error {
	for s, acc := range n.accs {
		var val []byte
		if s.Kind == plan.SelAggregate {
			var err error
			if val, err = ev.selectValue(s.Args[0], v); err != nil {
				return err
			}
		}
		if err := acc.add(val); err != nil {
			return err
		}
	}
	if n.seen {
		return nil
	}
	n.seen = true
	return n.keepFirst(ev, n.s, v)
}

// keepFirst records the first row's values of the parts of s that do not
// aggregate.
func (n *nestedAcc) keepFirst(ev *evaluator, s *plan.Selector, v *rowView) error {
	if !s.IsAggregate() {
		val, err := ev.selectValue(s, v)
		n.first[s] = val
		return err
	}
	for _, a := range s.Args {
		if err := n.keepFirst(ev, a, v); err != nil {
			return err
		}
	}
	return nil
}

func (n *nestedAcc) result() ([]byte, error) { return n.eval(n.s) }

func (n *nestedAcc) eval(s *plan.Selector) ([]byte, error) {
	if acc, ok := n.accs[s]; ok {
		return acc.result()
	}
	if !s.IsAggregate() {
		if !n.seen && !readsRow(s) {
			// Without rows, constants still have their values:
			// count(*) + 1 is 1 over an empty partition.
			return n.ev.selectValue(s, nil)
		}
		return n.first[s], nil
	}
	args := make([][]byte, len(s.Args))
	for i, a := range s.Args {
		val, err := n.eval(a)
		if err != nil {
			return nil, err
		}
		args[i] = val
	}
	switch s.Kind {
	case plan.SelFunc:
		return s.Func.Call(args)
	case plan.SelCast:
		return functions.Cast(s.Args[0].Type, s.Type, args[0])
	case plan.SelField:
		return fieldOf(s, args[0])
	case plan.SelElement:
		return n.ev.elementOf(s, args[0])
	case plan.SelSlice:
		return n.ev.sliceOf(s, args[0])
	}
	return nil, cqlerr.Serverf("selector kind %d over an aggregate", s.Kind)
}

// readsRow reports whether s reads anything from a row (else it is made
// of constants).
func readsRow(s *plan.Selector) bool {
	switch s.Kind {
	case plan.SelConst:
		return false
	case plan.SelFunc, plan.SelCast:
		for _, a := range s.Args {
			if readsRow(a) {
				return true
			}
		}
		return false
	}
	return true
}
