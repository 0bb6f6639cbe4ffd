package e2e_test

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/test/internal/testserver"
)

// idTracer is a gocql Tracer that keeps the tracing ids it is given.
type idTracer struct {
	mu  sync.Mutex
	ids [][]byte
}

func (t *idTracer) Trace(id []byte) {
	t.mu.Lock()
	t.ids = append(t.ids, append([]byte(nil), id...))
	t.mu.Unlock()
}

// TestTracingGocql traces requests through gocql's tracing API
// (Query.Trace): the response carries the session id (frame flag 0x02,
// native_protocol_v4.spec §2.2), and gocql's own trace writer, which reads
// system_traces right after the response without retrying, finds the
// session complete and its events.
func TestTracingGocql(t *testing.T) {
	s := connect(t, "")
	for _, q := range []string{
		"CREATE KEYSPACE IF NOT EXISTS tracing WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE IF NOT EXISTS tracing.t (k int, c int, v text, PRIMARY KEY (k, c))",
	} {
		if err := s.Query(q).Exec(); err != nil {
			t.Fatal(err)
		}
	}

	ids := &idTracer{}
	if err := s.Query("INSERT INTO tracing.t (k, c, v) VALUES (?, ?, ?)", 1, 1, "a").Trace(ids).Exec(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var v string
	if err := s.Query("SELECT v FROM tracing.t WHERE k = ? AND c = ?", 1, 1).Trace(gocql.NewTraceWriter(s, &out)).Scan(&v); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"Tracing session ", "duration: ", "Parsing SELECT v FROM tracing.t WHERE k = ? AND c = ?",
		"Executing single-partition query on t", "Read 1 live rows and 0 tombstone cells"} {
		if !strings.Contains(text, want) {
			t.Errorf("gocql's trace lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "duration: 0s") {
		t.Errorf("the session had no duration when read:\n%s", text)
	}

	// gocql traces the PREPARE it sends for a statement with values, then
	// the EXECUTE; an untraced request has no tracing id.
	before := len(ids.ids)
	if err := s.Query("SELECT v FROM tracing.t WHERE k = 1").Exec(); err != nil {
		t.Fatal(err)
	}
	if len(ids.ids) != before || before != 2 {
		t.Fatalf("tracer called %d times for one traced PREPARE and EXECUTE", len(ids.ids))
	}
	var prepareRequest string
	if err := s.Query("SELECT request FROM system_traces.sessions WHERE session_id = ?", gocql.UUID(ids.ids[0])).
		Scan(&prepareRequest); err != nil || prepareRequest != "Preparing CQL3 query" {
		t.Errorf("PREPARE's session: request %q, %v", prepareRequest, err)
	}
	id := gocql.UUID(ids.ids[1])
	if id.Version() != 1 {
		t.Errorf("tracing id %v is not a timeuuid", id)
	}
	var (
		request, command string
		duration         int
		params           map[string]string
		started          time.Time
	)
	if err := s.Query("SELECT request, command, duration, parameters, started_at FROM system_traces.sessions WHERE session_id = ?", id).
		Scan(&request, &command, &duration, &params, &started); err != nil {
		t.Fatal(err)
	}
	// gocql prepares statements with values: EXECUTE's session
	// (transport/messages/ExecuteMessage.traceQuery).
	if request != "Execute CQL3 prepared query" || command != "QUERY" || duration <= 0 ||
		params["query"] != "INSERT INTO tracing.t (k, c, v) VALUES (?, ?, ?)" || time.Since(started) > time.Hour {
		t.Errorf("session: request %q command %q duration %d parameters %v started %v", request, command, duration, params, started)
	}
	// Its bound values as CQL literals, bound_var_<i>_<name>.
	if params["bound_var_0_k"] != "1" || params["bound_var_1_c"] != "1" || params["bound_var_2_v"] != "'a'" {
		t.Errorf("bound values of the EXECUTE's session: %v", params)
	}
	var activities []string
	iter := s.Query("SELECT activity FROM system_traces.events WHERE session_id = ?", id).Iter()
	for act := ""; iter.Scan(&act); {
		activities = append(activities, act)
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(activities, "; "); !strings.Contains(got, "Appending to WAL") || !strings.Contains(got, "Synced WAL") {
		t.Errorf("INSERT's events: %s", got)
	}
}

// TestTracingCqlsh is cqlsh's TRACING ON: after each statement it prints
// "Tracing session: <uuid>" and the session's activity table, which it
// reads from system_traces.sessions and system_traces.events
// (cqlshlib/tracing.py), ending with the "Request complete" row it builds
// from the session's duration.
func TestTracingCqlsh(t *testing.T) {
	srv := testserver.New(t)
	out := cqlsh(t, srv, "-e", "CREATE KEYSPACE tr WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}; "+
		"CREATE TABLE tr.t (k int, c int, v text, PRIMARY KEY (k, c)); "+
		"TRACING ON; INSERT INTO tr.t (k, c, v) VALUES (1, 1, 'a'); SELECT * FROM tr.t WHERE k = 1; TRACING OFF; SELECT * FROM tr.t")
	sessions := regexp.MustCompile(`Tracing session: [0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}`).FindAllString(out, -1)
	if len(sessions) != 2 {
		t.Fatalf("cqlsh printed %d tracing sessions for two traced statements:\n%s", len(sessions), out)
	}
	for _, want := range []string{
		"activity", "source_elapsed", "Execute CQL3 query",
		"Parsing INSERT INTO tr.t (k, c, v) VALUES (1, 1, 'a');", "Appending to WAL", "Synced WAL",
		"Parsing SELECT * FROM tr.t WHERE k = 1;", "Preparing statement", "Executing single-partition query on t",
		"Read 1 live rows and 0 tombstone cells", "Request complete",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("cqlsh's trace lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "Request complete") != 2 {
		t.Errorf("want two activity tables:\n%s", out)
	}
	if strings.Contains(out, "Statement trace did not complete") || strings.Contains(out, "Unable to fetch query trace") {
		t.Errorf("cqlsh did not find the trace:\n%s", out)
	}

	// A split partition: the trace names its children and those the slice
	// opens.
	var rows strings.Builder
	for c := 2; c <= 40; c++ {
		fmt.Fprintf(&rows, "INSERT INTO tr.t (k, c, v) VALUES (1, %d, 'v'); ", c)
	}
	cqlsh(t, srv, "-e", strings.TrimSpace(rows.String()))
	ctx := context.Background()
	if err := srv.Engine().SplitOperation(ctx, "split", "tr", "t", "1", "range"); err != nil {
		t.Fatal(err)
	}
	if err := srv.Engine().StepSplits(ctx, 10); err != nil {
		t.Fatal(err)
	}
	out = cqlsh(t, srv, "-e", "TRACING ON; SELECT * FROM tr.t WHERE k = 1 AND c <= 3")
	for _, re := range []string{`Split partition \(epoch \d+\): [2-9]\d* children, the slices open 1 of them`,
		`Read 3 live rows and 0 tombstone cells`, `Request complete`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("cqlsh's trace of a split partition lacks %s:\n%s", re, out)
		}
	}
}
