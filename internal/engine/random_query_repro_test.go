package engine_test

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/partita-db/partita/internal/types"
)

// This file shrinks a divergence by hand (rapid's shrinking does not fit a
// scenario replayed on a server) and prints it as a repro: the statements,
// the query, the page size, the reference's rows and the target's, and a
// datadriven case in testdata format (internal/cqltest/doc.go).

// The work spent shrinking one divergence is bounded.
const (
	rqShrinkTrials = 300
	rqShrinkTime   = 20 * time.Second
)

// shrinker replays candidate reductions of a divergence on one target.
type shrinker struct {
	run      *rqRun
	tg       rqTarget
	base     *rqScenario
	kind     string
	trials   int
	deadline time.Time
}

// diverges replays ops on a fresh table and runs q: it returns the
// divergence when it is still of the same kind.
func (s *shrinker) diverges(ops []rqOp, q *rqQuery, page int) (*rqDivergence, *rqScenario, bool) {
	if s.trials >= rqShrinkTrials || time.Now().After(s.deadline) {
		return nil, nil, false
	}
	s.trials++
	s.run.tableSeq++
	sc := (&rqScenario{t: s.base.t, ops: ops, finishSplits: s.base.finishSplits}).withName(fmt.Sprintf("%s_s%d", s.base.t.name, s.run.tableSeq))
	q = q.clone()
	q.t = sc.t
	v := rqCheck(q, sc.indexed())
	if v.unsure != "" || rqUnsureData(sc.model(), q, v) != "" {
		return nil, nil, false
	}
	defer func() { _ = s.tg.exec("DROP TABLE "+sc.t.name, 0) }()
	if err := sc.setup(s.tg); err != nil {
		return nil, nil, false
	}
	m := sc.model()
	out := s.tg.query(q, page)
	d, _ := rqCompareOutcome(q, v, rqEvaluate(m, q, v), page, out)
	if d == nil || d.kind != s.kind || rqKnown(&rqKnownCtx{sc: sc, m: m, q: q, v: v, d: d, out: out, page: page}) != nil {
		return nil, nil, false
	}
	return d, sc, true
}

