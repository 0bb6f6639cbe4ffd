package engine_test

import (
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"
)

// This file holds the random SELECT: its structure, its CQL text and the
// generator. Whether Cassandra accepts a query is decided separately
// (random_query_rules_test.go); the generator only leans towards queries it
// would accept.

// rqRelKind is the operator of a relation.
type rqRelKind int

const (
	relEQ rqRelKind = iota
	relIN
	relSlice
	relContains
	relToken // token(pk...) slice or EQ (lo == hi, both inclusive, eq set)
)

// rqBound is one end of a slice: a value tuple (one value for a single
// column, a prefix of cols for a multi-column slice) or a token.
type rqBound struct {
	vals []rqValue
	tok  int64
	incl bool
}

// rqRel is a restriction. cols has one column, several clustering columns
// (multi: a tuple relation) or, for relToken, the partition key.
type rqRel struct {
	kind    rqRelKind
	cols    []*rqColumn
	multi   bool
	vals    []rqValue   // EQ: one per column; CONTAINS: the element
	in      [][]rqValue // IN: one tuple per element
	lo      *rqBound
	hi      *rqBound
	eq      bool // relToken: token(...) = tok (lo)
	loFirst bool // render the start bound before the end bound
}

func (r *rqRel) first() *rqColumn { return r.cols[0] }

func (r *rqRel) isSlice() bool { return r.kind == relSlice }

// rqSel is a selector: a column, or an aggregate (count with a nil column
// is count(*)).
type rqSel struct {
	fn  string // "", "count", "max", "min", "sum"
	col *rqColumn
}

func (s rqSel) isAggregate() bool { return s.fn != "" }

func (s rqSel) typ() rqType {
	if s.fn == "count" {
		return rqBigint
	}
	return s.col.typ
}

func (s rqSel) cql() string {
	switch {
	case s.fn == "":
		return s.col.name
	case s.col == nil:
		return "count(*)"
	}
	return s.fn + "(" + s.col.name + ")"
}

// rqQuery is a generated SELECT.
type rqQuery struct {
	t              *rqTable
	distinct       bool
	star           bool
	sels           []rqSel
	rels           []*rqRel
	groupBy        []*rqColumn
	orderBy        []*rqColumn
	orderDesc      []bool
	limit, ppl     int
	allowFiltering bool
}

// selectors returns the result columns (SELECT * expands to every column).
func (q *rqQuery) selectors() []rqSel {
	if !q.star {
		return q.sels
	}
	var out []rqSel
	for _, c := range q.t.all() {
		out = append(out, rqSel{col: c})
	}
	return out
}

func (q *rqQuery) hasAggregate() bool {
	for _, s := range q.sels {
		if s.isAggregate() {
			return true
		}
	}
	return false
}

func (q *rqQuery) clone() *rqQuery {
	c := *q
	c.sels = append([]rqSel{}, q.sels...)
	c.rels = append([]*rqRel{}, q.rels...)
	c.groupBy = append([]*rqColumn{}, q.groupBy...)
	c.orderBy = append([]*rqColumn{}, q.orderBy...)
	c.orderDesc = append([]bool{}, q.orderDesc...)
	return &c
}

// cql renders the query.
func (q *rqQuery) cql() string {
	var b strings.Builder
	b.WriteString("SELECT ")
	if q.distinct {
		b.WriteString("DISTINCT ")
	}
	if q.star {
		b.WriteString("*")
	} else {
		parts := make([]string, len(q.sels))
		for i, s := range q.sels {
			parts[i] = s.cql()
		}
		b.WriteString(strings.Join(parts, ", "))
	}
	b.WriteString(" FROM " + q.t.name)
	var where []string
	for _, r := range q.rels {
		where = append(where, r.cql()...)
	}
	if len(where) > 0 {
		b.WriteString(" WHERE " + strings.Join(where, " AND "))
	}
	if len(q.groupBy) > 0 {
		names := make([]string, len(q.groupBy))
		for i, c := range q.groupBy {
			names[i] = c.name
		}
		b.WriteString(" GROUP BY " + strings.Join(names, ", "))
	}
	if len(q.orderBy) > 0 {
		parts := make([]string, len(q.orderBy))
		for i, c := range q.orderBy {
			parts[i] = c.name + map[bool]string{false: " ASC", true: " DESC"}[q.orderDesc[i]]
		}
		b.WriteString(" ORDER BY " + strings.Join(parts, ", "))
	}
	if q.ppl > 0 {
		b.WriteString(" PER PARTITION LIMIT " + strconv.Itoa(q.ppl))
	}
	if q.limit > 0 {
		b.WriteString(" LIMIT " + strconv.Itoa(q.limit))
	}
	if q.allowFiltering {
		b.WriteString(" ALLOW FILTERING")
	}
	return b.String()
}

