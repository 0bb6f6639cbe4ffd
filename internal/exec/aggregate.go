package exec

import (
	"context"
	"math"
	"math/big"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/functions"
	"github.com/partita-db/partita/internal/plan"
	"github.com/partita-db/partita/internal/systables"
	"github.com/partita-db/partita/internal/types"
)

// aggregation collects the rows of a query that cannot stream its output
// row by row: aggregates (one row, or one per GROUP BY group), GROUP BY
// without aggregates (each group's first row) and IN queries sorted by ORDER
// BY after reading.
type aggregation struct {
	p *plan.Select
	// The open group: its key, its accumulators and the values of its
	// first row for the selectors that do not aggregate.
	inGroup  bool
	groupKey [][]byte
	accs     []accumulator
	first    [][]byte
	// rows are the output rows so far; keys are the clustering values each
	// was built from (a group's first row), for post-ordering.
	rows  [][][]byte
	keys  [][][]byte
	group groupState
}

func newAggregation(r *selectRun) *aggregation {
	a := &aggregation{p: r.p, group: groupState{postLimit: -1}}
	if r.p.GroupBy && len(r.p.PostOrder) > 0 {
		// Post-ordered groups are read without LIMIT, sorted, then trimmed
		// (SelectStatement.getDataLimits: no row limit when the results
		// need post-query ordering; process then trims to the user limit).
		a.group.postLimit, r.remaining = r.remaining, -1
	}
	return a
}

func (a *aggregation) aggregating() bool { return a.p.Selection.Aggregate }

func (a *aggregation) add(r *selectRun, v *rowView) error {
	switch {
	case a.p.GroupBy:
		return a.addGrouped(r, v)
	case a.aggregating():
		if !a.inGroup {
			if err := a.openGroup(r, v); err != nil {
				return err
			}
		}
		return a.accumulate(r, v)
	}
	row, err := r.project(v)
	if err != nil {
		return err
	}
	a.rows = append(a.rows, row)
	a.keys = append(a.keys, v.ck)
	return nil
}

// openGroup starts a group at its first row (nil for the empty input of an
// aggregate without GROUP BY): non-aggregate selectors keep this row's
// values, as Cassandra's SimpleSelector keeps its first input.
func (a *aggregation) openGroup(r *selectRun, v *rowView) error {
	sels := a.p.Selection.Visible()
	a.inGroup = true
	a.accs = make([]accumulator, len(sels))
	a.first = make([][]byte, len(sels))
	for i, s := range sels {
		a.accs[i] = newAccumulator(s)
		if a.accs[i] == nil && s.IsAggregate() {
			a.accs[i] = newNestedAcc(s, r.ev) // functions of aggregates
		}
		if v != nil && !s.IsAggregate() {
			val, err := r.ev.selectValue(s, v)
			if err != nil {
				return err
			}
			a.first[i] = val
		}
	}
	if v != nil && a.p.GroupBy {
		a.keys = append(a.keys, v.ck)
	}
	return nil
}

// accumulate adds a row of the open group to its aggregates.
func (a *aggregation) accumulate(r *selectRun, v *rowView) error {
	for i, s := range a.p.Selection.Visible() {
		if a.accs[i] == nil {
			continue
		}
		if ra, ok := a.accs[i].(rowAccumulator); ok {
			if err := ra.addRow(r.ev, v); err != nil {
				return err
			}
			continue
		}
		var val []byte
		if s.Kind == plan.SelAggregate {
			var err error
			if val, err = r.ev.selectValue(s.Args[0], v); err != nil {
				return err
			}
		}
		if err := a.accs[i].add(val); err != nil {
			return err
		}
	}
	return nil
}

func (a *aggregation) closeGroup() error {
	row := make([][]byte, len(a.accs))
	for i, acc := range a.accs {
		if acc == nil {
			row[i] = a.first[i]
			continue
		}
		v, err := acc.result()
		if err != nil {
			return err
		}
		row[i] = v
	}
	if a.p.Json {
		sels := a.p.Selection.Visible()
		ts := make([]*types.Type, len(sels))
		names := make([]string, len(sels))
		for i, s := range sels {
			ts[i], names[i] = s.Type, s.Name
		}
		row = [][]byte{[]byte(types.FormatJSONRow(names, ts, row))}
	}
	a.rows = append(a.rows, row)
	a.inGroup = false
	return nil
}

// result returns the aggregated rows with LIMIT applied.
func (a *aggregation) result(r *selectRun) ([][][]byte, error) {
	if a.inGroup {
		if err := a.closeGroup(); err != nil {
			return nil, err
		}
	}
	switch {
	case a.p.GroupBy:
		// LIMIT counted groups as they started, unless they are post-ordered.
		if len(a.p.PostOrder) > 0 {
			sortRows(a.p, a.rows, a.keys)
			if a.group.postLimit >= 0 && int64(len(a.rows)) > a.group.postLimit {
				a.rows = a.rows[:a.group.postLimit]
			}
		}
		return a.rows, nil
	case a.aggregating():
		if len(a.rows) == 0 {
			// Without GROUP BY an aggregate always returns one row.
			if err := a.openGroup(r, nil); err != nil {
				return nil, err
			}
			if err := a.closeGroup(); err != nil {
				return nil, err
			}
		}
	case len(a.p.PostOrder) > 0:
		sortRows(a.p, a.rows, a.keys)
	}
	limit, err := r.ev.limit(a.p.Limit)
	if err != nil {
		return nil, err
	}
	if limit >= 0 && int64(len(a.rows)) > limit {
		a.rows = a.rows[:limit]
	}
	return a.rows, nil
}

