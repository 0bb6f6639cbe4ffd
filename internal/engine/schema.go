package engine

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/describe"
	"github.com/partita-db/partita/internal/plan"
)

// runSchema runs a schema statement through the catalog.
func (e *Engine) runSchema(ctx context.Context, p plan.Statement) (*Result, error) {
	var res catalog.Result
	var err error
	c := e.catalog
	switch p := p.(type) {
	case *plan.CreateKeyspace:
		res, err = c.CreateKeyspace(ctx, p.Spec)
	case *plan.AlterKeyspace:
		res, err = c.AlterKeyspace(ctx, p.Spec)
	case *plan.DropKeyspace:
		res, err = c.DropKeyspace(ctx, p.Name, p.IfExists)
	case *plan.CreateTable:
		res, err = c.CreateTable(ctx, p.Spec)
	case *plan.AlterTable:
		res, err = c.AlterTable(ctx, p.Spec)
	case *plan.DropTable:
		res, err = c.DropTable(ctx, p.Keyspace, p.Name, p.IfExists)
	case *plan.CreateType:
		res, err = c.CreateType(ctx, p.Spec)
	case *plan.DropType:
		res, err = c.DropType(ctx, p.Keyspace, p.Name, p.IfExists)
	case *plan.AlterType:
		res, err = c.AlterType(ctx, p.Spec)
	case *plan.CreateIndex:
		var ix *catalog.Index
		res, ix, err = c.CreateIndex(ctx, p.Spec)
		if err == nil && ix != nil {
			err = e.buildIndex(ctx, p.Spec.Keyspace, p.Spec.Table, ix)
		}
	case *plan.DropIndex:
		res, err = c.DropIndex(ctx, p.Keyspace, p.Name, p.IfExists)
	case *plan.CreateView:
		if !e.cfg.MaterializedViewsEnabled {
			return nil, cqlerr.Invalidf("Materialized views are disabled. Enable in cassandra.yaml to use.")
		}
		var view *catalog.Table
		res, view, err = c.CreateView(ctx, p.Spec)
		if err == nil && view != nil {
			err = e.buildView(ctx, view)
		}
	case *plan.AlterView:
		res, err = c.AlterView(ctx, p.Keyspace, p.Name, p.IfExists, p.Properties)
	case *plan.DropView:
		res, err = c.DropView(ctx, p.Keyspace, p.Name, p.IfExists)
	case *plan.CreateFunction:
		if !e.cfg.UserDefinedFunctionsEnabled {
			return nil, cqlerr.Invalidf("User-defined functions are disabled in cassandra.yaml - set user_defined_functions_enabled=true to enable")
		}
		return nil, cqlerr.Invalidf("User-defined functions are not supported: Partita cannot run Java (or any other) UDF language")
	case *plan.NoOp:
		return &Result{Kind: ResultVoid}, nil
	case *plan.Describe:
		return e.describe(p)
	case *plan.Truncate:
		if err := c.Truncate(ctx, p.Table); err != nil {
			return nil, err
		}
		if ks := c.Current().Keyspace(p.Table.Keyspace); ks != nil {
			for _, v := range ks.ViewsOf(p.Table.Name) {
				if err := c.Truncate(ctx, v); err != nil {
					return nil, err
				}
			}
		}
		return &Result{Kind: ResultVoid}, nil
	default:
		return nil, cqlerr.Serverf("unexpected plan %T", p)
	}
	if err != nil {
		return nil, err
	}
	if res.Change == nil {
		return &Result{Kind: ResultVoid, Warnings: res.Warnings}, nil
	}
	return &Result{Kind: ResultSchemaChange, Change: res.Change, Warnings: res.Warnings}, nil
}

// errNotInBatch refuses a statement other than INSERT, UPDATE and DELETE in
// a protocol BATCH (BatchMessage.execute).
func errNotInBatch() error {
	return cqlerr.Invalidf("Invalid statement in batch: only UPDATE, INSERT and DELETE statements are allowed.")
}

