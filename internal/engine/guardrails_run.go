package engine

import (
	"context"
	"time"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/exec"
	"github.com/partita-db/partita/internal/plan"
)

// run executes a plan within the node's limits: the guardrails that judge
// the statement before it runs, the checks of what it writes (guardrails
// and the per-partition write rate, through exec's WriteCheck), and its
// request timeout.
func (s *Session) run(ctx context.Context, p plan.Statement, opts *Options, fp uint64, origin bindOrigin) (*Result, error) {
	if opts == nil {
		opts = &Options{}
	}
	e := s.engine
	g := s.newGuard()
	if g.g != nil {
		if err := g.checkStatement(p, boundBytes(p, opts, origin), opts, e.catalog.Current()); err != nil {
			return nil, err
		}
	}
	ctx = e.withWriteCheck(ctx, g)
	res, err := e.timeoutOf(p, opts).run(ctx, func(ctx context.Context) (*Result, error) {
		return s.runPlan(ctx, p, opts, fp, origin)
	})
	return withGuardWarnings(res, g), err
}

// runBatchLimited is run for a BATCH message's statements.
func (s *Session) runBatchLimited(ctx context.Context, b *BatchRequest, items []execItem) (*Result, error) {
	e := s.engine
	g := s.newGuard()
	whole := &plan.Batch{}
	for _, it := range items {
		whole.Statements = append(whole.Statements, it.m)
		if g.g != nil {
			vals := make([]boundValue, len(it.vals))
			for i, v := range it.vals {
				vals[i] = v.Bytes
			}
			if err := g.checkModify(it.m, vals); err != nil {
				return nil, err
			}
		}
	}
	whole.Type = ast.BatchType(b.Type)
	ctx = e.withWriteCheck(ctx, g)
	res, err := e.timeoutOf(whole, &Options{Consistency: b.Consistency, SerialConsistency: b.SerialConsistency}).run(ctx,
		func(ctx context.Context) (*Result, error) { return e.runBatch(ctx, b, items) })
	return withGuardWarnings(res, g), err
}

// newGuard returns the statement's guard: its guardrails (none when the
// session's role is not guarded) and the warnings they and the write-rate
// guard add.
func (s *Session) newGuard() *guard {
	if !s.guardrailsApply() {
		return &guard{}
	}
	return &guard{g: &s.engine.cfg.Guardrails}
}

// withGuardWarnings puts the guardrails' warnings before the statement's
// own, in the order Cassandra's ClientWarn collects them.
func withGuardWarnings(res *Result, g *guard) *Result {
	if res == nil || len(g.warnings) == 0 {
		return res
	}
	res.Warnings = append(append([]string(nil), g.warnings...), res.Warnings...)
	return res
}

// boundBytes are the values bound to p's markers (nil when they do not
// bind: the statement then reports that itself).
func boundBytes(p plan.Statement, opts *Options, origin bindOrigin) []boundValue {
	var vars []plan.BindVar
	switch p := p.(type) {
	case *plan.Select:
		vars = p.Vars
	case *plan.Modify:
		vars = p.Vars
	case *plan.Batch:
		vars = p.Vars
	default:
		return nil
	}
	vals, err := bindValues(vars, opts, origin)
	if err != nil {
		return nil
	}
	out := make([]boundValue, len(vals))
	for i, v := range vals {
		out[i] = v.Bytes
	}
	return out
}

// withWriteCheck makes the statement's writes pass the guardrails on the
// values they write and the per-partition write rate before they apply.
func (e *Engine) withWriteCheck(ctx context.Context, g *guard) context.Context {
	if g.g == nil && e.writeRate == nil {
		return ctx
	}
	return exec.WithWriteCheck(ctx, func(_ []*plan.Modify, muts []backend.Mutation) error {
		schema := e.catalog.Current()
		if g.g != nil {
			if err := g.checkMutations(schema, muts); err != nil {
				return err
			}
		}
		if e.writeRate == nil {
			return nil
		}
		warnings, err := e.writeRate.check(schema, muts, time.Now())
		g.warnings = append(g.warnings, warnings...)
		return err
	})
}
