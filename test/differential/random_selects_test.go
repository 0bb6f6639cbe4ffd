package differential_test

import (
	"fmt"
	"strings"
)

// rSelect is a SELECT being drawn.
type rSelect struct {
	t         *rTable
	rels      []string
	filtering bool // the generator believes Cassandra needs ALLOW FILTERING
	keyed     bool // the partition key is restricted by EQ or IN
	pkIN      bool // ... by IN
	ckRels    int  // clustering columns restricted (prefix length)
}

// read draws a SELECT: a partition-key restriction (none, EQ, IN, token
// range, partial), clustering restrictions (EQ and IN prefixes, slices,
// tuple slices, skipped columns), filters on static and regular columns
// (comparisons, IN, CONTAINS, CONTAINS KEY, map entries), a selection
// (*, columns, aggregates, DISTINCT, writetime/ttl/token), GROUP BY,
// ORDER BY, LIMIT, PER PARTITION LIMIT, ALLOW FILTERING and a page size.
func (g *rGen) read(t *rTable) rStmt {
	q := &rSelect{t: t}
	sel, groupBy, distinct := g.selection(q)
	g.partitionRestriction(q)
	// DISTINCT takes only partition-key and static restrictions; the others
	// are drawn for it rarely, to compare the refusal.
	others := !distinct || g.r.Intn(10) == 0
	if len(t.ck) > 0 && others && g.r.Intn(10) < 6 {
		g.clusteringRestriction(q)
	}
	if g.r.Intn(10) < 3 {
		cols := t.nonKey()
		if distinct && !others {
			cols = t.statics
		}
		for _, c := range g.pick(cols, 2) {
			q.rels = append(q.rels, g.filter(c))
			q.filtering = true
		}
	}
	var b strings.Builder
	b.WriteString("SELECT ")
	if distinct {
		b.WriteString("DISTINCT ")
	}
	b.WriteString(sel + " FROM " + t.name + where(q.rels))
	if groupBy != "" {
		b.WriteString(" GROUP BY " + groupBy)
	}
	if ob := g.orderBy(q); ob != "" {
		b.WriteString(" ORDER BY " + ob)
	}
	if g.r.Intn(100) < 12 {
		fmt.Fprintf(&b, " PER PARTITION LIMIT %d", 1+g.r.Intn(3))
	}
	if g.r.Intn(100) < 20 {
		fmt.Fprintf(&b, " LIMIT %d", 1+g.r.Intn(5))
	}
	if q.filtering && g.r.Intn(100) < 85 || g.r.Intn(100) < 8 {
		b.WriteString(" ALLOW FILTERING")
	}
	s := rStmt{text: b.String(), kind: stmtRead, tables: []string{t.name}}
	if g.r.Intn(2) == 0 {
		s.pageSize = []int{1, 2, 3, 5, 10}[g.r.Intn(5)]
	}
	return s
}

// partitionRestriction draws the partition-key part of the WHERE clause.
func (g *rGen) partitionRestriction(q *rSelect) {
	t := q.t
	switch n := g.r.Intn(100); {
	case n < 30:
	case n < 65:
		q.rels, q.keyed = eqs(t.pk, g.keyValues(t.pk)), true
	case n < 80:
		q.rels, q.keyed, q.pkIN = g.keyRelations(t.pk, 100), true, true
		if len(t.pk) > 1 && g.r.Intn(3) == 0 {
			q.rels = []string{g.inList(t.pk[0], false), g.inList(t.pk[1], false)}
		}
	case n < 90:
		q.rels = g.tokenRange(t)
	default:
		// Part of a composite key, or a slice on the key: filtering.
		c := t.pk[g.r.Intn(len(t.pk))]
		if len(t.pk) > 1 && g.r.Intn(2) == 0 {
			q.rels = []string{c.name + " = " + c.typ.literal(g.r, true)}
		} else {
			q.rels = g.slice(c)
		}
		q.filtering = true
	}
}

// tokenRange draws token(pk...) bounds: integers, or token(values).
func (g *rGen) tokenRange(t *rTable) []string {
	names := make([]string, len(t.pk))
	for i, c := range t.pk {
		names[i] = c.name
	}
	lhs := "token(" + strings.Join(names, ", ") + ")"
	bound := func() string {
		if g.r.Intn(3) == 0 {
			return "token(" + strings.Join(g.keyValues(t.pk), ", ") + ")"
		}
		return []string{"-9223372036854775808", "-4611686018427387904", "0", "3074457345618258602", "9223372036854775807"}[g.r.Intn(5)]
	}
	switch g.r.Intn(4) {
	case 0:
		return []string{lhs + " " + []string{">", ">="}[g.r.Intn(2)] + " " + bound()}
	case 1:
		return []string{lhs + " " + []string{"<", "<="}[g.r.Intn(2)] + " " + bound()}
	case 2:
		return []string{lhs + " = " + bound()}
	}
	return []string{lhs + " > " + bound(), lhs + " <= " + bound()}
}

