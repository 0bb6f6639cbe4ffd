package engine_test

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
)

// This file holds the model the reference reads: every row the test wrote,
// kept with Cassandra's write semantics. Each statement gets a strictly
// greater timestamp than the one before, so last-write-wins reduces to
// statement order and a deletion simply removes what it covers.

// rqRow is a clustering row: marker is the INSERT row marker (primary key
// liveness); cells holds the live regular cells.
type rqRow struct {
	ck     []rqValue
	marker bool
	cells  map[string]rqValue
}

func (r *rqRow) live() bool { return r.marker || len(r.cells) > 0 }

// rqPartition holds a partition's live static cells and rows.
type rqPartition struct {
	pk      []rqValue
	token   int64
	statics map[string]rqValue
	rows    map[string]*rqRow
}

func (p *rqPartition) live() bool { return len(p.statics) > 0 || len(p.rows) > 0 }

// rqModel is the state of one table.
type rqModel struct {
	t     *rqTable
	parts map[string]*rqPartition
}

func newRQModel(t *rqTable) *rqModel { return &rqModel{t: t, parts: map[string]*rqPartition{}} }

func rqKeyString(cols []*rqColumn, vals []rqValue) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = rqLiteral(cols[i].typ, v)
	}
	return strings.Join(parts, ", ")
}

func (m *rqModel) partition(pk []rqValue, create bool) *rqPartition {
	k := rqKeyString(m.t.pk, pk)
	p := m.parts[k]
	if p == nil && create {
		p = &rqPartition{pk: pk, token: rqPartitionToken(m.t, pk), statics: map[string]rqValue{}, rows: map[string]*rqRow{}}
		m.parts[k] = p
	}
	return p
}

func (m *rqModel) row(p *rqPartition, ck []rqValue, create bool) *rqRow {
	k := rqKeyString(m.t.ck, ck)
	r := p.rows[k]
	if r == nil && create {
		r = &rqRow{ck: ck, cells: map[string]rqValue{}}
		p.rows[k] = r
	}
	return r
}

// prune drops rows and partitions left without live data.
func (m *rqModel) prune() {
	for k, p := range m.parts {
		for rk, r := range p.rows {
			if !r.live() {
				delete(p.rows, rk)
			}
		}
		if !p.live() {
			delete(m.parts, k)
		}
	}
}

// setCell writes (or, for null, deletes) a non-key cell.
func setCell(cells map[string]rqValue, c *rqColumn, v rqValue) {
	if v == nil {
		delete(cells, c.name)
	} else {
		cells[c.name] = v
	}
}

// sortedRows returns a partition's rows in clustering order (reversed: the
// exact reverse).
func (m *rqModel) sortedRows(p *rqPartition, reversed bool) []*rqRow {
	rows := make([]*rqRow, 0, len(p.rows))
	for _, r := range p.rows {
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool {
		c := rqCompareClustering(m.t.ck, rows[i].ck, rows[j].ck)
		if reversed {
			return c > 0
		}
		return c < 0
	})
	return rows
}

// rqCompareClustering compares clustering prefixes in clustering order.
func rqCompareClustering(cols []*rqColumn, a, b []rqValue) int {
	for i := range a {
		c := rqCompare(cols[i].typ, a[i], b[i])
		if cols[i].desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// rqOp is one step of a scenario: a statement (write or CREATE INDEX) with
// what it does to the model, or an operator split action (split layer only).
type rqOp struct {
	cql   string
	apply func(m *rqModel)
	// Split action, when splitOp is set: the partition's key as CQL literals.
	splitOp, splitKey, strategy string
}

// rqWriter draws writes for a table. Keys come from a small "hot" set of
// partitions most of the time, so that partitions grow large enough to be
// split and to hold many rows for clustering restrictions.
type rqWriter struct {
	r   *rand.Rand
	t   *rqTable
	hot [][]rqValue
}

func newRQWriter(r *rand.Rand, t *rqTable) *rqWriter {
	w := &rqWriter{r: r, t: t}
	for i, n := 0, 1+r.Intn(3); i < n; i++ {
		w.hot = append(w.hot, w.anyPK())
	}
	return w
}

func (w *rqWriter) pick(c *rqColumn) rqValue {
	d := rqDomain(c, len(w.t.pk) == 1)
	return d[w.r.Intn(len(d))]
}

func (w *rqWriter) anyPK() []rqValue {
	out := make([]rqValue, len(w.t.pk))
	for i, c := range w.t.pk {
		out[i] = w.pick(c)
	}
	return out
}

func (w *rqWriter) pk() []rqValue {
	if w.r.Intn(4) != 0 {
		return append([]rqValue{}, w.hot[w.r.Intn(len(w.hot))]...)
	}
	return w.anyPK()
}

func (w *rqWriter) ck() []rqValue {
	out := make([]rqValue, len(w.t.ck))
	for i, c := range w.t.ck {
		out[i] = w.pick(c)
	}
	return out
}

// value draws a cell value; null one time in six.
func (w *rqWriter) value(c *rqColumn) rqValue {
	if w.r.Intn(6) == 0 {
		return nil
	}
	return w.pick(c)
}

func rqKeyWhere(cols []*rqColumn, vals []rqValue) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = cols[i].name + " = " + rqLiteral(cols[i].typ, v)
	}
	return strings.Join(parts, " AND ")
}