func rqTuple(cols []*rqColumn, vals []rqValue) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = rqLiteral(cols[i].typ, v)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// cql renders a relation; a slice with both bounds is two relations.
func (r *rqRel) cql() []string {
	lhs := r.first().name
	if r.multi {
		names := make([]string, len(r.cols))
		for i, c := range r.cols {
			names[i] = c.name
		}
		lhs = "(" + strings.Join(names, ", ") + ")"
	}
	value := func(vals []rqValue) string {
		if r.multi {
			return rqTuple(r.cols, vals)
		}
		return rqLiteral(r.first().typ, vals[0])
	}
	switch r.kind {
	case relEQ:
		return []string{lhs + " = " + value(r.vals)}
	case relIN:
		parts := make([]string, len(r.in))
		for i, t := range r.in {
			parts[i] = value(t)
		}
		return []string{lhs + " IN (" + strings.Join(parts, ", ") + ")"}
	case relContains:
		return []string{lhs + " CONTAINS " + rqLiteral(rqInt, r.vals[0])}
	}
	if r.kind == relToken {
		names := make([]string, len(r.cols))
		for i, c := range r.cols {
			names[i] = c.name
		}
		lhs = "token(" + strings.Join(names, ", ") + ")"
		if r.eq {
			return []string{fmt.Sprintf("%s = %d", lhs, r.lo.tok)}
		}
	}
	bound := func(b *rqBound, start bool) string {
		op := map[[2]bool]string{{true, true}: ">=", {true, false}: ">", {false, true}: "<=", {false, false}: "<"}[[2]bool{start, b.incl}]
		if r.kind == relToken {
			return fmt.Sprintf("%s %s %d", lhs, op, b.tok)
		}
		if r.multi {
			names := make([]string, len(b.vals))
			for i := range b.vals {
				names[i] = r.cols[i].name
			}
			return fmt.Sprintf("(%s) %s %s", strings.Join(names, ", "), op, rqTuple(r.cols, b.vals))
		}
		return fmt.Sprintf("%s %s %s", lhs, op, value(b.vals))
	}
	var out []string
	if r.lo != nil {
		out = append(out, bound(r.lo, true))
	}
	if r.hi != nil {
		if r.loFirst {
			out = append(out, bound(r.hi, false))
		} else {
			out = append([]string{bound(r.hi, false)}, out...)
		}
	}
	return out
}

// rqGen draws queries against a table whose data is in m.
type rqGen struct {
	r       *rand.Rand
	t       *rqTable
	m       *rqModel
	indexed map[string]bool // columns with an index
}

func (g *rqGen) pick(c *rqColumn) rqValue {
	d := rqDomain(c, len(g.t.pk) == 1)
	if c.typ == rqSetInt {
		return int64(1 + g.r.Intn(3)) // a CONTAINS element
	}
	return d[g.r.Intn(len(d))]
}

func (g *rqGen) pickN(c *rqColumn, n int) [][]rqValue {
	out := make([][]rqValue, n)
	for i := range out {
		out[i] = []rqValue{g.pick(c)}
	}
	return out
}

