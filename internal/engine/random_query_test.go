package engine_test

import (
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRandomQueries compares Partita's answers to random SELECTs with a
// reference evaluator. Each scenario draws a schema (partition key of 1-2
// columns, 0-3 clustering columns in random order, statics, regular
// columns of int, bigint, text, timestamp, uuid, set<int>), writes to it
// (inserts, updates, row, range and partition deletes, nulls), sometimes
// indexes columns before or after the data, and splits partitions on one
// of the two servers. Then it draws SELECTs over every restriction form,
// with ALLOW FILTERING where Cassandra needs it, ORDER BY, GROUP BY,
// aggregates, DISTINCT, LIMIT and PER PARTITION LIMIT, runs each unpaged
// and at random page sizes on an unsplit and a split server, and demands
// the reference's rows, or Cassandra's refusal (random_query_rules_test.go).
//
// It runs for PARTITA_RANDOM_QUERY_DURATION (default 60s, shared with
// TestRandomQueriesOverDriver) from PARTITA_RANDOM_QUERY_SEED (default: the
// clock; the seed is logged). A divergence is shrunk (fewer writes, a
// smaller query, unpaged if it still diverges) and printed as a repro with
// a datadriven case for testdata/random_repros.
func TestRandomQueries(t *testing.T) {
	if testing.Short() {
		t.Skip("randomized comparison; runs for a fixed time")
	}
	cfg := rqConfigFromEnv(t)
	run := newRQRun(t, cfg.seed, 0)
	targets := []rqTarget{newRQEngineTarget(t, "unsplit", false), newRQEngineTarget(t, "split", true)}
	run.runFor(cfg, cfg.duration*5/6, targets)
	run.report()
	if run.scenarios >= 20 && run.splitSeen == 0 {
		t.Errorf("no partition was split in %d scenarios: the split server tests nothing", run.scenarios)
	}
}

type rqConfig struct {
	seed     int64
	duration time.Duration
	scenario int // only this scenario (PARTITA_RANDOM_QUERY_SCENARIO), or -1
}

func rqConfigFromEnv(t *testing.T) rqConfig {
	cfg := rqConfig{seed: time.Now().UnixNano(), duration: 60 * time.Second, scenario: -1}
	if s := os.Getenv("PARTITA_RANDOM_QUERY_SEED"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("PARTITA_RANDOM_QUERY_SEED: %v", err)
		}
		cfg.seed = n
	}
	if s := os.Getenv("PARTITA_RANDOM_QUERY_DURATION"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("PARTITA_RANDOM_QUERY_DURATION: %v", err)
		}
		cfg.duration = d
	}
	if s := os.Getenv("PARTITA_RANDOM_QUERY_SCENARIO"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("PARTITA_RANDOM_QUERY_SCENARIO: %v", err)
		}
		cfg.scenario = n
	}
	t.Logf("PARTITA_RANDOM_QUERY_SEED=%d PARTITA_RANDOM_QUERY_DURATION=%s", cfg.seed, cfg.duration)
	return cfg
}

// runFor runs scenarios on the targets until the budget is spent (at least
// two), or only the scenario cfg names.
func (run *rqRun) runFor(cfg rqConfig, budget time.Duration, targets []rqTarget) {
	if cfg.scenario >= 0 {
		run.scenario(cfg.scenario, targets)
		return
	}
	deadline := time.Now().Add(budget)
	for i := 0; i < 2 || time.Now().Before(deadline); i++ {
		run.scenario(i, targets)
	}
}

// rqRun is one test run: its seed and what it saw.
type rqRun struct {
	t            *testing.T
	seed         int64
	salt         int64 // keeps the driver test's scenarios apart from the in-process ones
	scenarios    int
	queries      int // query executions compared
	refusals     int // of which Cassandra refuses the query
	unsure       map[string]int
	msgDiffs     map[string]int // refusals with another message than Cassandra's (not a failure)
	short        int            // non-final pages shorter than the page size
	inconclusive int            // answers a reference Cassandra failed to give
	splitSeen    int            // scenarios with split partitions when queried
	splitMoving  int            // of which with a migration under way
	known        map[string]int
	shapes       map[string]int // shrunk divergences by kind and query shape
	coverage     map[string]int // compared executions by query feature
	failures     int
	shrunk       int
	tableSeq     int
}

// rqMaxShrinks bounds the divergences shrunk and printed per run; later
// ones are only counted.
const rqMaxShrinks = 6

func newRQRun(t *testing.T, seed, salt int64) *rqRun {
	return &rqRun{t: t, seed: seed, salt: salt, unsure: map[string]int{}, msgDiffs: map[string]int{}, known: map[string]int{}, shapes: map[string]int{}, coverage: map[string]int{}}
}

