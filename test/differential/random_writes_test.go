package differential_test

import (
	"fmt"
	"strings"
)

// wOpts shapes a write drawn for a batch.
type wOpts struct {
	inBatch     bool     // no conditions, and no timestamp when batchTS
	batchTS     bool     // the batch carries the timestamp
	conditional bool     // a conditional batch: a condition, no timestamp, pk fixed
	pk          []string // the partition key values (conditional batch)
}

// write draws an INSERT, UPDATE or DELETE on t (counter tables: an
// increment).
func (g *rGen) write(t *rTable, o wOpts) rStmt {
	var text string
	switch {
	case t.counter:
		text = g.counterUpdate(t, o)
		t.lwt = true
	case g.r.Intn(10) < 4:
		text = g.insert(t, o)
	case g.r.Intn(10) < 6:
		text = g.update(t, o)
	default:
		text = g.delete(t, o)
	}
	return rStmt{text: text, kind: stmtWrite, tables: []string{t.name}}
}

// lwtChance is the percentage of conditional writes outside batches.
const lwtChance = 12

// conditional decides whether a write carries IF, and whether it then
// gives USING TIMESTAMP (Cassandra refuses both together).
func (g *rGen) conditional(t *rTable, o wOpts) (cond, timestamp bool) {
	cond = o.conditional || (!o.inBatch && g.r.Intn(100) < lwtChance)
	if cond {
		t.lwt = true
	}
	return cond, !cond && !o.batchTS
}

func (g *rGen) partitionKey(t *rTable, o wOpts, inChance int) []string {
	if o.pk != nil {
		return eqs(t.pk, o.pk)
	}
	return g.keyRelations(t.pk, inChance)
}

