package engine

import (
	"context"
	"hash/fnv"
	"strings"
	"sync"
	"time"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cql/parser"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/exec"
	"github.com/partita-db/partita/internal/plan"
)

// Session is one client connection's state. It is not safe for concurrent
// use except through the methods below, which may be called concurrently:
// the current keyspace is the only mutable state and is guarded.
type Session struct {
	engine   *Engine
	mu       sync.Mutex
	keyspace string
	// role is the role the connection logged in as, "" when anonymous.
	role string
}

// NewSession starts a session with no current keyspace.
func (e *Engine) NewSession() *Session { return &Session{engine: e} }

// Keyspace returns the session's current keyspace.
func (s *Session) Keyspace() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keyspace
}

func (s *Session) setKeyspace(ks string) {
	s.mu.Lock()
	s.keyspace = ks
	s.mu.Unlock()
}

// Query runs one statement given as text (QUERY).
func (s *Session) Query(ctx context.Context, query string, opts *Options) (res *Result, err error) {
	defer s.engine.stmtStats.recordRun(s.Keyspace(), query, "", time.Now(), &res, &err)
	ctx, tr := s.engine.traceQuery(ctx, query, opts)
	if tr != nil {
		defer s.engine.finishTrace(tr)
	}
	trace := exec.TraceFrom(ctx)
	if trace != nil {
		trace.Event("Parsing " + query)
	}
	stmt, err := parser.Parse(query)
	if err != nil {
		return nil, err
	}
	if isRoleStatement(stmt) {
		return s.runRole(ctx, stmt)
	}
	if isWrite(stmt) {
		s.engine.writeGate.RLock()
		defer s.engine.writeGate.RUnlock()
	}
	ks := s.Keyspace()
	if trace != nil {
		trace.Event("Preparing statement")
	}
	p, err := plan.Plan(stmt, s.engine.catalog.Current(), ks)
	if err != nil {
		return nil, err
	}
	if err := s.authorize(p); err != nil {
		return nil, err
	}
	return s.run(ctx, p, opts, fingerprint(ks, query), bindQuery)
}

// isWrite reports whether a statement writes rows. Writes are planned and
// run under the engine's write gate (see buildIndex).
func isWrite(stmt ast.Statement) bool {
	switch stmt.(type) {
	case *ast.Insert, *ast.Update, *ast.Delete, *ast.Batch:
		return true
	}
	return false
}

// Prepare prepares a statement (PREPARE).
func (s *Session) Prepare(ctx context.Context, query string) (*Result, error) {
	ctx, tr := s.engine.tracePrepare(ctx, query)
	if tr != nil {
		defer s.engine.finishTrace(tr)
		tr.trace.Event("Parsing " + query)
	}
	stmt, err := parser.Parse(query)
	if err != nil {
		return nil, err
	}
	ks := s.Keyspace()
	schema := s.engine.catalog.Current()
	if isRoleStatement(stmt) {
		return s.prepareRole(stmt, query, ks, schema)
	}
	p, err := plan.Plan(stmt, schema, ks)
	if err != nil {
		return nil, err
	}
	if err := s.engine.prepared.tooLarge(query); err != nil {
		return nil, err
	}
	id := statementID(ks, query)
	s.engine.prepared.put(&prepared{id: id, query: query, keyspace: ks, stmt: stmt, schema: schema, plan: p,
		normalized: normalizedStatement(query)})
	return preparedResult(id, p), nil
}

