package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/engine"
)

// This file holds the servers the random query test compares with the
// reference: an engine in-process (unsplit, or with its partitions split by
// operator actions), and a node behind a gocql driver
// (random_query_driver_test.go).

// rqOutcome is a target's answer to a query: the rows of every page in
// order and the size of each page (targets that see the pages), or the
// error.
type rqOutcome struct {
	rows  [][]rqValue
	pages []int
	err   error
	code  string // error code, "Invalid 0x2200" style
	msg   string
	// inconclusive: a reference Cassandra failed internally (its GROUP BY
	// paging over range tombstones trips RTBoundCloser in 5.0.6); such an
	// answer says nothing about the test's rules.
	inconclusive bool
}

// rqTarget is a server under test.
type rqTarget interface {
	name() string
	// exec runs a write (with its client timestamp) or DDL (ts 0).
	exec(stmt string, ts int64) error
	// query runs q with the page size (0: unpaged), fetching every page.
	query(q *rqQuery, pageSize int) rqOutcome
	// split runs an operator split action; targets without a split layer
	// ignore it. finish runs the migrations under way to their end.
	split(table string, op rqOp)
	finish()
	// splitPartitions counts a table's split partitions, and those with a
	// migration under way (for the test's own check that splits happen).
	splitPartitions(table string) (split, moving int)
}

// rqEngineTarget runs statements in-process through a session.
type rqEngineTarget struct {
	label  string
	h      *cqltest.Harness
	splits bool
}

func newRQEngineTarget(t *testing.T, label string, split bool) *rqEngineTarget {
	cfg := engine.DefaultConfig()
	cfg.SplitTick, cfg.GCInterval = 0, 0
	cfg.Split.Enabled = false
	if split {
		// Operator splits cut partitions into children of a few rows, so
		// that the small partitions the test writes span several children.
		cfg.Split.MaxRows, cfg.Split.ChunkRows = 3, 2
	}
	h := cqltest.NewWithConfig(t, cfg)
	tg := &rqEngineTarget{label: label, h: h, splits: split}
	for _, s := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"USE ks",
	} {
		if err := tg.exec(s, 0); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return tg
}

func (e *rqEngineTarget) name() string { return e.label }

func (e *rqEngineTarget) exec(stmt string, ts int64) error {
	opts := &engine.Options{}
	if ts != 0 {
		opts.Timestamp, opts.HasTimestamp = ts, true
	}
	_, err := e.h.Session.Query(context.Background(), stmt, opts)
	return err
}

func (e *rqEngineTarget) query(q *rqQuery, pageSize int) rqOutcome {
	var out rqOutcome
	sels := q.selectors()
	opts := &engine.Options{PageSize: int32(pageSize)}
	for page := 0; page < 100_000; page++ {
		res, err := e.h.Session.Query(context.Background(), q.cql(), opts)
		if err != nil {
			ce := cqlerr.As(err)
			out.err, out.code, out.msg = err, ce.Code.String(), ce.Message
			return out
		}
		if len(res.Columns) != len(sels) {
			out.err = fmt.Errorf("%d result columns, want %d", len(res.Columns), len(sels))
			out.code = "columns"
			return out
		}
		for _, row := range res.Rows {
			vals := make([]rqValue, len(row))
			for i, cell := range row {
				v, err := rqDecode(sels[i].typ(), cell)
				if err != nil {
					v = fmt.Sprintf("<%v: %x>", err, cell)
				}
				vals[i] = v
			}
			out.rows = append(out.rows, vals)
		}
		out.pages = append(out.pages, len(res.Rows))
		if res.PagingState == nil {
			return out
		}
		opts.PagingState = res.PagingState
	}
	out.err, out.code = fmt.Errorf("paging does not end"), "paging"
	return out
}

func (e *rqEngineTarget) split(table string, op rqOp) {
	if e.splits {
		// Refusals (reverting a partition that is not split, splitting an
		// empty one) are part of the game.
		_ = e.h.Engine.SplitOperation(context.Background(), op.splitOp, "ks", table, op.splitKey, op.strategy)
	}
}