// insert draws an INSERT of the full primary key and some columns, or of
// the partition key and static columns only.
func (g *rGen) insert(t *rTable, o wOpts) string {
	cond, ts := g.conditional(t, o)
	cols := append([]*rColumn(nil), t.pk...)
	var vals []string
	if o.pk != nil {
		vals = append(vals, o.pk...)
	} else {
		vals = g.keyValues(t.pk)
	}
	var rest []*rColumn
	if len(t.statics) > 0 && g.r.Intn(4) == 0 {
		rest = g.pick(t.statics, len(t.statics))
	} else {
		cols = append(cols, t.ck...)
		vals = append(vals, g.keyValues(t.ck)...)
		for _, c := range t.nonKey() {
			if g.r.Intn(2) == 0 {
				rest = append(rest, c)
			}
		}
	}
	for _, c := range rest {
		cols = append(cols, c)
		if g.r.Intn(10) == 0 {
			vals = append(vals, "null")
		} else {
			vals = append(vals, c.typ.literal(g.r, false))
		}
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	s := fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", t.name, strings.Join(names, ", "), strings.Join(vals, ", "))
	if cond {
		s += " IF NOT EXISTS"
	}
	return s + g.using(g.r.Intn(10) < 3, ts)
}

// update draws an UPDATE of some columns (plain values, nulls and
// collection and UDT-field operations) of a full key, or of static columns
// by partition key.
func (g *rGen) update(t *rTable, o wOpts) string {
	cond, ts := g.conditional(t, o)
	set := g.pick(t.nonKey(), 3)
	staticOnly := true
	var assigns []string
	for _, c := range set {
		assigns = append(assigns, g.assignment(c))
		staticOnly = staticOnly && c.role == roleStatic
	}
	rels := g.partitionKey(t, o, 10)
	if !staticOnly || g.r.Intn(10) == 0 {
		ck := g.keyRelations(t.ck, condChance(cond, 10))
		if len(ck) > 0 && g.r.Intn(20) == 0 {
			ck = ck[:len(ck)-1] // refused: a clustering column missing
		}
		rels = append(rels, ck...)
	}
	s := fmt.Sprintf("UPDATE %s%s SET %s%s", t.name, g.using(g.r.Intn(10) < 2, ts), strings.Join(assigns, ", "), where(rels))
	if cond {
		s += g.condition(t, set)
	}
	return s
}

// condChance is inChance for a statement that may be conditional: IN is
// refused with conditions, so it is drawn rarely there.
func condChance(cond bool, chance int) int {
	if cond {
		return 2
	}
	return chance
}

// assignment draws one SET term for c.
func (g *rGen) assignment(c *rColumn) string {
	t := c.typ
	if g.r.Intn(10) == 0 && t.kind != kCounter {
		return c.name + " = null"
	}
	switch {
	case t.kind == kSet && !t.frozen:
		switch g.r.Intn(3) {
		case 0:
			return fmt.Sprintf("%s = %s + %s", c.name, c.name, t.literal(g.r, true))
		case 1:
			return fmt.Sprintf("%s = %s - %s", c.name, c.name, t.literal(g.r, true))
		}
	case t.kind == kList && !t.frozen:
		switch g.r.Intn(5) {
		case 0:
			return fmt.Sprintf("%s = %s + %s", c.name, c.name, t.literal(g.r, true))
		case 1:
			return fmt.Sprintf("%s = %s + %s", c.name, t.literal(g.r, true), c.name)
		case 2:
			return fmt.Sprintf("%s = %s - %s", c.name, c.name, t.literal(g.r, true))
		case 3:
			return fmt.Sprintf("%s[%d] = %s", c.name, g.r.Intn(3), t.elem.literal(g.r, true))
		}
	case t.kind == kMap && !t.frozen:
		switch g.r.Intn(4) {
		case 0:
			return fmt.Sprintf("%s = %s + %s", c.name, c.name, t.literal(g.r, true))
		case 1:
			return fmt.Sprintf("%s = %s - {%s}", c.name, c.name, t.key.literal(g.r, true))
		case 2:
			return fmt.Sprintf("%s[%s] = %s", c.name, t.key.literal(g.r, true), t.elem.literal(g.r, false))
		}
	case t.kind == kUDT && !t.frozen:
		if g.r.Intn(2) == 0 {
			i := g.r.Intn(len(t.udt.fields))
			return fmt.Sprintf("%s.%s = %s", c.name, t.udt.fields[i], t.udt.types[i].literal(g.r, false))
		}
	case t.kind == kCounter:
		return fmt.Sprintf("%s = %s %s %d", c.name, c.name, []string{"+", "-"}[g.r.Intn(2)], g.r.Intn(5))
	}
	return c.name + " = " + t.literal(g.r, false)
}

// condition draws IF EXISTS or one or two column conditions, on the
// columns the statement writes or others.
func (g *rGen) condition(t *rTable, written []*rColumn) string {
	if g.r.Intn(4) == 0 {
		return " IF EXISTS"
	}
	cols := written
	if len(cols) == 0 || g.r.Intn(3) == 0 {
		cols = t.nonKey()
	}
	conds := []string{g.columnCondition(cols[g.r.Intn(len(cols))])}
	if g.r.Intn(4) == 0 {
		conds = append(conds, g.columnCondition(cols[g.r.Intn(len(cols))]))
	}
	return " IF " + strings.Join(conds, " AND ")
}

// columnCondition draws a condition on c: comparisons, IN, null, CONTAINS,
// and element or field conditions.
func (g *rGen) columnCondition(c *rColumn) string {
	t := c.typ
	switch n := g.r.Intn(10); {
	case n == 0:
		return c.name + " = null"
	case n == 1:
		return c.name + " != " + t.literal(g.r, true)
	case n == 2 && (t.orderable() || g.r.Intn(3) == 0):
		// Whole collections, UDTs and tuples compare too (a duration
		// inside is refused). Not against an empty collection: that is
		// refused when the condition is evaluated, and Cassandra evaluates
		// a row's conditions in no fixed order (CQL3CasRequest
		// .ColumnsConditions keeps them in a HashSet), so with a second
		// condition that fails the answer would be either.
		lit := t.literal(g.r, true)
		if lit == "[]" || lit == "{}" {
			return c.name + " = " + lit
		}
		return fmt.Sprintf("%s %s %s", c.name, []string{"<", "<=", ">", ">="}[g.r.Intn(4)], lit)
	case n == 3:
		return fmt.Sprintf("%s IN (%s, %s)", c.name, t.literal(g.r, true), t.literal(g.r, true))
	case n == 4 && (t.kind == kSet || t.kind == kList):
		return fmt.Sprintf("%s CONTAINS %s", c.name, t.elem.literal(g.r, true))
	case n == 4 && t.kind == kMap:
		return fmt.Sprintf("%s CONTAINS KEY %s", c.name, t.key.literal(g.r, true))
	case n == 5 && t.kind == kMap && !t.frozen:
		return fmt.Sprintf("%s[%s] = %s", c.name, t.key.literal(g.r, true), t.elem.literal(g.r, false))
	case n == 5 && t.kind == kList && !t.frozen:
		return fmt.Sprintf("%s[%d] = %s", c.name, g.r.Intn(2), t.elem.literal(g.r, true))
	case n == 5 && t.kind == kUDT && !t.frozen:
		return fmt.Sprintf("%s.fa = %s", c.name, t.udt.types[0].literal(g.r, true))
	case n == 6 && t.kind == kMap && !t.frozen:
		return fmt.Sprintf("%s[%s] %s", c.name, t.key.literal(g.r, true), g.elementComparison(t.elem))
	case n == 6 && t.kind == kList && !t.frozen:
		return fmt.Sprintf("%s[%d] %s", c.name, g.r.Intn(2), g.elementComparison(t.elem))
	}
	return c.name + " = " + t.literal(g.r, true)
}

// elementComparison draws the operator and value(s) of a condition on an
// element of type t: a comparison, an ordering or an IN list with null.
func (g *rGen) elementComparison(t *rType) string {
	switch g.r.Intn(3) {
	case 0:
		return fmt.Sprintf("%s %s", []string{"<", "<=", ">", ">=", "!="}[g.r.Intn(5)], t.literal(g.r, true))
	case 1:
		return fmt.Sprintf("IN (%s, null)", t.literal(g.r, true))
	}
	return "= " + t.literal(g.r, true)
}

// delete draws a partition, row, range, column or element deletion.
func (g *rGen) delete(t *rTable, o wOpts) string {
	cond, ts := g.conditional(t, o)
	rels := g.partitionKey(t, o, condChance(cond, 10))
	var cols []string
	n := g.r.Intn(10)
	if cond && n < 4 && g.r.Intn(5) > 0 {
		// A conditional deletion needs the full key (unless it deletes only
		// static columns): a partition or range deletion with IF is refused,
		// so it is drawn only now and then.
		n = 6 + g.r.Intn(4)
	}
	switch {
	case n < 2 || len(t.ck) == 0 && n < 4:
		// The partition, or with clustering columns the whole row.
		if n == 1 {
			rels = append(rels, g.keyRelations(t.ck, condChance(cond, 10))...)
		}
	case n < 4:
		rels = append(rels, g.clusteringRange(t)...)
	case n < 6 && len(t.statics) > 0:
		for _, c := range g.pick(t.statics, 2) {
			cols = append(cols, c.name)
		}
		if g.r.Intn(10) == 0 {
			rels = append(rels, g.keyRelations(t.ck, 0)...)
		}
	default:
		for _, c := range g.pick(t.nonKey(), 2) {
			cols = append(cols, g.deletion(c))
		}
		rels = append(rels, g.keyRelations(t.ck, condChance(cond, 5))...)
	}
	s := "DELETE " + strings.Join(cols, ", ")
	if len(cols) > 0 {
		s += " "
	}
	s += "FROM " + t.name + g.using(false, ts) + where(rels)
	if cond {
		s += g.condition(t, nil)
	}
	return s
}

// deletion draws the term deleting c: the column, or one element or field.
func (g *rGen) deletion(c *rColumn) string {
	t := c.typ
	if g.r.Intn(2) == 0 || !t.multiCell() {
		return c.name
	}
	switch t.kind {
	case kList:
		return fmt.Sprintf("%s[%d]", c.name, g.r.Intn(3))
	case kMap:
		return fmt.Sprintf("%s[%s]", c.name, t.key.literal(g.r, true))
	case kSet:
		return fmt.Sprintf("%s[%s]", c.name, t.elem.literal(g.r, true))
	case kUDT:
		return c.name + "." + t.udt.fields[g.r.Intn(len(t.udt.fields))]
	}
	return c.name
}

// clusteringRange draws the clustering part of a range deletion: an
// equality prefix, then sometimes a slice on the next column, or a tuple
// slice.
func (g *rGen) clusteringRange(t *rTable) []string {
	if len(t.ck) == 0 {
		return nil
	}
	prefix := g.r.Intn(len(t.ck))
	rels := eqs(t.ck[:prefix], g.keyValues(t.ck[:prefix]))
	rest := t.ck[prefix:]
	switch {
	case len(rest) > 1 && g.r.Intn(3) == 0:
		return append(rels, g.tupleSlice(rest[:2+g.r.Intn(len(rest)-1)])...)
	case g.r.Intn(3) > 0:
		return append(rels, g.slice(rest[0])...)
	}
	return rels
}

// slice draws one or both bounds on c.
func (g *rGen) slice(c *rColumn) []string {
	lo := fmt.Sprintf("%s %s %s", c.name, []string{">", ">="}[g.r.Intn(2)], c.typ.literal(g.r, true))
	hi := fmt.Sprintf("%s %s %s", c.name, []string{"<", "<="}[g.r.Intn(2)], c.typ.literal(g.r, true))
	switch g.r.Intn(3) {
	case 0:
		return []string{lo}
	case 1:
		return []string{hi}
	}
	return []string{lo, hi}
}

// tupleSlice draws a multi-column slice on cols.
func (g *rGen) tupleSlice(cols []*rColumn) []string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	tuple := func() string { return "(" + strings.Join(g.keyValues(cols), ", ") + ")" }
	lhs := "(" + strings.Join(names, ", ") + ")"
	lo := fmt.Sprintf("%s %s %s", lhs, []string{">", ">="}[g.r.Intn(2)], tuple())
	hi := fmt.Sprintf("%s %s %s", lhs, []string{"<", "<="}[g.r.Intn(2)], tuple())
	switch g.r.Intn(3) {
	case 0:
		return []string{lo}
	case 1:
		return []string{hi}
	}
	return []string{lo, hi}
}