// accumulator computes one aggregate.
type accumulator interface {
	add(v []byte) error
	result() ([]byte, error)
}

func newAccumulator(s *plan.Selector) accumulator {
	switch s.Kind {
	case plan.SelCountRows:
		return &countAcc{rows: true}
	case plan.SelAggregate:
		switch s.Aggregate {
		case "count":
			return &countAcc{}
		case "min", "max":
			return &minMaxAcc{t: s.Args[0].Type, max: s.Aggregate == "max"}
		case "sum", "avg":
			return &sumAcc{t: s.Args[0].Type, out: s.Type, avg: s.Aggregate == "avg", sum: new(big.Rat)}
		}
	}
	return nil
}

type countAcc struct {
	rows bool
	n    int64
}

func (c *countAcc) add(v []byte) error {
	if c.rows || v != nil {
		c.n++
	}
	return nil
}
func (c *countAcc) result() ([]byte, error) { return types.EncodeInt(types.Bigint, c.n) }

type minMaxAcc struct {
	t   *types.Type
	max bool
	v   []byte
}

func (m *minMaxAcc) add(v []byte) error {
	if v == nil {
		return nil
	}
	if m.v == nil {
		m.v = v
		return nil
	}
	c := types.Compare(m.t, v, m.v)
	if (m.max && c > 0) || (!m.max && c < 0) {
		m.v = v
	}
	return nil
}
func (m *minMaxAcc) result() ([]byte, error) { return m.v, nil }

// sumAcc sums exactly and converts to the input type at the end (integer
// sums wrap as Java's do, integer averages truncate).
type sumAcc struct {
	t, out *types.Type
	avg    bool
	sum    *big.Rat
	fsum   float64
	n      int64
	// mean is a decimal average, kept as Cassandra keeps it.
	mean functions.DecimalMean
}

func (s *sumAcc) add(v []byte) error {
	if v == nil {
		return nil
	}
	s.n++
	switch s.t.Kind {
	case types.KindFloat, types.KindDouble:
		f, err := types.Float64(s.t, v)
		s.fsum += f
		return err
	case types.KindDecimal:
		unscaled, scale, err := types.DecodeDecimal(v)
		if err != nil {
			return err
		}
		r := new(big.Rat).SetInt(unscaled)
		if scale > 0 {
			r.Quo(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
		} else if scale < 0 {
			r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-scale)), nil)))
		}
		s.sum.Add(s.sum, r)
		return s.mean.Add(v)
	}
	n, err := types.BigInt(s.t, v)
	if err != nil {
		return err
	}
	s.sum.Add(s.sum, new(big.Rat).SetInt(n))
	return nil
}

func (s *sumAcc) result() ([]byte, error) {
	switch s.t.Kind {
	case types.KindFloat, types.KindDouble:
		f := s.fsum
		if s.avg {
			if s.n == 0 {
				f = 0
			} else {
				f /= float64(s.n)
			}
		}
		if s.t.Kind == types.KindFloat {
			return types.EncodeFloat(float32(f)), nil
		}
		return types.EncodeDouble(f), nil
	}
	if s.t.Kind == types.KindDecimal && s.avg {
		return s.mean.Result(), nil
	}
	total := new(big.Rat).Set(s.sum)
	if s.avg && s.n > 0 {
		total.Quo(total, new(big.Rat).SetInt64(s.n))
	}
	if s.t.Kind == types.KindDecimal {
		return types.ParseLiteral(types.Decimal, types.LitFloat, ratDecimal(total))
	}
	q := new(big.Int).Quo(total.Num(), total.Denom())
	if s.t.Kind == types.KindVarint {
		return types.EncodeBigInt(q), nil
	}
	out := s.out
	if out.Kind == types.KindCounter {
		out = types.Bigint
	}
	return types.EncodeInt(out, wrapInt(q, out))
}

func wrapInt(n *big.Int, t *types.Type) int64 {
	x := new(big.Int).And(n, new(big.Int).SetUint64(math.MaxUint64)).Uint64()
	switch t.Kind {
	case types.KindTinyint:
		return int64(int8(x))
	case types.KindSmallint:
		return int64(int16(x))
	case types.KindInt:
		return int64(int32(x))
	}
	return int64(x)
}

// ratDecimal prints a rational as a decimal with up to 34 significant
// digits (Java's MathContext.DECIMAL128 used by Cassandra's decimal avg).
func ratDecimal(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	s := r.FloatString(34)
	for len(s) > 0 && s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s += "0"
	}
	return s
}

// systablesRows generates a system table's rows.
func systablesRows(ctx context.Context, x *Executor, t *catalog.Table) ([][][]byte, error) {
	if x.env == nil {
		return nil, cqlerr.Serverf("system tables are not available")
	}
	return systables.Rows(ctx, x.env(), t)
}