// Execute runs a prepared statement (EXECUTE).
func (s *Session) Execute(ctx context.Context, id []byte, opts *Options) (res *Result, err error) {
	ps := s.engine.prepared.get(id)
	if ps != nil {
		defer s.engine.stmtStats.recordRun(ps.keyspace, ps.query, ps.normalized, time.Now(), &res, &err)
	}
	ctx, tr := s.engine.traceExecute(ctx, ps, opts)
	if tr != nil {
		defer s.engine.finishTrace(tr)
	}
	if ps == nil {
		return nil, cqlerr.NewUnprepared(id)
	}
	if isRoleStatement(ps.stmt) {
		// Checked as the executing session's role, at execute time.
		return s.runRole(ctx, ps.stmt)
	}
	if isWrite(ps.stmt) {
		s.engine.writeGate.RLock()
		defer s.engine.writeGate.RUnlock()
	}
	p, err := s.engine.currentPlan(ps)
	if err != nil {
		return nil, err
	}
	if err := s.authorize(p); err != nil {
		return nil, err
	}
	res, err = s.run(ctx, p, opts, fingerprintID(id), bindExecute)
	if _, isSelect := p.(*plan.Select); err == nil && isSelect && opts != nil && opts.SkipMetadata {
		res.NoMetadata = true
	}
	return res, err
}

// currentPlan returns the prepared statement's plan, re-planned if the
// schema changed since (invariant 2).
func (e *Engine) currentPlan(ps *prepared) (plan.Statement, error) {
	schema := e.catalog.Current()
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.schema != schema {
		p, err := plan.Plan(ps.stmt, schema, ps.keyspace)
		if err != nil {
			return nil, err
		}
		ps.plan, ps.schema = p, schema
	}
	return ps.plan, nil
}

func fingerprint(keyspace, query string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(keyspace))
	h.Write([]byte{0})
	h.Write([]byte(query))
	return h.Sum64()
}

func fingerprintID(id []byte) uint64 {
	h := fnv.New64a()
	h.Write(id)
	return h.Sum64()
}

// bindOrigin is the request whose values are bound: each refuses a wrong
// number of values with its own message.
type bindOrigin int

const (
	// bindQuery is a QUERY (QueryProcessor.process).
	bindQuery bindOrigin = iota
	// bindExecute is an EXECUTE (QueryProcessor.processPrepared).
	bindExecute
	// bindBatch is one statement of a BATCH message
	// (BatchMessage.execute).
	bindBatch
)

// countError is the error of a request that binds n values to a statement
// with the given number of markers.
func (o bindOrigin) countError(markers, n int) error {
	switch o {
	case bindQuery:
		return cqlerr.Invalidf("Invalid amount of bind variables")
	case bindExecute:
		return cqlerr.Invalidf("there were %d markers(?) in CQL but %d bound variables", markers, n)
	}
	return cqlerr.Invalidf("There were %d markers(?) in CQL but %d bound variables", markers, n)
}

// bindValues orders the request's values as the statement's bind
// variables, resolving named values.
func bindValues(vars []plan.BindVar, opts *Options, origin bindOrigin) ([]exec.Value, error) {
	if opts == nil {
		opts = &Options{}
	}
	if len(opts.Names) == 0 {
		if len(opts.Values) != len(vars) {
			return nil, origin.countError(len(vars), len(opts.Values))
		}
		out := make([]exec.Value, len(vars))
		for i, v := range opts.Values {
			out[i] = exec.Value{Bytes: v.Bytes, Unset: v.Unset}
		}
		return out, nil
	}
	byName := map[string]Value{}
	for i, n := range opts.Names {
		if i < len(opts.Values) {
			byName[strings.ToLower(n)] = opts.Values[i]
		}
	}
	out := make([]exec.Value, len(vars))
	for i, v := range vars {
		val, ok := byName[strings.ToLower(v.Name)]
		if !ok {
			return nil, cqlerr.Invalidf("No value found for bind variable %s", v.Name)
		}
		out[i] = exec.Value{Bytes: val.Bytes, Unset: val.Unset}
	}
	return out, nil
}

