package exec

import (
	"context"
	"math"
	"math/big"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/plan"
	"github.com/partita-db/partita/internal/systables"
	"github.com/partita-db/partita/internal/types"
)

// aggregation collects every selected row of a query that cannot stream
// its output: aggregates (one row, or one per GROUP BY group) and IN
// queries sorted by ORDER BY after reading.
type aggregation struct {
	p        *plan.Select
	groupKey [][]byte
	inGroup  bool
	accs     []accumulator
	first    [][]byte
	rows     [][][]byte
	keys     [][][]byte
	// position of the last row added to the current group
	lastPartition, lastClustering []byte
}

func newAggregation(p *plan.Select) *aggregation {
	return &aggregation{p: p}
}

func (a *aggregation) aggregating() bool { return a.p.Selection.Aggregate }

func (a *aggregation) add(r *selectRun, v *rowView) error {
	if !a.aggregating() {
		row, err := r.project(v)
		if err != nil {
			return err
		}
		a.rows = append(a.rows, row)
		a.keys = append(a.keys, v.ck)
		return nil
	}
	if a.p.GroupBy {
		key := groupKey(v, a.p.GroupByClustering)
		if a.inGroup && !sameGroup(a.p.Table, a.groupKey, key) {
			if err := a.closeGroup(r); err != nil {
				return err
			}
			// GROUP BY pages and limits count groups: stop before the next
			// group starts, after the last row of the closed one.
			r.lastPartition, r.lastClustering = a.lastPartition, a.lastClustering
			r.lastPartRemaining = -1
			if r.remaining > 0 {
				r.remaining--
				if r.remaining == 0 {
					r.done = true
					return nil
				}
			}
			if r.pageSize > 0 && len(a.rows) >= r.pageSize {
				r.hasMore, r.done = true, true
				return nil
			}
		}
		a.groupKey = key
		a.lastPartition = append(a.lastPartition[:0], v.pkKey...)
		a.lastClustering = append(a.lastClustering[:0], v.ckKey...)
		if v.ckKey == nil {
			a.lastClustering = nil
		}
	}
	if !a.inGroup {
		a.inGroup = true
		a.accs = make([]accumulator, len(a.p.Selection.Visible()))
		a.first = make([][]byte, len(a.accs))
		for i, s := range a.p.Selection.Visible() {
			a.accs[i] = newAccumulator(s)
			if !s.IsAggregate() {
				val, err := r.ev.selectValue(s, v)
				if err != nil {
					return err
				}
				a.first[i] = val
			}
		}
	}
	for i, s := range a.p.Selection.Visible() {
		if a.accs[i] == nil {
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

func (a *aggregation) closeGroup(r *selectRun) error {
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

func groupKey(v *rowView, clustering int) [][]byte {
	key := append([][]byte(nil), v.pk...)
	for i := 0; i < clustering && i < len(v.ck); i++ {
		key = append(key, v.ck[i])
	}
	return key
}

func sameGroup(t *catalog.Table, a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		typ := t.PartitionKey[0].Type
		if i < len(t.PartitionKey) {
			typ = t.PartitionKey[i].Type
		} else {
			typ = t.Clustering[i-len(t.PartitionKey)].Type
		}
		if types.Compare(typ, a[i], b[i]) != 0 {
			return false
		}
	}
	return true
}

// result returns the aggregated rows with LIMIT applied.
func (a *aggregation) result(r *selectRun) ([][][]byte, error) {
	if a.aggregating() {
		if a.inGroup {
			if err := a.closeGroup(r); err != nil {
				return nil, err
			}
		}
		if len(a.rows) == 0 && !a.p.GroupBy {
			// Without GROUP BY an aggregate always returns one row.
			a.accs = make([]accumulator, len(a.p.Selection.Visible()))
			a.first = make([][]byte, len(a.accs))
			for i, s := range a.p.Selection.Visible() {
				a.accs[i] = newAccumulator(s)
			}
			if err := a.closeGroup(r); err != nil {
				return nil, err
			}
		}
	} else if len(a.p.PostOrder) > 0 {
		sortRows(a.p, a.rows, a.keys)
	}
	if a.p.GroupBy {
		return a.rows, nil // LIMIT counted groups as they closed
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
		return nil
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