// counterUpdate draws an increment of some counters of a full key (static
// counters by partition key only).
func (g *rGen) counterUpdate(t *rTable, o wOpts) string {
	set := g.pick(t.nonKey(), 2)
	staticOnly := true
	var assigns []string
	for _, c := range set {
		assigns = append(assigns, g.assignment(c))
		staticOnly = staticOnly && c.role == roleStatic
	}
	rels := g.partitionKey(t, o, 10)
	if !staticOnly {
		rels = append(rels, g.keyRelations(t.ck, 10)...)
	}
	return fmt.Sprintf("UPDATE %s SET %s%s", t.name, strings.Join(assigns, ", "), where(rels))
}

// batch draws a logged or unlogged batch of writes (timestamps on the
// batch or on its statements), a conditional batch on one partition, or a
// counter batch.
func (g *rGen) batch(t *rTable) rStmt {
	n := 2 + g.r.Intn(3)
	var inner []string
	tables := map[string]bool{}
	head := "BEGIN BATCH"
	switch {
	case t.counter:
		head = "BEGIN COUNTER BATCH"
		for i := 0; i < n; i++ {
			inner = append(inner, g.write(t, wOpts{inBatch: true}).text)
		}
	case g.r.Intn(4) == 0:
		o := wOpts{conditional: true, pk: g.keyValues(t.pk)}
		for i := 0; i < n; i++ {
			inner = append(inner, g.write(t, o).text)
		}
	default:
		o := wOpts{inBatch: true, batchTS: g.r.Intn(2) == 0}
		if g.r.Intn(3) == 0 {
			head = "BEGIN UNLOGGED BATCH"
		}
		if o.batchTS {
			head += fmt.Sprintf(" USING TIMESTAMP %d", g.timestamp())
		}
		for i := 0; i < n; i++ {
			target := g.tables[g.r.Intn(len(g.tables))]
			if target.counter {
				target = t
			}
			tables[target.name] = true
			inner = append(inner, g.write(target, o).text)
		}
	}
	tables[t.name] = true
	s := rStmt{text: head + " " + strings.Join(inner, "; ") + "; APPLY BATCH", kind: stmtWrite}
	for _, u := range g.tables {
		if tables[u.name] {
			s.tables = append(s.tables, u.name)
		}
	}
	return s
}