// shrinkAndPrint reduces the page size, the writes and the query while the
// divergence stays, and returns the repro text and the shrunk query's shape
// (its text without values).
func (run *rqRun) shrinkAndPrint(tg rqTarget, sc *rqScenario, q *rqQuery, page, scenario int, d *rqDivergence) (string, string) {
	s := &shrinker{run: run, tg: tg, base: sc, kind: d.kind, deadline: time.Now().Add(rqShrinkTime)}
	ops, best := sc.ops, sc
	if page > 0 {
		if dd, bsc, ok := s.diverges(ops, q, 0); ok {
			page, d, best = 0, dd, bsc
		}
	}
	for chunk := len(ops) / 2; chunk >= 1; chunk /= 2 {
		for i := 0; i+chunk <= len(ops); {
			trial := append(append([]rqOp{}, ops[:i]...), ops[i+chunk:]...)
			if dd, bsc, ok := s.diverges(trial, q, page); ok {
				ops, d, best = trial, dd, bsc
			} else {
				i += chunk
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for _, cand := range rqSimplerQueries(q) {
			if dd, bsc, ok := s.diverges(ops, cand, page); ok {
				q, d, best, changed = cand, dd, bsc, true
				break
			}
		}
	}
	q = q.clone()
	q.t = best.t
	var b strings.Builder
	fmt.Fprintf(&b, "divergence: %s\n  target %s, scenario %d (PARTITA_RANDOM_QUERY_SEED=%d PARTITA_RANDOM_QUERY_SCENARIO=%d), page size %d, shrunk in %d trials\n",
		d.kind, tg.name(), scenario, run.seed, scenario, page, s.trials)
	b.WriteString(rqReproScript(best))
	fmt.Fprintf(&b, "%s;\n-- want:\n%s\n-- got:\n%s\n", q.cql(), d.want, d.got)
	fmt.Fprintf(&b, "-- datadriven case (testdata/random_repros):\n%s", rqDatadriven(best, q, page))
	return b.String(), d.kind + ": " + rqShape(q)
}

var (
	rqShapeLiterals = regexp.MustCompile(`'[^']*'|-?\b[0-9a-f]{8}-[0-9a-f-]{27}\b|-?\b\d+\b`)
	rqShapeTable    = regexp.MustCompile(`\brq\d+(_s\d+)?\b`)
)

// rqShape is a query's text with its values and table name masked.
func rqShape(q *rqQuery) string {
	s := rqShapeLiterals.ReplaceAllString(q.cql(), "?")
	return rqShapeTable.ReplaceAllString(s, "t")
}

// rqSimplerQueries lists the queries one step simpler than q.
func rqSimplerQueries(q *rqQuery) []*rqQuery {
	var out []*rqQuery
	add := func(f func(c *rqQuery)) {
		c := q.clone()
		f(c)
		out = append(out, c)
	}
	for i := range q.rels {
		add(func(c *rqQuery) { c.rels = append(c.rels[:i:i], c.rels[i+1:]...) })
		r := q.rels[i]
		if r.lo != nil && r.hi != nil && !r.eq {
			add(func(c *rqQuery) { nr := *r; nr.lo = nil; c.rels[i] = &nr })
			add(func(c *rqQuery) { nr := *r; nr.hi = nil; c.rels[i] = &nr })
		}
		if r.kind == relIN && len(r.in) > 1 {
			add(func(c *rqQuery) { nr := *r; nr.in = r.in[:1]; c.rels[i] = &nr })
		}
	}
	if len(q.groupBy) > 0 {
		add(func(c *rqQuery) { c.groupBy = nil })
	}
	if len(q.orderBy) > 0 {
		add(func(c *rqQuery) { c.orderBy, c.orderDesc = nil, nil })
	}
	if q.limit > 0 {
		add(func(c *rqQuery) { c.limit = 0 })
	}
	if q.ppl > 0 {
		add(func(c *rqQuery) { c.ppl = 0 })
	}
	if q.allowFiltering {
		add(func(c *rqQuery) { c.allowFiltering = false })
	}
	for i := range q.sels {
		if len(q.sels) > 1 {
			add(func(c *rqQuery) { c.sels = append(c.sels[:i:i], c.sels[i+1:]...) })
		}
	}
	return out
}

// rqReproScript prints a scenario's statements; split actions are
// comments (the datadriven case has them as split commands).
func rqReproScript(sc *rqScenario) string {
	var b strings.Builder
	b.WriteString(sc.t.createCQL() + ";\n")
	for _, op := range sc.ops {
		if op.splitOp != "" {
			fmt.Fprintf(&b, "-- split op=%s key=(%s) strategy=%s\n", op.splitOp, op.splitKey, op.strategy)
			continue
		}
		b.WriteString(op.cql + ";\n")
	}
	if sc.finishSplits {
		b.WriteString("-- split-finish\n")
	}
	return b.String()
}

// rqDatadriven prints the repro as datadriven commands (on table "t"), with
// the outputs a correct Partita prints: the query's are the reference's.
func rqDatadriven(sc *rqScenario, q *rqQuery, page int) string {
	sc = sc.withName("t")
	q = q.clone()
	q.t = sc.t
	var b strings.Builder
	var stmts, outs []string
	flush := func() {
		if len(stmts) > 0 {
			fmt.Fprintf(&b, "exec\n%s\n----\n%s\n\n", strings.Join(stmts, "\n"), strings.Join(outs, "\n"))
			stmts, outs = nil, nil
		}
	}
	stmts, outs = append(stmts, sc.t.createCQL()+";"), append(outs, "created table ks.t")
	for _, op := range sc.ops {
		if op.splitOp != "" {
			flush()
			strategy := ""
			if op.strategy != "" {
				strategy = " strategy=" + op.strategy
			}
			fmt.Fprintf(&b, "split op=%s table=ks.t%s\n%s\n----\nok\n\n", op.splitOp, strategy, op.splitKey)
			continue
		}
		stmts = append(stmts, op.cql+";")
		if strings.HasPrefix(op.cql, "CREATE INDEX") {
			outs = append(outs, "updated table ks.t")
		} else {
			outs = append(outs, "ok")
		}
	}
	flush()
	if sc.finishSplits {
		b.WriteString("split-finish\n----\nok\n\n")
	}
	v := rqCheck(q, sc.indexed())
	cmd := "query"
	if page > 0 {
		cmd = fmt.Sprintf("query page-size=%d", page)
	}
	fmt.Fprintf(&b, "%s\n%s;\n----\n", cmd, q.cql())
	if !v.ok {
		fmt.Fprintf(&b, "error (Invalid 0x2200): %s\n", v.msg)
		return b.String()
	}
	b.WriteString(rqWarnings(q, v))
	b.WriteString(rqCqltestRows(q, rqEvaluate(sc.model(), q, v)))
	return b.String()
}

// rqWarnings are the client warnings Cassandra sends with an aggregation
// query (SelectStatement.execute).
func rqWarnings(q *rqQuery, v rqVerdict) string {
	if !v.aggregateAll && v.groupPrefix < 0 {
		return ""
	}
	rels := rqSplitRelations(q)
	if len(rels.pk) == 0 && rels.token == nil {
		return "warning: Aggregation query used without partition key\n"
	}
	for _, r := range rels.pk {
		if r.kind == relIN {
			return "warning: Aggregation query used on multiple partition keys (IN restriction)\n"
		}
	}
	return ""
}

// rqCqltestRows prints rows as cqltest.FormatRows does (names as Partita
// names result columns, values through types.Format).
func rqCqltestRows(q *rqQuery, rows [][]rqValue) string {
	sels := q.selectors()
	names := make([]string, len(sels))
	for i, s := range sels {
		switch {
		case s.fn == "":
			names[i] = s.col.name
		case s.col == nil:
			names[i] = "count"
		default:
			names[i] = "system." + s.cql()
		}
	}
	var b strings.Builder
	b.WriteString(strings.Join(names, " | ") + "\n")
	for _, row := range rows {
		cells := make([]string, len(row))
		for i, v := range row {
			cells[i] = rqTypesFormat(sels[i].typ(), v)
		}
		b.WriteString(strings.Join(cells, " | ") + "\n")
	}
	fmt.Fprintf(&b, "(%d rows)\n", len(rows))
	return b.String()
}

// rqTypesFormat prints a value the way the datadriven harness does.
func rqTypesFormat(t rqType, v rqValue) string {
	var typ *types.Type
	var raw []byte
	if v != nil {
		if t == rqSetInt {
			var elems [][]byte
			for _, e := range v.([]int64) {
				elems = append(elems, rqEncode(rqInt, e))
			}
			raw = types.EncodeCollection(elems)
		} else {
			raw = rqEncode(t, v)
		}
	}
	switch t {
	case rqSetInt:
		typ = types.SetOf(types.NativeByName("int"))
	default:
		typ = types.NativeByName(t.cql())
	}
	return types.Format(typ, raw)
}