// clusteringRestriction draws restrictions on the clustering columns.
func (g *rGen) clusteringRestriction(q *rSelect) {
	t := q.t
	if !q.keyed {
		q.filtering = true
	}
	switch n := g.r.Intn(10); {
	case n < 6:
		// An EQ/IN prefix, then perhaps a slice on the next column.
		p := g.r.Intn(len(t.ck) + 1)
		q.rels = append(q.rels, g.keyRelations(t.ck[:p], 25)...)
		q.ckRels = p
		if p < len(t.ck) && (p == 0 || g.r.Intn(2) == 0) {
			q.rels = append(q.rels, g.slice(t.ck[p])...)
			q.ckRels++
		}
	case n < 9:
		// A tuple relation on a prefix starting at the first column.
		cols := t.ck[:1+g.r.Intn(len(t.ck))]
		q.ckRels = len(cols)
		q.rels = append(q.rels, g.tupleRelation(cols)...)
	default:
		// A column after an unrestricted one: filtering.
		c := t.ck[g.r.Intn(len(t.ck))]
		q.rels = append(q.rels, c.name+" = "+c.typ.literal(g.r, true))
		q.filtering = true
	}
}

// tupleRelation draws (c1, ..., cn) = / IN / slice.
func (g *rGen) tupleRelation(cols []*rColumn) []string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	lhs := "(" + strings.Join(names, ", ") + ")"
	tuple := func() string { return "(" + strings.Join(g.keyValues(cols), ", ") + ")" }
	switch g.r.Intn(4) {
	case 0:
		return []string{lhs + " = " + tuple()}
	case 1:
		return []string{lhs + " IN (" + tuple() + ", " + tuple() + ")"}
	}
	return g.tupleSlice(cols)
}

// filter draws a restriction on a static or regular column.
func (g *rGen) filter(c *rColumn) string {
	t := c.typ
	switch n := g.r.Intn(10); {
	case t.kind == kSet || t.kind == kList:
		if n < 7 || t.frozen && n < 9 {
			return fmt.Sprintf("%s CONTAINS %s", c.name, t.elem.literal(g.r, true))
		}
	case t.kind == kMap:
		switch {
		case n < 4:
			return fmt.Sprintf("%s CONTAINS KEY %s", c.name, t.key.literal(g.r, true))
		case n < 7:
			return fmt.Sprintf("%s CONTAINS %s", c.name, t.elem.literal(g.r, false))
		case n < 9 && !t.frozen:
			return fmt.Sprintf("%s[%s] = %s", c.name, t.key.literal(g.r, true), t.elem.literal(g.r, false))
		}
	case t.orderable() && n < 4:
		return fmt.Sprintf("%s %s %s", c.name, []string{"<", "<=", ">", ">="}[g.r.Intn(4)], t.literal(g.r, true))
	case n == 4:
		return fmt.Sprintf("%s IN (%s, %s)", c.name, t.literal(g.r, true), t.literal(g.r, true))
	case n == 5 && t.kind != kCounter:
		return c.name + " != " + t.literal(g.r, true)
	}
	return c.name + " = " + t.literal(g.r, true)
}

// selection draws the selected terms; GROUP BY and DISTINCT come with
// them, as they decide what may be selected.
func (g *rGen) selection(q *rSelect) (sel, groupBy string, distinct bool) {
	t := q.t
	switch n := g.r.Intn(100); {
	case n < 35:
		return "*", g.maybeGroupBy(q, 10), false
	case n < 65:
		cols := t.columns()
		perm := g.r.Perm(len(cols))[:1+g.r.Intn(len(cols))]
		names := make([]string, len(perm))
		for i, p := range perm {
			names[i] = cols[p].name
		}
		return strings.Join(names, ", "), g.maybeGroupBy(q, 10), false
	case n < 85:
		groupBy = g.maybeGroupBy(q, 50)
		var terms []string
		if groupBy != "" && g.r.Intn(3) > 0 {
			terms = append(terms, groupBy)
		}
		for i, m := 0, 1+g.r.Intn(3); i < m; i++ {
			terms = append(terms, g.aggregate(t))
		}
		return strings.Join(terms, ", "), groupBy, false
	case n < 93:
		var names []string
		for _, c := range t.pk {
			names = append(names, c.name)
		}
		for _, c := range t.statics {
			if g.r.Intn(2) == 0 {
				names = append(names, c.name)
			}
		}
		if g.r.Intn(5) == 0 {
			names = []string{"count(*)"}
		}
		return strings.Join(names, ", "), "", true
	}
	return g.functions(t), "", false
}

// aggregate draws count(*), count(c), min, max or sum.
func (g *rGen) aggregate(t *rTable) string {
	cols := t.columns()
	c := cols[g.r.Intn(len(cols))]
	switch n := g.r.Intn(5); {
	case n == 0:
		return "count(*)"
	case n == 1:
		return "count(" + c.name + ")"
	case n == 2 && c.typ.numeric() || c.typ.kind == kCounter:
		return "sum(" + c.name + ")"
	case c.typ.kind == kScalar || c.typ.kind == kCounter:
		return []string{"min", "max"}[g.r.Intn(2)] + "(" + c.name + ")"
	}
	return "count(" + c.name + ")"
}