// scenario draws a table and its data, sets it up on every target, and
// compares a batch of queries.
func (run *rqRun) scenario(i int, targets []rqTarget) {
	r := rand.New(rand.NewSource((run.seed^run.salt)*1_000_003 + int64(i)))
	table := rqRandomTable(r, fmt.Sprintf("rq%d", i))
	sc := rqBuildScenario(newRQWriter(r, table))
	for _, tg := range targets {
		if err := sc.setup(tg); err != nil {
			run.t.Fatalf("scenario %d on %s: %v\n%s", i, tg.name(), err, rqReproScript(sc))
		}
		if split, moving := tg.splitPartitions(table.name); split > 0 {
			run.splitSeen++
			if moving > 0 {
				run.splitMoving++
			}
		}
	}
	run.scenarios++
	m, indexed := sc.model(), sc.indexed()
	g := &rqGen{r: r, t: table, m: m, indexed: indexed}
	for n := 0; n < 30; n++ {
		q, v := rqDrawQuery(g, indexed)
		if v.unsure == "" {
			v.unsure = rqUnsureData(m, q, v)
		}
		if v.unsure != "" {
			run.unsure[v.unsure]++
			continue
		}
		pages := []int{0, 1 + r.Intn(50)}
		if r.Intn(3) == 0 {
			pages = append(pages, 1+r.Intn(3))
		}
		run.checkQuery(targets, sc, m, q, v, pages, i)
	}
	for _, tg := range targets {
		if err := tg.exec("DROP TABLE "+table.name, 0); err != nil {
			run.t.Fatalf("DROP TABLE %s on %s: %v", table.name, tg.name(), err)
		}
	}
}

// rqDrawQuery draws a query and its verdict. Most queries Cassandra
// refuses are redrawn (one in four is kept to check that Partita refuses
// it too); a query refused only for lack of ALLOW FILTERING mostly gets it.
func rqDrawQuery(g *rqGen, indexed map[string]bool) (*rqQuery, rqVerdict) {
	for {
		q := g.query()
		v := rqCheck(q, indexed)
		if !v.ok && v.msg == rqMsgAllowFiltering && g.r.Intn(8) != 0 {
			q.allowFiltering = true
			v = rqCheck(q, indexed)
		}
		if v.ok || v.unsure != "" || g.r.Intn(4) == 0 {
			return q, v
		}
	}
}

// rqDivergence is a difference between a target and the reference.
type rqDivergence struct {
	kind      string
	want, got string
}

// rqCompareOutcome compares a target's outcome with the verdict and the
// reference rows; nil means they agree.
func rqCompareOutcome(q *rqQuery, v rqVerdict, want [][]rqValue, page int, out rqOutcome) (*rqDivergence, string) {
	refuse, msg := !v.ok, v.msg
	if v.ok && v.postSort && page > 0 {
		// Cassandra answers no rows to an empty read (rqVerdict.emptyRead);
		// the refusal it gives to every other read is taken here too.
		if v.emptyRead && out.err == nil && len(out.rows) == 0 {
			return nil, ""
		}
		refuse, msg = true, rqMsgPagedInOrderBy
	}
	if refuse {
		switch {
		case out.err == nil:
			return &rqDivergence{kind: "accepts a query Cassandra refuses", want: "error: " + msg, got: rqRowsText(q, out.rows)}, ""
		case out.code != "Invalid 0x2200":
			return &rqDivergence{kind: "refuses with another error code", want: "Invalid 0x2200: " + msg, got: out.code + ": " + out.msg}, ""
		case out.msg != msg:
			return nil, fmt.Sprintf("want: %s\n  got:  %s", msg, out.msg)
		}
		return nil, ""
	}
	if out.err != nil {
		return &rqDivergence{kind: "refuses a query Cassandra accepts", want: rqRowsText(q, want), got: out.code + ": " + out.msg}, ""
	}
	if w, g := rqRowsText(q, want), rqRowsText(q, out.rows); w != g {
		return &rqDivergence{kind: "wrong rows", want: w, got: g}, ""
	}
	for _, n := range out.pages {
		if page > 0 && n > page {
			return &rqDivergence{kind: "page larger than the page size", want: fmt.Sprintf("pages of at most %d rows", page), got: fmt.Sprint(out.pages)}, ""
		}
	}
	return nil, ""
}