// runPlan executes a plan (run, guardrails_run.go, puts it within the
// node's limits).
func (s *Session) runPlan(ctx context.Context, p plan.Statement, opts *Options, fp uint64, origin bindOrigin) (*Result, error) {
	if opts == nil {
		opts = &Options{}
	}
	e := s.engine
	switch p.(type) {
	case *plan.Select, *plan.Modify, *plan.Batch, *plan.Explain:
	default:
		// Other statements have no markers: any value is one too many.
		if n := len(opts.Values); n > 0 {
			return nil, origin.countError(0, n)
		}
	}
	if opts.ClientLevels {
		if err := checkLevels(e.catalog.Current(), p, opts.Consistency, opts.SerialConsistency); err != nil {
			return nil, err
		}
	}
	switch p.(type) {
	case *plan.Select, *plan.Modify, *plan.Batch:
		ctx = withLevels(ctx, opts.Consistency, opts.SerialConsistency)
	}
	switch p := p.(type) {
	case *plan.Select:
		return e.runSelect(ctx, p, opts, fp, origin)
	case *plan.Explain:
		return e.runExplain(ctx, p, opts, origin)
	case *plan.Modify:
		vals, err := bindValues(p.Vars, opts, origin)
		if err != nil {
			return nil, err
		}
		req := e.request(vals, opts)
		rows, err := e.exec.Modify(ctx, p, req)
		if err != nil {
			return nil, err
		}
		return rowsOrVoid(rows), nil
	case *plan.Batch:
		vals, err := bindValues(p.Vars, opts, origin)
		if err != nil {
			return nil, err
		}
		items := make([]exec.BatchItem, len(p.Statements))
		for i, m := range p.Statements {
			items[i] = exec.BatchItem{Modify: m, Values: vals}
		}
		rows, warnings, err := e.exec.Batch(ctx, p.Type, items, p.Timestamp, vals, e.request(vals, opts))
		if err != nil {
			return nil, err
		}
		res := rowsOrVoid(rows)
		res.Warnings = warnings
		return res, nil
	case *plan.Use:
		if e.catalog.Current().Keyspace(p.Keyspace) == nil {
			return nil, cqlerr.Invalidf("Keyspace '%s' does not exist", p.Keyspace)
		}
		s.setKeyspace(p.Keyspace)
		return &Result{Kind: ResultSetKeyspace, Keyspace: p.Keyspace}, nil
	}
	res, err := e.runSchema(ctx, p)
	if err != nil {
		return nil, err
	}
	if err := s.afterSchemaChange(ctx, p, res); err != nil {
		return nil, err
	}
	return res, nil
}

func (e *Engine) request(vals []exec.Value, opts *Options) *exec.Request {
	// Without a client timestamp the executor takes one from the clock when
	// it writes: a read-modify-write takes it under the partition's lock,
	// so that such writes are stamped in the order they run.
	req := &exec.Request{Values: vals, PageSize: int(opts.PageSize), PagingState: opts.PagingState, Clock: e.clock.now}
	if opts.HasTimestamp {
		req.Timestamp, req.ClientTimestamp = opts.Timestamp, true
	}
	return req
}

func (e *Engine) runSelect(ctx context.Context, p *plan.Select, opts *Options, fp uint64, origin bindOrigin) (*Result, error) {
	vals, err := bindValues(p.Vars, opts, origin)
	if err != nil {
		return nil, err
	}
	req := e.request(vals, opts)
	req.Statement = fp
	tr := exec.TraceFrom(ctx)
	if tr != nil && len(opts.PagingState) > 0 {
		tr.Event("Resuming from the paging state of the previous page")
	}
	rows, err := e.exec.Select(ctx, p, req)
	if err != nil {
		return nil, err
	}
	if tr != nil {
		traceSelectDone(tr, rows)
	}
	res := &Result{Kind: ResultRows, Columns: columns(p.Columns()), Rows: rows.Rows, PagingState: rows.PagingState, Warnings: rows.Warnings,
		read: &rows.Read}
	// Every GROUP BY query counts as an aggregation query here, with or
	// without aggregates (SelectStatement.execute: aggregationSpecFactory).
	if p.Selection.Aggregate || p.GroupBy {
		if restricted, in := partitionKeyRestrictions(p); !restricted {
			res.Warnings = append(res.Warnings, "Aggregation query used without partition key")
		} else if in {
			res.Warnings = append(res.Warnings, "Aggregation query used on multiple partition keys (IN restriction)")
		}
	}
	return res, nil
}