// someColumns draws a non-empty random subset of cols (nil if cols is empty).
func (w *rqWriter) someColumns(cols []*rqColumn) []*rqColumn {
	var out []*rqColumn
	for _, c := range cols {
		if w.r.Intn(2) == 0 {
			out = append(out, c)
		}
	}
	if len(out) == 0 && len(cols) > 0 {
		out = append(out, cols[w.r.Intn(len(cols))])
	}
	return out
}

// write draws one write statement.
func (w *rqWriter) write() rqOp {
	switch n := w.r.Intn(20); {
	case n < 8:
		return w.insert()
	case n < 12:
		return w.update()
	case n < 14:
		return w.deleteRow()
	case n < 16:
		return w.deleteCells()
	case n < 18 && len(w.t.ck) > 0:
		return w.deleteRange()
	case n < 19 && len(w.t.statics) > 0:
		return w.updateStatic()
	}
	return w.deletePartition()
}

// insert is INSERT with the full key (or, on a table with statics, now and
// then only the partition key and static columns: no row marker then).
func (w *rqWriter) insert() rqOp {
	t := w.t
	pk := w.pk()
	staticOnly := len(t.statics) > 0 && w.r.Intn(6) == 0
	var ck []rqValue
	cols := append([]*rqColumn{}, t.pk...)
	vals := append([]rqValue{}, pk...)
	var set []*rqColumn
	if staticOnly {
		set = w.someColumns(t.statics)
	} else {
		ck = w.ck()
		cols = append(cols, t.ck...)
		vals = append(vals, ck...)
		set = w.someColumns(t.nonKey())
		if w.r.Intn(5) == 0 {
			set = nil // the row marker alone
		}
	}
	setVals := make([]rqValue, len(set))
	for i, c := range set {
		setVals[i] = w.value(c)
	}
	allCols, allVals := append(cols, set...), append(vals, setVals...)
	names, lits := []string{}, []string{}
	for i, c := range allCols {
		names = append(names, c.name)
		lits = append(lits, rqLiteral(c.typ, allVals[i]))
	}
	stmt := fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", t.name, strings.Join(names, ", "), strings.Join(lits, ", "))
	return rqOp{cql: stmt, apply: func(m *rqModel) {
		p := m.partition(pk, true)
		var r *rqRow
		if !staticOnly {
			r = m.row(p, ck, true)
			r.marker = true
		}
		for i, c := range set {
			if c.kind == rqStatic {
				setCell(p.statics, c, setVals[i])
			} else {
				setCell(r.cells, c, setVals[i])
			}
		}
	}}
}

// update is UPDATE ... SET some columns WHERE the full key, sometimes with
// IN on the last key column. It always sets a regular column: with a
// clustering key and only static columns set, Cassandra refuses it.
func (w *rqWriter) update() rqOp {
	t := w.t
	keyCols := append(append([]*rqColumn{}, t.pk...), t.ck...)
	first := append(w.pk(), w.ck()...)
	keys := [][]rqValue{first}
	where := rqKeyWhere(keyCols, first)
	if w.r.Intn(4) == 0 {
		n := len(keyCols)
		other := append([]rqValue{}, first...)
		other[n-1] = w.pick(keyCols[n-1])
		keys = append(keys, other)
		where = fmt.Sprintf("%s IN (%s, %s)", keyCols[n-1].name, rqLiteral(keyCols[n-1].typ, first[n-1]), rqLiteral(keyCols[n-1].typ, other[n-1]))
		if n > 1 {
			where = rqKeyWhere(keyCols[:n-1], first[:n-1]) + " AND " + where
		}
	}
	set := append(w.someColumns(t.regulars), w.maybeColumns(t.statics)...)
	var assigns []string
	var changes []func(cells, statics map[string]rqValue)
	for _, c := range set {
		a, f := w.assignment(c)
		assigns = append(assigns, a)
		changes = append(changes, f)
	}
	stmt := fmt.Sprintf("UPDATE %s SET %s WHERE %s", t.name, strings.Join(assigns, ", "), where)
	return rqOp{cql: stmt, apply: func(m *rqModel) {
		for _, key := range keys {
			p := m.partition(key[:len(t.pk)], true)
			r := m.row(p, key[len(t.pk):], true)
			for _, f := range changes {
				f(r.cells, p.statics)
			}
		}
		m.prune()
	}}
}

