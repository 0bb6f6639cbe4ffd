package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/partita-db/partita/internal/exec"
	"github.com/partita-db/partita/internal/plan"
	"github.com/partita-db/partita/internal/systables"
	"github.com/partita-db/partita/internal/types"
)

// Query tracing, as Cassandra's tracing/Tracing.java does it on one node: a
// traced request gets a session (a timeuuid), its steps record events, and
// the session and its events become readable in system_traces.sessions and
// system_traces.events. Cassandra writes them asynchronously, so cqlsh and
// the drivers poll until the session has a duration; here a session is
// published, duration included, before the request returns, so the first
// poll finds it.
//
// Sessions are kept in memory only, the newest first to survive: at most
// Config.TraceMaxSessions sessions and Config.TraceMaxBytes bytes (roughly
// counted), each for Config.TraceTTL (Cassandra's tracing tables default to
// a 24 h TTL: tracetype_query_ttl). They are lost on restart.

// TraceRequest asks for one request to be traced (the frame's tracing flag,
// native_protocol_v4.spec §2.2). The server puts it in the request's
// context with WithTraceRequest; the engine sets SessionID, which goes back
// in the response, whether the request succeeds or fails (Cassandra's
// Message.Request.execute sets the tracing id on any response).
type TraceRequest struct {
	Client    net.IP
	SessionID []byte
}

type traceRequestKey struct{}

// WithTraceRequest returns ctx asking for its request to be traced.
func WithTraceRequest(ctx context.Context, r *TraceRequest) context.Context {
	return context.WithValue(ctx, traceRequestKey{}, r)
}

// activeTrace is a session being recorded.
type activeTrace struct {
	id      []byte
	trace   *exec.Trace
	session *systables.TraceSession
}

// startTrace returns the session to record for this request, or nil: when
// the client asked for one, or with probability Config.TraceProbability.
// Requests that are already traced (a statement run inside another) are
// not traced again.
func (e *Engine) startTrace(ctx context.Context, request string, params map[string]string) (context.Context, *activeTrace) {
	if exec.TraceFrom(ctx) != nil {
		return ctx, nil
	}
	asked, _ := ctx.Value(traceRequestKey{}).(*TraceRequest)
	if asked == nil && (e.cfg.TraceProbability <= 0 || rand.Float64() >= e.cfg.TraceProbability) {
		return ctx, nil
	}
	start := time.Now()
	id := types.NewTimeUUID()
	s := &systables.TraceSession{Coordinator: e.node.BroadcastAddress, Command: "QUERY",
		Request: request, Parameters: params, StartedAt: start.UnixMilli()}
	copy(s.ID[:], id)
	if asked != nil {
		s.Client, asked.SessionID = asked.Client, id
	}
	t := &activeTrace{id: id, trace: exec.NewTrace(start), session: s}
	return exec.WithTrace(ctx, t.trace), t
}

// finishTrace completes a session and publishes it.
func (e *Engine) finishTrace(t *activeTrace) {
	s := t.session
	s.Duration = clampMicros(time.Since(t.trace.Start()))
	for _, ev := range t.trace.Events() {
		s.Events = append(s.Events, systables.TraceEventRow{ID: ev.ID,
			Activity: ev.Activity, Source: s.Coordinator, Elapsed: clampMicros(ev.Elapsed), Thread: traceThread})
	}
	e.traces.add(s, time.Now())
}

// traceThread names the thread column: Partita runs a request on one
// goroutine of the connection's workers, which has no name of its own.
const traceThread = "Native-Transport-Requests"

func clampMicros(d time.Duration) int32 {
	if us := d.Microseconds(); us < 1<<31-1 {
		return int32(us)
	}
	return 1<<31 - 1
}

// queryTraceParams are QueryMessage.traceQuery's parameters; ExecuteMessage
// has the same with the prepared statement's text.
func queryTraceParams(query string, opts *Options) map[string]string {
	m := map[string]string{"query": query}
	if opts == nil {
		opts = &Options{}
	}
	if opts.PageSize > 0 {
		m["page_size"] = strconv.Itoa(int(opts.PageSize))
	}
	addConsistencyParams(m, opts.Consistency, opts.SerialConsistency)
	return m
}

// addConsistencyParams adds the levels as Cassandra names them; a request
// without a serial consistency has SERIAL (QueryOptions's default).
func addConsistencyParams(m map[string]string, c, serial Consistency) {
	m["consistency_level"] = c.String()
	if serial == Any {
		serial = Serial
	}
	m["serial_consistency_level"] = serial.String()
}

var consistencyNames = [...]string{
	Any: "ANY", One: "ONE", Two: "TWO", Three: "THREE", Quorum: "QUORUM", All: "ALL",
	LocalQuorum: "LOCAL_QUORUM", EachQuorum: "EACH_QUORUM", Serial: "SERIAL",
	LocalSerial: "LOCAL_SERIAL", LocalOne: "LOCAL_ONE",
}

// String is the level's CQL name (db/ConsistencyLevel).
func (c Consistency) String() string {
	if int(c) < len(consistencyNames) {
		return consistencyNames[c]
	}
	return "Consistency(" + strconv.Itoa(int(c)) + ")"
}

// traceStore keeps the completed sessions, oldest first.
type traceStore struct {
	maxSessions, maxBytes int
	ttl                   time.Duration

	mu struct {
		sync.Mutex
		sessions []storedTrace
		bytes    int
	}
}

type storedTrace struct {
	session *systables.TraceSession
	expires time.Time
	bytes   int
}

