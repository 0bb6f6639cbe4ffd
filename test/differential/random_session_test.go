package differential_test

import (
	"fmt"
	"math/rand"
	"strings"
)

// rStmtKind says what a statement of a session does, for shrinking: reads
// change nothing, so they can always go; schema statements stay while a
// kept statement needs their table or type.
type rStmtKind int

const (
	stmtSchema rStmtKind = iota
	stmtWrite
	stmtRead
)

// rStmt is one statement of a random session.
type rStmt struct {
	text     string
	pageSize int // a SELECT is fetched this many rows a page (0: unpaged)
	kind     rStmtKind
	tables   []string // the tables it names (a CREATE TABLE: the one it creates)
	types    []string // a CREATE TYPE: the type; a CREATE TABLE: the types it uses
}

// rGen draws the statements of one session.
type rGen struct {
	r      *rand.Rand
	udt    *rUDT
	tables []*rTable
	ts     int64   // the newest USING TIMESTAMP handed out
	usedTS []int64 // every one handed out, to draw ties from
}

// genSession draws a session: its schema (a UDT sometimes, one or two
// tables and sometimes a counter table), then n statements, then a full
// read of every table so that a write that diverged shows even if no
// random read looked at it.
func genSession(r *rand.Rand, n int) []rStmt {
	g := &rGen{r: r, ts: 1000}
	var stmts []rStmt
	if r.Intn(3) == 0 {
		g.udt = genUDT("udt0")
		stmts = append(stmts, rStmt{text: g.udt.create(), kind: stmtSchema, types: []string{g.udt.name}})
	}
	names := []string{"tab_a", "tab_b"}
	for i, nt := 0, 1+r.Intn(2); i < nt; i++ {
		g.tables = append(g.tables, genTable(r, names[i], g.udt, false))
	}
	if r.Intn(4) == 0 {
		g.tables = append(g.tables, genTable(r, "cnt_c", nil, true))
	}
	for _, t := range g.tables {
		s := rStmt{text: t.create(), kind: stmtSchema, tables: []string{t.name}}
		if t.udt != nil {
			s.types = []string{t.udt.name}
		}
		stmts = append(stmts, s)
	}
	for i := 0; i < n; i++ {
		stmts = append(stmts, g.statement())
	}
	for _, t := range g.tables {
		stmts = append(stmts, rStmt{text: "SELECT * FROM " + t.name, kind: stmtRead, tables: []string{t.name}})
	}
	return stmts
}

// statement draws one statement: mostly writes and reads, some batches,
// and a few statements Cassandra refuses (whose errors must match).
func (g *rGen) statement() rStmt {
	t := g.tables[g.r.Intn(len(g.tables))]
	switch n := g.r.Intn(100); {
	case n < 45:
		return g.write(t, wOpts{})
	case n < 52:
		return g.batch(t)
	case n < 95:
		return g.read(t)
	default:
		return g.invalid(t)
	}
}

// timestamp draws a USING TIMESTAMP: mostly increasing, sometimes equal
// to an earlier one (a tie, resolved by Cassandra's reconcile rules) or
// older than the newest (a write that may lose).
func (g *rGen) timestamp() int64 {
	switch n := g.r.Intn(10); {
	case n == 0 && len(g.usedTS) > 0:
		return g.usedTS[g.r.Intn(len(g.usedTS))]
	case n == 1:
		return g.ts - 1 - int64(g.r.Intn(10))
	}
	g.ts += 1 + int64(g.r.Intn(3))
	g.usedTS = append(g.usedTS, g.ts)
	return g.ts
}

// ttl draws a TTL long enough that nothing expires during a run.
func (g *rGen) ttl() int { return 100000 + g.r.Intn(1000) }

// using renders a USING clause.
func (g *rGen) using(ttl, timestamp bool) string {
	var parts []string
	if ttl {
		parts = append(parts, fmt.Sprintf("TTL %d", g.ttl()))
	}
	if timestamp {
		parts = append(parts, fmt.Sprintf("TIMESTAMP %d", g.timestamp()))
	}
	if len(parts) == 0 {
		return ""
	}
	return " USING " + strings.Join(parts, " AND ")
}

// keyValues draws a value for each column (from the key pools).
func (g *rGen) keyValues(cols []*rColumn) []string {
	vals := make([]string, len(cols))
	for i, c := range cols {
		vals[i] = c.typ.literal(g.r, true)
	}
	return vals
}

// eqs renders col = value for each column.
func eqs(cols []*rColumn, vals []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.name + " = " + vals[i]
	}
	return out
}

// inList draws 1-3 values of a key column as an IN list, repeating
// values unless distinct.
func (g *rGen) inList(c *rColumn, distinct bool) string {
	var vals []string
	seen := map[string]bool{}
	for i, n := 0, 1+g.r.Intn(3); i < n; i++ {
		v := c.typ.literal(g.r, true)
		if !distinct || !seen[v] {
			seen[v] = true
			vals = append(vals, v)
		}
	}
	return c.name + " IN (" + strings.Join(vals, ", ") + ")"
}

// keyRelations restricts cols by equality, one of them sometimes by an IN
// (whose values may repeat).
func (g *rGen) keyRelations(cols []*rColumn, inChance int) []string {
	rels := eqs(cols, g.keyValues(cols))
	if len(cols) > 0 && g.r.Intn(100) < inChance {
		i := g.r.Intn(len(cols))
		rels[i] = g.inList(cols[i], false)
	}
	return rels
}

func where(rels []string) string {
	if len(rels) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(rels, " AND ")
}

// pick draws 1..max distinct columns of cols, in cols' order.
func (g *rGen) pick(cols []*rColumn, max int) []*rColumn {
	if len(cols) == 0 {
		return nil
	}
	n := 1 + g.r.Intn(min(max, len(cols)))
	perm := g.r.Perm(len(cols))[:n]
	var out []*rColumn
	for i, c := range cols {
		for _, p := range perm {
			if p == i {
				out = append(out, c)
			}
		}
	}
	return out
}