// maybeColumns draws a possibly empty random subset of cols.
func (w *rqWriter) maybeColumns(cols []*rqColumn) []*rqColumn {
	var out []*rqColumn
	for _, c := range cols {
		if w.r.Intn(3) == 0 {
			out = append(out, c)
		}
	}
	return out
}

// assignment draws "c = v" (or, for sets, "c = c + {..}" / "c = c - {..}").
func (w *rqWriter) assignment(c *rqColumn) (string, func(cells, statics map[string]rqValue)) {
	target := func(cells, statics map[string]rqValue) map[string]rqValue {
		if c.kind == rqStatic {
			return statics
		}
		return cells
	}
	if c.typ == rqSetInt && w.r.Intn(2) == 0 {
		elems := w.pick(c).([]int64)
		add := w.r.Intn(2) == 0
		op := "-"
		if add {
			op = "+"
		}
		return fmt.Sprintf("%s = %s %s %s", c.name, c.name, op, rqLiteral(c.typ, elems)), func(cells, statics map[string]rqValue) {
			m := target(cells, statics)
			old, _ := m[c.name].([]int64)
			setCell(m, c, rqSetChange(old, elems, add))
		}
	}
	v := w.value(c)
	return fmt.Sprintf("%s = %s", c.name, rqLiteral(c.typ, v)), func(cells, statics map[string]rqValue) {
		setCell(target(cells, statics), c, v)
	}
}

