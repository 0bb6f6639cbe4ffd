package systables

import (
	"net"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/types"
)

// TraceSession is one traced request: a row of system_traces.sessions and
// its rows of system_traces.events.
type TraceSession struct {
	ID          [16]byte
	Client      net.IP // nil when unknown (a probabilistically traced request)
	Coordinator net.IP
	Command     string // QUERY (Tracing.TraceType)
	Request     string // e.g. "Execute CQL3 query"
	Parameters  map[string]string
	StartedAt   int64 // ms
	// Duration is in microseconds; a session is published only once
	// complete, so it is always set.
	Duration int32
	Events   []TraceEventRow
}

// TraceEventRow is one row of system_traces.events.
type TraceEventRow struct {
	ID       []byte // timeuuid
	Activity string
	Source   net.IP
	Elapsed  int32 // µs since the request started
	Thread   string
}

// TracesSource provides the rows of the system_traces tables.
type TracesSource interface {
	TraceSessions() []*TraceSession
}

// tracesTables are tracing/TraceKeyspace.java's sessions and events, with
// its comments and gc_grace_seconds 0. coordinator_port and source_port
// stay null: Partita has no inter-node port (as system.local.listen_port).
func tracesTables() []*catalog.Table {
	const ks = TracesKeyspace
	sessionID := []catalog.ColumnSpec{col("session_id", types.UUID)}
	tables := []*catalog.Table{
		builtinTable(catalog.BuiltinTable{Keyspace: ks, Name: "sessions", Comment: "tracing sessions",
			PartitionKey: sessionID,
			Regular: []catalog.ColumnSpec{col("client", types.Inet), col("command", text),
				col("coordinator", types.Inet), col("coordinator_port", types.Int), col("duration", types.Int),
				col("parameters", types.MapOf(text, text)), col("request", text),
				col("started_at", types.Timestamp)}}, 0),
		builtinTable(catalog.BuiltinTable{Keyspace: ks, Name: "events", Comment: "tracing events",
			PartitionKey: sessionID, Clustering: []catalog.ColumnSpec{col("event_id", types.Timeuuid)},
			Regular: []catalog.ColumnSpec{col("activity", text), col("source", types.Inet),
				col("source_elapsed", types.Int), col("source_port", types.Int), col("thread", text)}}, 0),
	}
	for _, t := range tables {
		// TraceKeyspace generation 1577836800000002 unset it.
		t.Options.MemtableFlushPeriodMs = 0
	}
	return tables
}

func traceSessionsRows(env *Env, rs *rowSet) {
	if env.Traces == nil {
		return
	}
	for _, s := range env.Traces.TraceSessions() {
		rs.newRow().put("session_id", uuidValue(s.ID)).put("client", inetValue(s.Client)).
			put("command", textValue(s.Command)).put("coordinator", inetValue(s.Coordinator)).
			put("duration", intValue(s.Duration)).put("parameters", textMapValue(s.Parameters)).
			put("request", textValue(s.Request)).put("started_at", timestampValue(s.StartedAt))
	}
}

func traceEventsRows(env *Env, rs *rowSet) {
	if env.Traces == nil {
		return
	}
	for _, s := range env.Traces.TraceSessions() {
		for _, e := range s.Events {
			rs.newRow().put("session_id", uuidValue(s.ID)).put("event_id", e.ID).
				put("activity", textValue(e.Activity)).put("source", inetValue(e.Source)).
				put("source_elapsed", intValue(e.Elapsed)).put("thread", textValue(e.Thread))
		}
	}
}