// partitionKeyRestrictions reports whether a SELECT restricts token() or
// any partition key column, by any relation and whether or not it then
// filters (StatementRestrictions.hasPartitionKeyRestrictions), and whether
// a partition key column has an IN of several values (keyIsInRelation).
// A key that is not completely restricted by EQ/IN makes the query a key
// range, and the plan keeps its relations among the row filters or as the
// index expression.
func partitionKeyRestrictions(p *plan.Select) (restricted, in bool) {
	if !p.IsKeyRange {
		return true, hasIN(p.PartitionKey)
	}
	restricted = p.Token != nil
	for _, r := range append(append([]*plan.Restriction(nil), p.Filters...), p.IndexValue) {
		if r == nil || r.OnToken || r.Multi || r.Columns[0].Kind != catalog.PartitionKey {
			continue
		}
		restricted = true
		if r.Kind == plan.RestrictIN && hasIN([][]*plan.Term{r.Values}) {
			in = true
		}
	}
	return restricted, in
}

// rowsOrVoid is the RESULT of a write: Void, or the rows of a conditional
// statement.
func rowsOrVoid(rows *exec.Rows) *Result {
	if rows == nil {
		return &Result{Kind: ResultVoid}
	}
	return &Result{Kind: ResultRows, Columns: columns(rows.Columns), Rows: rows.Rows}
}

func hasIN(pk [][]*plan.Term) bool {
	for _, vals := range pk {
		if len(vals) != 1 || vals[0].Kind == plan.TermBindList {
			return true
		}
	}
	return false
}

func columns(rc []plan.ResultColumn) []Column {
	out := make([]Column, len(rc))
	for i, c := range rc {
		out[i] = Column{Keyspace: c.Keyspace, Table: c.Table, Name: c.Name, Type: c.Type}
	}
	return out
}

// preparedResult describes a prepared statement to the client.
func preparedResult(id []byte, p plan.Statement) *Result {
	res := &Result{Kind: ResultPrepared, PreparedID: id}
	switch p := p.(type) {
	case *plan.Select:
		res.Columns = columns(p.Columns())
		res.PKIndexes = pkIndexes(p.Table.PartitionKey, p.PartitionKey)
	case *plan.Modify:
		res.PKIndexes = pkIndexes(p.Table.PartitionKey, p.PartitionKey)
	case *plan.Explain:
		res.Columns = explainColumns(p.Select.Table)
	}
	for _, v := range planVars(p) {
		res.BindVariables = append(res.BindVariables, Column{Keyspace: v.Keyspace, Table: v.Table, Name: v.Name, Type: v.Type})
	}
	return res
}

// planVars are a planned statement's bind variables.
func planVars(p plan.Statement) []plan.BindVar {
	switch p := p.(type) {
	case *plan.Select:
		return p.Vars
	case *plan.Modify:
		return p.Vars
	case *plan.Batch:
		return p.Vars
	case *plan.Explain:
		return p.Select.Vars
	}
	return nil
}

// pkIndexes lists, for each partition key column, the bind marker that
// gives its value, or nothing unless every column has one.
func pkIndexes(cols []*catalog.Column, pk [][]*plan.Term) []uint16 {
	if len(pk) != len(cols) {
		return nil
	}
	out := make([]uint16, 0, len(cols))
	for _, vals := range pk {
		if len(vals) != 1 || vals[0] == nil || vals[0].Kind != plan.TermBind {
			return nil
		}
		out = append(out, uint16(vals[0].Bind))
	}
	return out
}

// withLevels carries the client's consistency levels to the backend: a
// gateway reads and writes the cluster at them (docs/design/gateway.md).
func withLevels(ctx context.Context, c, serial Consistency) context.Context {
	return backend.WithLevels(ctx, backend.RequestLevels{Consistency: backend.Consistency(c), Serial: backend.Consistency(serial)})
}