// rqSetChange adds or removes elements; an empty result is null.
func rqSetChange(old, elems []int64, add bool) rqValue {
	in := map[int64]bool{}
	for _, e := range old {
		in[e] = true
	}
	for _, e := range elems {
		in[e] = add
	}
	var out []int64
	for e, ok := range in {
		if ok {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// updateStatic is UPDATE of static columns by partition key only.
func (w *rqWriter) updateStatic() rqOp {
	t := w.t
	pk := w.pk()
	var assigns []string
	var changes []func(cells, statics map[string]rqValue)
	for _, c := range w.someColumns(t.statics) {
		a, f := w.assignment(c)
		assigns = append(assigns, a)
		changes = append(changes, f)
	}
	stmt := fmt.Sprintf("UPDATE %s SET %s WHERE %s", t.name, strings.Join(assigns, ", "), rqKeyWhere(t.pk, pk))
	return rqOp{cql: stmt, apply: func(m *rqModel) {
		p := m.partition(pk, true)
		for _, f := range changes {
			f(nil, p.statics)
		}
		m.prune()
	}}
}

func (w *rqWriter) deleteRow() rqOp {
	t := w.t
	pk, ck := w.pk(), w.ck()
	keyCols := append(append([]*rqColumn{}, t.pk...), t.ck...)
	stmt := fmt.Sprintf("DELETE FROM %s WHERE %s", t.name, rqKeyWhere(keyCols, append(append([]rqValue{}, pk...), ck...)))
	if len(t.ck) == 0 {
		return w.deletePartitionOf(pk, stmt)
	}
	return rqOp{cql: stmt, apply: func(m *rqModel) {
		if p := m.partition(pk, false); p != nil {
			delete(p.rows, rqKeyString(t.ck, ck))
			m.prune()
		}
	}}
}

// deleteCells is DELETE of some columns: regular ones need the full key,
// static ones only the partition key.
func (w *rqWriter) deleteCells() rqOp {
	t := w.t
	pk, ck := w.pk(), w.ck()
	staticOnly := len(t.statics) > 0 && w.r.Intn(3) == 0
	cols := append(w.someColumns(t.regulars), w.maybeColumns(t.statics)...)
	where := rqKeyWhere(append(append([]*rqColumn{}, t.pk...), t.ck...), append(append([]rqValue{}, pk...), ck...))
	if staticOnly {
		cols = w.someColumns(t.statics)
		where = rqKeyWhere(t.pk, pk)
	}
	names := []string{}
	for _, c := range cols {
		names = append(names, c.name)
	}
	stmt := fmt.Sprintf("DELETE %s FROM %s WHERE %s", strings.Join(names, ", "), t.name, where)
	return rqOp{cql: stmt, apply: func(m *rqModel) {
		p := m.partition(pk, false)
		if p == nil {
			return
		}
		for _, c := range cols {
			if c.kind == rqStatic {
				delete(p.statics, c.name)
			} else if r := m.row(p, ck, false); r != nil {
				delete(r.cells, c.name)
			}
		}
		m.prune()
	}}
}

// deleteRange deletes a clustering prefix, or a slice after an EQ prefix.
func (w *rqWriter) deleteRange() rqOp {
	t := w.t
	pk, ck := w.pk(), w.ck()
	n := w.r.Intn(len(t.ck)) // EQ prefix length
	where := rqKeyWhere(t.pk, pk)
	if n > 0 {
		where += " AND " + rqKeyWhere(t.ck[:n], ck[:n])
	}
	sliceCol := t.ck[n]
	lo, hi := w.pick(sliceCol), w.pick(sliceCol)
	loIncl, hiIncl := w.r.Intn(2) == 0, w.r.Intn(2) == 0
	withLo, withHi := w.r.Intn(3) != 0, w.r.Intn(3) != 0
	if n == 0 && !withLo && !withHi {
		withLo = true // no clustering restriction would delete the partition
	}
	if withLo {
		where += fmt.Sprintf(" AND %s %s %s", sliceCol.name, map[bool]string{true: ">=", false: ">"}[loIncl], rqLiteral(sliceCol.typ, lo))
	}
	if withHi {
		where += fmt.Sprintf(" AND %s %s %s", sliceCol.name, map[bool]string{true: "<=", false: "<"}[hiIncl], rqLiteral(sliceCol.typ, hi))
	}
	stmt := fmt.Sprintf("DELETE FROM %s WHERE %s", t.name, where)
	return rqOp{cql: stmt, apply: func(m *rqModel) {
		p := m.partition(pk, false)
		if p == nil {
			return
		}
		for k, r := range p.rows {
			if rqCompareClustering(t.ck[:n], r.ck[:n], ck[:n]) != 0 {
				continue
			}
			v := r.ck[n]
			if withLo && !rqBoundHolds(rqCompare(sliceCol.typ, v, lo), true, loIncl) {
				continue
			}
			if withHi && !rqBoundHolds(rqCompare(sliceCol.typ, v, hi), false, hiIncl) {
				continue
			}
			delete(p.rows, k)
		}
		m.prune()
	}}
}

// rqBoundHolds reports whether cmp (value compared with the bound) passes a
// start (lower) or end (upper) bound.
func rqBoundHolds(cmp int, start, inclusive bool) bool {
	if cmp == 0 {
		return inclusive
	}
	return (cmp > 0) == start
}

func (w *rqWriter) deletePartition() rqOp {
	pk := w.pk()
	return w.deletePartitionOf(pk, fmt.Sprintf("DELETE FROM %s WHERE %s", w.t.name, rqKeyWhere(w.t.pk, pk)))
}

func (w *rqWriter) deletePartitionOf(pk []rqValue, stmt string) rqOp {
	return rqOp{cql: stmt, apply: func(m *rqModel) {
		delete(m.parts, rqKeyString(m.t.pk, pk))
	}}
}

// rqIndexTarget lists the columns an index may be created on: regular and
// static columns (a set gets a values() index), clustering columns, and a
// component of a composite partition key.
func rqIndexTargets(t *rqTable) []*rqColumn {
	out := append(append([]*rqColumn{}, t.regulars...), t.statics...)
	out = append(out, t.ck...)
	if len(t.pk) > 1 {
		out = append(out, t.pk...)
	}
	return out
}

// indexOp is CREATE INDEX on c (it changes no data).
func indexOp(t *rqTable, c *rqColumn) rqOp {
	return rqOp{cql: fmt.Sprintf("CREATE INDEX %s_%s_idx ON %s (%s)", t.name, c.name, t.name, c.name), apply: func(*rqModel) {}}
}

// splitOpFor is an operator split action on one partition of the model.
func (w *rqWriter) splitOpFor() rqOp {
	pk := w.pk()
	op := []string{"split", "split", "split", "revert", "merge"}[w.r.Intn(5)]
	strategy := ""
	if op == "split" {
		strategy = []string{"range", "hash", "rollover"}[w.r.Intn(3)]
	}
	return rqOp{splitOp: op, splitKey: rqKeyString(w.t.pk, pk), strategy: strategy, apply: func(*rqModel) {}}
}