// rqRowsText prints rows for comparison, one per line.
func rqRowsText(q *rqQuery, rows [][]rqValue) string {
	sels := q.selectors()
	var b strings.Builder
	for _, row := range rows {
		for i, v := range row {
			if i > 0 {
				b.WriteString(" | ")
			}
			if s, ok := v.(string); ok && strings.HasPrefix(s, "<") {
				b.WriteString(s) // undecodable cell
				continue
			}
			b.WriteString(rqFormat(sels[i].typ(), v))
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "(%d rows)", len(rows))
	return b.String()
}

// checkQuery runs one query on every target at every page size, records
// what differs from the reference, and shrinks the first divergence.
func (run *rqRun) checkQuery(targets []rqTarget, sc *rqScenario, m *rqModel, q *rqQuery, v rqVerdict, pages []int, scenario int) {
	want := rqEvaluate(m, q, v)
	for _, tg := range targets {
		for _, page := range pages {
			out := tg.query(q, page)
			if out.inconclusive {
				run.inconclusive++
				continue
			}
			run.queries++
			for _, f := range rqFeatures(q, v, page) {
				run.coverage[f]++
			}
			if !v.ok {
				run.refusals++
			}
			d, msgDiff := rqCompareOutcome(q, v, want, page, out)
			if msgDiff != "" {
				if run.msgDiffs[msgDiff]++; run.msgDiffs[msgDiff] == 1 {
					run.t.Logf("refused with another message (not a failure): %s\n  %s", q.cql(), msgDiff)
				}
			}
			if d == nil {
				run.countShortPages(out, page)
				continue
			}
			if k := rqKnown(&rqKnownCtx{sc: sc, m: m, q: q, v: v, d: d, out: out, page: page}); k != nil {
				if run.known[k.name]++; run.known[k.name] == 1 {
					run.t.Logf("known divergence %q (%s) seen first in scenario %d on %s: %s", k.name, k.repro, scenario, tg.name(), q.cql())
				}
				return
			}
			run.diverged(tg, sc, q, page, scenario, d)
			return
		}
	}
}

// diverged fails the test with a shrunk repro, once per shape of shrunk
// query (later ones with the same shape are only counted).
func (run *rqRun) diverged(tg rqTarget, sc *rqScenario, q *rqQuery, page, scenario int, d *rqDivergence) {
	run.failures++
	if run.shrunk >= rqMaxShrinks {
		run.t.Errorf("divergence (%s) in scenario %d on %s, page size %d: %s (not shrunk: %d already)\n-- want:\n%s\n-- got:\n%s", d.kind, scenario, tg.name(), page, q.cql(), rqMaxShrinks, d.want, d.got)
		return
	}
	text, shape := run.shrinkAndPrint(tg, sc, q, page, scenario, d)
	if run.shapes[shape]++; run.shapes[shape] > 1 {
		run.t.Errorf("divergence (%s) in scenario %d on %s, page size %d: %s (shrinks to a shape already reported: %s)", d.kind, scenario, tg.name(), page, q.cql(), shape)
		return
	}
	run.shrunk++
	run.t.Errorf("%s", text)
}

func (run *rqRun) countShortPages(out rqOutcome, page int) {
	if page == 0 {
		return
	}
	for i, n := range out.pages {
		if i < len(out.pages)-1 && n < page {
			run.short++
			return
		}
	}
}

// report logs what the run covered.
func (run *rqRun) report() {
	var unsure []string
	for k, n := range run.unsure {
		unsure = append(unsure, fmt.Sprintf("%s: %d", k, n))
	}
	sort.Strings(unsure)
	run.t.Logf("seed %d: %d scenarios, %d query executions compared (%d expected refusals), %d with short pages; %d scenarios queried split partitions, %d with a migration under way",
		run.seed, run.scenarios, run.queries, run.refusals, run.short, run.splitSeen, run.splitMoving)
	run.t.Logf("not run (outside the modelled rules): %s", strings.Join(unsure, "; "))
	if run.inconclusive > 0 {
		run.t.Logf("%d executions the reference Cassandra failed internally (not compared)", run.inconclusive)
	}
	var cov []string
	for k, n := range run.coverage {
		cov = append(cov, fmt.Sprintf("%s: %d", k, n))
	}
	sort.Strings(cov)
	run.t.Logf("executions by feature: %s", strings.Join(cov, "; "))
	for name, n := range run.known {
		run.t.Logf("known divergence %q: %d executions", name, n)
	}
	if run.failures > 0 {
		run.t.Logf("%d executions diverged; rerun with PARTITA_RANDOM_QUERY_SEED=%d", run.failures, run.seed)
	}
}

// rqFeatures names what a query exercises, for the coverage log.
func rqFeatures(q *rqQuery, v rqVerdict, page int) []string {
	var out []string
	add := func(ok bool, name string) {
		if ok {
			out = append(out, name)
		}
	}
	rels := rqSplitRelations(q)
	add(!v.ok, "refused")
	add(v.keyRange, "range scan")
	add(rels.token != nil, "token")
	add(v.usesIndex, "index")
	add(rqClusteringNeedsFiltering(rels.ck), "clustering filtered")
	add(len(rels.ck) > 0 && !rqClusteringNeedsFiltering(rels.ck), "clustering slices")
	for _, r := range q.rels {
		add(r.multi, "tuple relation")
		add(r.kind == relContains, "CONTAINS")
		add(r.kind == relIN, "IN")
		add(r.kind != relToken && r.first().kind == rqStatic, "static relation")
		add(r.kind != relToken && r.first().kind == rqRegular, "regular relation")
	}
	add(v.groupPrefix >= 0, "GROUP BY")
	add(v.aggregateAll || q.hasAggregate(), "aggregate")
	add(q.distinct, "DISTINCT")
	add(len(q.orderBy) > 0, "ORDER BY")
	add(v.postSort, "IN + ORDER BY")
	add(q.limit > 0, "LIMIT")
	add(q.ppl > 0, "PER PARTITION LIMIT")
	add(page > 0, "paged")
	add(len(q.t.statics) > 0, "statics")
	return out
}
