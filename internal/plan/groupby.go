package plan

import (
	"strings"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
)

// planGroupByFunction prepares the function that may end a GROUP BY clause
// (GROUP BY pk, floor(ts, 1h)): its only column is a clustering column and
// it never decreases as that column grows, so rows in clustering order stay
// in group order (SelectStatement.getAggregationSpecFactory,
// Selector.validateForGroupBy). It returns the selector and its column.
func (p *planner) planGroupByFunction(t *catalog.Table, e *ast.FunctionCall) (*Selector, *catalog.Column, error) {
	name := strings.ToLower(e.Name)
	if aggregateNames[name] && len(e.Args) == 1 {
		return nil, nil, cqlerr.Invalidf("Aggregate functions are not supported within the GROUP BY clause, got: system.%s", name)
	}
	sel, err := p.binder.prepareSelector(t, e, map[*catalog.Column]bool{})
	if err != nil {
		return nil, nil, err
	}
	var cols []*catalog.Column
	selectorColumns(t, sel, &cols)
	switch {
	case len(cols) == 0:
		return nil, nil, cqlerr.Invalidf("GROUP BY functions must have one clustering column name as parameter")
	case len(cols) > 1:
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = c.Name
		}
		return nil, nil, cqlerr.Invalidf("GROUP BY functions accept only one clustering column as parameter, got: %s", strings.Join(names, ","))
	case cols[0].Kind != catalog.Clustering:
		return nil, nil, cqlerr.Invalidf("Group by functions are only supported on clustering columns, got %s", cols[0].Name)
	}
	if err := validateForGroupBy(sel); err != nil {
		return nil, nil, err
	}
	return sel, cols[0], nil
}

// selectorColumns appends the columns a selector reads, each once, in the
// order they appear.
func selectorColumns(t *catalog.Table, s *Selector, cols *[]*catalog.Column) {
	add := func(c *catalog.Column) {
		for _, have := range *cols {
			if have == c {
				return
			}
		}
		*cols = append(*cols, c)
	}
	switch s.Kind {
	case SelColumn, SelWriteTime, SelTTL:
		add(s.Column)
	case SelToken:
		for _, c := range t.PartitionKey {
			add(c)
		}
	}
	for _, a := range s.Args {
		selectorColumns(t, a, cols)
	}
}

// validateForGroupBy is Selector.validateForGroupBy: columns, and scalar
// functions monotonic in their column arguments once the constant ones are
// applied (PartialScalarFunction).
func validateForGroupBy(s *Selector) error {
	switch s.Kind {
	case SelColumn, SelConst:
		return nil
	case SelFunc:
		f := s.Func
		monotonic := f.Monotonic
		if f.MonotonicFirstArg {
			monotonic = s.Args[0].Kind != SelConst
			for _, a := range s.Args[1:] {
				monotonic = monotonic && a.Kind == SelConst
			}
		}
		if !monotonic {
			return cqlerr.Invalidf("Only monotonic functions are supported in the GROUP BY clause. Got: %s ", partialSignature(s))
		}
		for _, a := range s.Args {
			if err := validateForGroupBy(a); err != nil {
				return err
			}
		}
		return nil
	}
	return cqlerr.Invalidf("Only column names and monotonic scalar functions are supported in the GROUP BY clause.")
}

// partialSignature is how Cassandra prints a function with its constant
// arguments applied: system.floor : (timestamp, duration(constant)) -> timestamp.
func partialSignature(s *Selector) string {
	args := make([]string, len(s.Args))
	for i, a := range s.Args {
		args[i] = s.Func.Args[i].String()
		if a.Kind == SelConst {
			args[i] += "(constant)"
		}
	}
	return "system." + s.Func.Name + " : (" + strings.Join(args, ", ") + ") -> " + s.Func.Return.String()
}