// Batch runs a BATCH request.
func (s *Session) Batch(ctx context.Context, b *BatchRequest) (res *Result, err error) {
	e := s.engine
	defer e.stmtStats.recordRun(s.Keyspace(), "", e.batchStatement(b), time.Now(), &res, &err)
	ctx, tr := e.traceBatch(ctx, b)
	if tr != nil {
		defer e.finishTrace(tr)
	}
	e.writeGate.RLock()
	defer e.writeGate.RUnlock()
	ks := s.Keyspace()
	items := make([]execItem, 0, len(b.Statements))
	for _, st := range b.Statements {
		var p plan.Statement
		if st.ID != nil {
			ps := e.prepared.get(st.ID)
			if ps == nil {
				return nil, cqlerr.NewUnprepared(st.ID)
			}
			if isRoleStatement(ps.stmt) {
				return nil, errNotInBatch()
			}
			var err error
			if p, err = e.currentPlan(ps); err != nil {
				return nil, err
			}
		} else {
			stmt, err := parseStatement(st.Query)
			if err != nil {
				return nil, err
			}
			if isRoleStatement(stmt) {
				return nil, errNotInBatch()
			}
			if p, err = plan.Plan(stmt, e.catalog.Current(), ks); err != nil {
				return nil, err
			}
		}
		m, ok := p.(*plan.Modify)
		if !ok {
			return nil, errNotInBatch()
		}
		if err := s.authorize(m); err != nil {
			return nil, err
		}
		vals, err := bindValues(m.Vars, &Options{Values: st.Values, Names: st.Names}, bindBatch)
		if err != nil {
			return nil, err
		}
		items = append(items, execItem{m, vals})
	}
	if b.ClientLevels {
		stmts := make([]*plan.Modify, len(items))
		for i, it := range items {
			stmts[i] = it.m
		}
		if err := checkLevels(e.catalog.Current(), &plan.Batch{Statements: stmts}, b.Consistency, b.SerialConsistency); err != nil {
			return nil, err
		}
	}
	return s.runBatchLimited(withLevels(ctx, b.Consistency, b.SerialConsistency), b, items)
}

// buildIndex writes the entries of a new index for the rows already in its
// table. Writes that started before the index existed are drained first
// (they hold the write gate), so every row is either seen here or indexed
// by its own write.
func (e *Engine) buildIndex(ctx context.Context, keyspace, table string, ix *catalog.Index) error {
	e.writeGate.Lock()
	e.writeGate.Unlock() //nolint:staticcheck // an empty critical section drains in-flight writes
	t := e.catalog.Current().Table(keyspace, table)
	if t == nil {
		return nil
	}
	return e.exec.BuildIndex(ctx, t, ix)
}

// buildView writes the rows of a new materialized view for the rows
// already in its base table. It holds the write gate throughout: writes
// planned before the view existed are drained first, and later ones,
// which maintain the view themselves, wait for the build.
func (e *Engine) buildView(ctx context.Context, view *catalog.Table) error {
	e.writeGate.Lock()
	defer e.writeGate.Unlock()
	s := e.catalog.Current()
	base := s.Table(view.Keyspace, view.View.Base)
	if v := s.Table(view.Keyspace, view.Name); base == nil || v == nil {
		return nil
	} else {
		view = v
	}
	return e.exec.BuildView(ctx, base, view)
}

// describe answers DESCRIBE from the current schema, as a result set named
// system.describe (DescribeStatement.java).
func (e *Engine) describe(p *plan.Describe) (*Result, error) {
	cluster := describe.Cluster{Name: e.cfg.ClusterName, Partitioner: describe.DefaultPartitioner,
		Snitch: describe.DefaultSnitch, RangeOwnership: e.rangeOwnership}
	r, err := describe.DescribeWith(e.catalog.Current(), p.Keyspace, p.Stmt, cluster)
	if err != nil {
		return nil, err
	}
	res := &Result{Kind: ResultRows, Rows: r.Values()}
	for i, name := range r.Columns {
		res.Columns = append(res.Columns, Column{Keyspace: describe.ResultKeyspace, Table: describe.ResultTable,
			Name: name, Type: r.ColumnTypes()[i]})
	}
	return res, nil
}

// rangeOwnership is this node's ownership of the ring: every token range
// is its own on one node.
func (e *Engine) rangeOwnership(string) map[string][]string {
	addr := fmt.Sprintf("%s:%d", e.node.RPCAddress, e.node.NativePort)
	out := map[string][]string{}
	for _, t := range e.node.Tokens {
		out[strconv.FormatInt(t, 10)] = []string{addr}
	}
	return out
}