// query draws one SELECT.
func (g *rqGen) query() *rqQuery {
	q := &rqQuery{t: g.t}
	g.pkRelations(q)
	g.clusteringRelations(q)
	g.nonKeyRelations(q)
	switch n := g.r.Intn(20); {
	case n < 4:
		q.star = true
	case n < 10:
		q.sels = g.columns()
	case n < 13:
		g.aggregates(q)
	case n < 17:
		g.groupBy(q)
	default:
		g.distinct(q)
	}
	if g.r.Intn(5) == 0 {
		g.orderBy(q)
	}
	if g.r.Intn(3) == 0 {
		q.limit = 1 + g.r.Intn(10)
	}
	if g.r.Intn(6) == 0 && !q.distinct {
		q.ppl = 1 + g.r.Intn(3)
	}
	q.allowFiltering = g.r.Intn(5) == 0
	g.r.Shuffle(len(q.rels), func(i, j int) { q.rels[i], q.rels[j] = q.rels[j], q.rels[i] })
	return q
}

// pkRelations: nothing, EQ/IN on every column, a token range, or (with
// filtering) EQ or slices on some columns.
func (g *rqGen) pkRelations(q *rqQuery) {
	switch n := g.r.Intn(10); {
	case n < 3:
	case n < 7:
		for _, c := range g.t.pk {
			if g.r.Intn(3) == 0 {
				q.rels = append(q.rels, &rqRel{kind: relIN, cols: []*rqColumn{c}, in: g.pickN(c, 1+g.r.Intn(3))})
			} else {
				q.rels = append(q.rels, &rqRel{kind: relEQ, cols: []*rqColumn{c}, vals: []rqValue{g.pick(c)}})
			}
		}
	case n < 9:
		q.rels = append(q.rels, g.tokenRelation())
	default:
		for _, c := range g.t.pk {
			switch g.r.Intn(3) {
			case 0:
				q.rels = append(q.rels, &rqRel{kind: relEQ, cols: []*rqColumn{c}, vals: []rqValue{g.pick(c)}})
			case 1:
				q.rels = append(q.rels, g.slice(c))
			}
		}
	}
}

// tokenRelation bounds token(pk) near the tokens of existing partitions.
func (g *rqGen) tokenRelation() *rqRel {
	var toks []int64
	for _, p := range g.m.parts {
		toks = append(toks, p.token)
	}
	tok := func() int64 {
		if len(toks) == 0 || g.r.Intn(4) == 0 {
			return g.r.Int63n(math.MaxInt64) - g.r.Int63n(math.MaxInt64) // never MinInt64
		}
		return toks[g.r.Intn(len(toks))] + int64(g.r.Intn(3)-1)
	}
	r := &rqRel{kind: relToken, cols: g.t.pk, loFirst: g.r.Intn(2) == 0}
	switch g.r.Intn(5) {
	case 0:
		r.eq = true
		r.lo = &rqBound{tok: tok(), incl: true}
		r.hi = r.lo
	case 1:
		r.lo = &rqBound{tok: tok(), incl: g.r.Intn(2) == 0}
	case 2:
		r.hi = &rqBound{tok: tok(), incl: g.r.Intn(2) == 0}
	default:
		r.lo = &rqBound{tok: tok(), incl: g.r.Intn(2) == 0}
		r.hi = &rqBound{tok: tok(), incl: g.r.Intn(2) == 0}
	}
	return r
}

// slice draws a single-column slice with one or two bounds.
func (g *rqGen) slice(c *rqColumn) *rqRel {
	r := &rqRel{kind: relSlice, cols: []*rqColumn{c}, loFirst: g.r.Intn(2) == 0}
	switch g.r.Intn(3) {
	case 0:
		r.lo = &rqBound{vals: []rqValue{g.pick(c)}, incl: g.r.Intn(2) == 0}
	case 1:
		r.hi = &rqBound{vals: []rqValue{g.pick(c)}, incl: g.r.Intn(2) == 0}
	default:
		r.lo = &rqBound{vals: []rqValue{g.pick(c)}, incl: g.r.Intn(2) == 0}
		r.hi = &rqBound{vals: []rqValue{g.pick(c)}, incl: g.r.Intn(2) == 0}
	}
	return r
}