// newTraceStore applies DefaultConfig's bounds to the ones cfg leaves
// unset, so an engine built from a bare Config still keeps its sessions.
func newTraceStore(cfg Config) *traceStore {
	def := DefaultConfig()
	ts := &traceStore{maxSessions: cfg.TraceMaxSessions, maxBytes: cfg.TraceMaxBytes, ttl: cfg.TraceTTL}
	if ts.maxSessions <= 0 {
		ts.maxSessions = def.TraceMaxSessions
	}
	if ts.maxBytes <= 0 {
		ts.maxBytes = def.TraceMaxBytes
	}
	if ts.ttl <= 0 {
		ts.ttl = def.TraceTTL
	}
	return ts
}

// add publishes a completed session, evicting the oldest over the bounds.
func (ts *traceStore) add(s *systables.TraceSession, now time.Time) {
	size := sessionBytes(s)
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.mu.sessions = append(ts.mu.sessions, storedTrace{session: s, expires: now.Add(ts.ttl), bytes: size})
	ts.mu.bytes += size
	ts.evictLocked(now)
}

// evictLocked drops expired sessions and the oldest beyond the bounds.
func (ts *traceStore) evictLocked(now time.Time) {
	drop := 0
	for drop < len(ts.mu.sessions) {
		st := ts.mu.sessions[drop]
		over := len(ts.mu.sessions)-drop > ts.maxSessions || ts.mu.bytes > ts.maxBytes
		if !over && now.Before(st.expires) {
			break
		}
		ts.mu.bytes -= st.bytes
		drop++
	}
	if drop > 0 {
		ts.mu.sessions = append(ts.mu.sessions[:0:0], ts.mu.sessions[drop:]...)
	}
}

// TraceSessions returns the live sessions (systables.TracesSource).
// Sessions are immutable once stored, so they are shared, not copied.
func (ts *traceStore) TraceSessions() []*systables.TraceSession {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.evictLocked(time.Now())
	out := make([]*systables.TraceSession, len(ts.mu.sessions))
	for i, st := range ts.mu.sessions {
		out[i] = st.session
	}
	return out
}

// sessionBytes approximates a session's memory: its strings plus a fixed
// overhead per row.
func sessionBytes(s *systables.TraceSession) int {
	const rowOverhead = 128
	n := rowOverhead + len(s.Request)
	for k, v := range s.Parameters {
		n += len(k) + len(v)
	}
	for _, ev := range s.Events {
		n += rowOverhead + len(ev.Activity)
	}
	return n
}

// The request kinds, as transport/messages/*Message.java begin their
// sessions. Each builds its parameters only once tracing is decided.

func (e *Engine) traceQuery(ctx context.Context, query string, opts *Options) (context.Context, *activeTrace) {
	if !e.wantsTrace(ctx) {
		return ctx, nil
	}
	return e.startTrace(ctx, "Execute CQL3 query", queryTraceParams(query, opts))
}

func (e *Engine) tracePrepare(ctx context.Context, query string) (context.Context, *activeTrace) {
	if !e.wantsTrace(ctx) {
		return ctx, nil
	}
	return e.startTrace(ctx, "Preparing CQL3 query", map[string]string{"query": query})
}

// traceExecute traces an EXECUTE; ps is nil for an unknown statement id,
// which is traced without a query.
func (e *Engine) traceExecute(ctx context.Context, ps *prepared, opts *Options) (context.Context, *activeTrace) {
	if !e.wantsTrace(ctx) {
		return ctx, nil
	}
	query := ""
	if ps != nil {
		query = ps.query
	}
	m := queryTraceParams(query, opts)
	if ps != nil {
		ps.mu.Lock()
		vars := planVars(ps.plan)
		ps.mu.Unlock()
		addBoundVars(m, vars, opts)
	}
	return e.startTrace(ctx, "Execute CQL3 prepared query", m)
}

// addBoundVars records an EXECUTE's values as Cassandra does
// (ExecuteMessage.traceQuery): bound_var_<i>_<name> = the value as a CQL
// literal, cut after 1,000 characters.
func addBoundVars(m map[string]string, vars []plan.BindVar, opts *Options) {
	vals, err := bindValues(vars, opts, bindExecute)
	if err != nil {
		return // the request fails with the error; its trace has no values
	}
	for i, v := range vars {
		lit := "null"
		switch {
		case vals[i].Unset:
			lit = "unset"
		case vals[i].Bytes != nil:
			lit = types.FormatLiteral(v.Type, vals[i].Bytes)
		}
		if len(lit) > 1000 {
			lit = lit[:1000] + "...'"
		}
		m[fmt.Sprintf("bound_var_%d_%s", i, v.Name)] = lit
	}
}

func (e *Engine) traceBatch(ctx context.Context, b *BatchRequest) (context.Context, *activeTrace) {
	if !e.wantsTrace(ctx) {
		return ctx, nil
	}
	m := map[string]string{}
	addConsistencyParams(m, b.Consistency, b.SerialConsistency)
	return e.startTrace(ctx, "Execute batch of CQL3 queries", m)
}

// wantsTrace is the cheap test done on every request: tracing asked for,
// or possible by probability.
func (e *Engine) wantsTrace(ctx context.Context) bool {
	return e.cfg.TraceProbability > 0 || ctx.Value(traceRequestKey{}) != nil
}

// traceSelectDone records what a read returned against what it read, and
// whether a paging state went back for the next page.
func traceSelectDone(tr *exec.Trace, rows *exec.Rows) {
	r := rows.Read
	how := ""
	if r.Filtering {
		how = ", filtering"
	}
	tr.Eventf("Returned %d rows of %d read from %d partitions%s", len(rows.Rows), r.Rows, r.Partitions, how)
	if rows.PagingState != nil {
		tr.Event("Page full: paging state returned for the next page")
	}
}