// maybeGroupBy draws, chance percent of the time, GROUP BY the partition
// key and a clustering prefix.
func (g *rGen) maybeGroupBy(q *rSelect, chance int) string {
	if g.r.Intn(100) >= chance {
		return ""
	}
	var names []string
	for _, c := range q.t.pk {
		names = append(names, c.name)
	}
	for _, c := range q.t.ck[:g.r.Intn(len(q.t.ck)+1)] {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

// functions draws writetime, ttl and token selectors. writetime is drawn
// only while every write of the table gave USING TIMESTAMP (rTable.lwt);
// ttl values are compared with SameAnswer's tolerance.
func (g *rGen) functions(t *rTable) string {
	var terms []string
	for _, c := range t.nonKey() {
		if c.typ.multiCell() || g.r.Intn(2) == 0 {
			continue
		}
		if !t.lwt && g.r.Intn(2) == 0 {
			terms = append(terms, c.name, "writetime("+c.name+")")
		} else {
			terms = append(terms, c.name, "ttl("+c.name+")")
		}
	}
	names := make([]string, len(t.pk))
	for i, c := range t.pk {
		names[i] = c.name
	}
	return strings.Join(append(terms, "token("+strings.Join(names, ", ")+")"), ", ")
}

// orderBy draws ORDER BY on a clustering prefix, in the table's order or
// its reverse (and, rarely, a mixed order or a partition-key query
// without EQ/IN, which Cassandra refuses).
func (g *rGen) orderBy(q *rSelect) string {
	t := q.t
	if len(t.ck) == 0 || g.r.Intn(100) >= 25 || !q.keyed && g.r.Intn(10) > 0 {
		return ""
	}
	reverse := g.r.Intn(2) == 0
	var terms []string
	for i, c := range t.ck[:1+g.r.Intn(len(t.ck))] {
		desc := c.desc != reverse
		if i > 0 && g.r.Intn(20) == 0 {
			desc = !desc
		}
		terms = append(terms, c.name+" "+map[bool]string{false: "ASC", true: "DESC"}[desc])
	}
	return strings.Join(terms, ", ")
}

// invalid draws a statement Cassandra refuses on purpose: filtering
// without ALLOW FILTERING, ORDER BY on a regular column, IN on a
// clustering column before a slice, a literal of the wrong type, USING
// TIMESTAMP with a condition or on a counter, or an INSERT into a counter
// table.
func (g *rGen) invalid(t *rTable) rStmt {
	read := func(text string) rStmt { return rStmt{text: text, kind: stmtRead, tables: []string{t.name}} }
	write := func(text string) rStmt { return rStmt{text: text, kind: stmtWrite, tables: []string{t.name}} }
	key := strings.Join(eqs(t.pk, g.keyValues(t.pk)), " AND ")
	fullKey := strings.Join(append([]string{key}, eqs(t.ck, g.keyValues(t.ck))...), " AND ")
	regular := t.regular[g.r.Intn(len(t.regular))]
	switch g.r.Intn(6) {
	case 0:
		return read(fmt.Sprintf("SELECT * FROM %s WHERE %s", t.name, g.filter(regular)))
	case 1:
		return read(fmt.Sprintf("SELECT * FROM %s WHERE %s ORDER BY %s", t.name, key, regular.name))
	case 2:
		if len(t.ck) > 1 {
			return read(fmt.Sprintf("SELECT * FROM %s WHERE %s AND %s AND %s", t.name, key, g.inList(t.ck[0], false), g.slice(t.ck[1])[0]))
		}
		return read(fmt.Sprintf("SELECT * FROM %s WHERE %s AND %s", t.name, key, g.slice(t.pk[0])[0]))
	case 3:
		if t.counter {
			return write(fmt.Sprintf("UPDATE %s USING TIMESTAMP %d SET %s = %s + 1 WHERE %s", t.name, g.timestamp(), regular.name, regular.name, fullKey))
		}
		return write(fmt.Sprintf("INSERT INTO %s (%s, %s) VALUES (%s, %s)", t.name, t.pk[0].name, regular.name,
			t.pk[0].typ.literal(g.r, true), regular.typ.wrongLiteral(g.r)))
	case 4:
		return read(fmt.Sprintf("SELECT * FROM %s WHERE %s = %s", t.name, t.pk[0].name, t.pk[0].typ.wrongLiteral(g.r)))
	}
	if t.counter {
		return write(fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", t.name, t.pk[0].name, t.pk[0].typ.literal(g.r, true)))
	}
	t.lwt = true
	return write(fmt.Sprintf("UPDATE %s USING TIMESTAMP %d SET %s = %s WHERE %s IF EXISTS", t.name, g.timestamp(), regular.name,
		regular.typ.literal(g.r, false), fullKey))
}