// clusteringRelations: a prefix of EQ/IN with an optional final slice, a
// tuple relation after an EQ prefix, or relations on arbitrary columns
// (which need filtering).
func (g *rqGen) clusteringRelations(q *rqQuery) {
	ck := g.t.ck
	if len(ck) == 0 || g.r.Intn(3) == 0 {
		return
	}
	switch g.r.Intn(7) {
	case 0, 1, 2:
		n := 1 + g.r.Intn(len(ck))
		for i, c := range ck[:n] {
			if i == n-1 && g.r.Intn(2) == 0 {
				q.rels = append(q.rels, g.slice(c))
				break
			}
			q.rels = append(q.rels, g.eqOrIn(c))
		}
	case 3, 4:
		start := g.r.Intn(len(ck))
		for _, c := range ck[:start] {
			q.rels = append(q.rels, &rqRel{kind: relEQ, cols: []*rqColumn{c}, vals: []rqValue{g.pick(c)}})
		}
		q.rels = append(q.rels, g.tupleRelation(ck[start:]))
	default:
		for _, c := range ck {
			switch g.r.Intn(3) {
			case 0:
				q.rels = append(q.rels, g.eqOrIn(c))
			case 1:
				q.rels = append(q.rels, g.slice(c))
			}
		}
	}
}

func (g *rqGen) eqOrIn(c *rqColumn) *rqRel {
	if g.r.Intn(3) == 0 {
		return &rqRel{kind: relIN, cols: []*rqColumn{c}, in: g.pickN(c, 1+g.r.Intn(3))}
	}
	return &rqRel{kind: relEQ, cols: []*rqColumn{c}, vals: []rqValue{g.pick(c)}}
}

func (g *rqGen) tupleValues(cols []*rqColumn) []rqValue {
	out := make([]rqValue, len(cols))
	for i, c := range cols {
		out[i] = g.pick(c)
	}
	return out
}

// tupleRelation is (c_i, ..., c_j) = / IN / slice over consecutive
// clustering columns; a slice's bounds may cover different prefixes.
func (g *rqGen) tupleRelation(cols []*rqColumn) *rqRel {
	cols = cols[:1+g.r.Intn(len(cols))]
	r := &rqRel{cols: cols, multi: true, loFirst: g.r.Intn(2) == 0}
	switch g.r.Intn(4) {
	case 0:
		r.kind, r.vals = relEQ, g.tupleValues(cols)
	case 1:
		r.kind = relIN
		for i, n := 0, 1+g.r.Intn(3); i < n; i++ {
			r.in = append(r.in, g.tupleValues(cols))
		}
	default:
		r.kind = relSlice
		bound := func() *rqBound {
			return &rqBound{vals: g.tupleValues(cols)[:1+g.r.Intn(len(cols))], incl: g.r.Intn(2) == 0}
		}
		switch g.r.Intn(3) {
		case 0:
			r.lo = bound()
		case 1:
			r.hi = bound()
		default:
			r.lo, r.hi = bound(), bound()
		}
		// The relation restricts the columns its longer bound names.
		n := 0
		for _, b := range []*rqBound{r.lo, r.hi} {
			if b != nil && len(b.vals) > n {
				n = len(b.vals)
			}
		}
		r.cols = cols[:n]
	}
	return r
}

// nonKeyRelations: restrictions on static and regular columns.
func (g *rqGen) nonKeyRelations(q *rqQuery) {
	cols := g.t.nonKey()
	for i, n := 0, g.r.Intn(3); i < n && len(cols) > 0; i++ {
		c := cols[g.r.Intn(len(cols))]
		if rqRestricted(q, c) {
			continue
		}
		switch {
		case c.typ == rqSetInt:
			q.rels = append(q.rels, &rqRel{kind: relContains, cols: []*rqColumn{c}, vals: []rqValue{g.pick(c)}})
		case g.indexed[c.name] && g.r.Intn(2) == 0:
			q.rels = append(q.rels, &rqRel{kind: relEQ, cols: []*rqColumn{c}, vals: []rqValue{g.pick(c)}})
		case g.r.Intn(3) == 0:
			q.rels = append(q.rels, g.slice(c))
		default:
			q.rels = append(q.rels, g.eqOrIn(c))
		}
	}
}