func (e *rqEngineTarget) finish() {
	if e.splits {
		_ = e.h.Engine.StepSplits(context.Background(), 2)
	}
}

func (e *rqEngineTarget) splitPartitions(table string) (split, moving int) {
	for _, info := range e.h.Engine.SplitStatus() {
		if info.Keyspace == "ks" && info.Table == table {
			split++
			if info.State != "active" {
				moving++
			}
		}
	}
	return split, moving
}

// rqScenario is one table and everything done to it before the queries.
type rqScenario struct {
	t   *rqTable
	ops []rqOp
	// finishSplits: run the split migrations to their end after the ops
	// (otherwise some stay under way while the queries run).
	finishSplits bool
}

// model replays the scenario's writes on a fresh model.
func (sc *rqScenario) model() *rqModel {
	m := newRQModel(sc.t)
	for _, op := range sc.ops {
		op.apply(m)
		m.prune()
	}
	return m
}

// indexed lists the columns with an index.
func (sc *rqScenario) indexed() map[string]bool {
	out := map[string]bool{}
	for _, op := range sc.ops {
		if strings.HasPrefix(op.cql, "CREATE INDEX") {
			name := op.cql[strings.LastIndex(op.cql, "(")+1 : len(op.cql)-1]
			out[name] = true
		}
	}
	return out
}

// withName is the scenario on a table of another name (shrinking replays a
// scenario on fresh tables). Generated names never occur inside another
// identifier or a value, so a textual replacement is exact.
func (sc *rqScenario) withName(name string) *rqScenario {
	t := *sc.t
	t.name = name
	out := &rqScenario{t: &t, finishSplits: sc.finishSplits}
	for _, op := range sc.ops {
		op.cql = strings.ReplaceAll(op.cql, sc.t.name, name)
		out.ops = append(out.ops, op)
	}
	return out
}

// setup creates the scenario's table on a target and replays its ops, each
// write with its own, increasing client timestamp.
func (sc *rqScenario) setup(tg rqTarget) error {
	if err := tg.exec(sc.t.createCQL(), 0); err != nil {
		return fmt.Errorf("%s: %w", sc.t.createCQL(), err)
	}
	ts := int64(1_000_000)
	for _, op := range sc.ops {
		if op.splitOp != "" {
			tg.split(sc.t.name, op)
			continue
		}
		ts += 10
		stamp := ts
		if strings.HasPrefix(op.cql, "CREATE INDEX") {
			stamp = 0
		}
		if err := tg.exec(op.cql, stamp); err != nil {
			return fmt.Errorf("%s: %w", op.cql, err)
		}
	}
	if sc.finishSplits {
		tg.finish()
	}
	return nil
}

// rqBuildScenario draws a table's history: indexes created before or
// after the data, writes, and split actions in between.
func rqBuildScenario(w *rqWriter) *rqScenario {
	sc := &rqScenario{t: w.t, finishSplits: w.r.Intn(2) == 0}
	targets := rqIndexTargets(w.t)
	var indexes []rqOp
	for i, n := 0, w.r.Intn(3); i < n; i++ {
		c := targets[w.r.Intn(len(targets))]
		dup := false
		for _, ix := range indexes {
			dup = dup || strings.HasSuffix(ix.cql, "("+c.name+")")
		}
		if !dup {
			indexes = append(indexes, indexOp(w.t, c))
		}
	}
	writes := 10 + w.r.Intn(70)
	for i := 0; i < writes; i++ {
		if len(indexes) > 0 && w.r.Intn(writes) < 2 {
			sc.ops = append(sc.ops, indexes[0])
			indexes = indexes[1:]
		}
		if w.r.Intn(12) == 0 {
			sc.ops = append(sc.ops, w.splitOpFor())
		}
		sc.ops = append(sc.ops, w.write())
	}
	sc.ops = append(sc.ops, indexes...)
	return sc
}