func rqRestricted(q *rqQuery, c *rqColumn) bool {
	for _, r := range q.rels {
		for _, rc := range r.cols {
			if rc == c && r.kind != relToken {
				return true
			}
		}
	}
	return false
}

// columns draws a non-empty list of distinct columns in random order.
func (g *rqGen) columns() []rqSel {
	all := g.t.all()
	g.r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	n := 1 + g.r.Intn(len(all))
	out := make([]rqSel, n)
	for i := range out {
		out[i] = rqSel{col: all[i]}
	}
	return out
}

// aggregate draws count(*), count(c), max(c), min(c) or sum(c) (sum on
// numbers only; no aggregate over sets but count).
func (g *rqGen) aggregate() rqSel {
	all := g.t.all()
	c := all[g.r.Intn(len(all))]
	fns := []string{"count", "max", "min"}
	if c.typ == rqInt || c.typ == rqBigint {
		fns = append(fns, "sum")
	}
	if c.typ == rqSetInt {
		fns = []string{"count"}
	}
	if g.r.Intn(4) == 0 {
		return rqSel{fn: "count"}
	}
	return rqSel{fn: fns[g.r.Intn(len(fns))], col: c}
}

func (g *rqGen) aggregates(q *rqQuery) {
	for i, n := 0, 1+g.r.Intn(3); i < n; i++ {
		q.sels = append(q.sels, g.aggregate())
	}
	if g.r.Intn(3) == 0 {
		q.sels = append(q.sels, g.columns()[0])
	}
}

// groupBy groups by the partition key and a clustering prefix, sometimes
// leaving out columns restricted by EQ; with or without aggregates.
func (g *rqGen) groupBy(q *rqQuery) {
	keys := append(append([]*rqColumn{}, g.t.pk...), g.t.ck...)
	end := len(g.t.pk) + g.r.Intn(len(g.t.ck)+1)
	for _, c := range keys[:end] {
		if g.r.Intn(5) == 0 && rqEQRestricted(q, c) {
			continue
		}
		q.groupBy = append(q.groupBy, c)
	}
	switch g.r.Intn(3) {
	case 0:
		q.star = true
	case 1:
		q.sels = g.columns()
	default:
		g.aggregates(q)
	}
}

func rqEQRestricted(q *rqQuery, c *rqColumn) bool {
	for _, r := range q.rels {
		if r.kind == relEQ && !r.multi && r.first() == c {
			return true
		}
	}
	return false
}

// distinct selects the partition key (all of it, mostly) and maybe statics.
func (g *rqGen) distinct(q *rqQuery) {
	q.distinct = true
	for _, c := range g.t.pk {
		if g.r.Intn(8) != 0 {
			q.sels = append(q.sels, rqSel{col: c})
		}
	}
	for _, c := range g.t.statics {
		if g.r.Intn(2) == 0 {
			q.sels = append(q.sels, rqSel{col: c})
		}
	}
	if len(q.sels) == 0 {
		q.sels = append(q.sels, rqSel{col: g.t.pk[0]})
	}
	g.r.Shuffle(len(q.sels), func(i, j int) { q.sels[i], q.sels[j] = q.sels[j], q.sels[i] })
	var kept []*rqRel
	for _, r := range q.rels {
		if r.first().kind == rqPK || r.first().kind == rqStatic || r.kind == relToken {
			kept = append(kept, r)
		}
	}
	q.rels = kept
}

// orderBy orders by a clustering prefix (skipping EQ-restricted columns
// sometimes), all in table order or all reversed.
func (g *rqGen) orderBy(q *rqQuery) {
	ck := g.t.ck
	if len(ck) == 0 {
		return
	}
	reversed := g.r.Intn(2) == 0
	end := 1 + g.r.Intn(len(ck))
	for _, c := range ck[:end] {
		if g.r.Intn(3) == 0 && rqEQRestricted(q, c) {
			continue
		}
		q.orderBy = append(q.orderBy, c)
		q.orderDesc = append(q.orderDesc, c.desc != reversed)
	}
}
