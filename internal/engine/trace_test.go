package engine_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"regexp"
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/engine"
)

// traceEvents reads a session's activities and their source_elapsed from
// system_traces.events, in event_id order, as cqlsh does after a traced
// request (cqlshlib/tracing.py).
func traceEvents(t *testing.T, s *engine.Session, id []byte) ([]string, []int32) {
	t.Helper()
	res, err := s.Query(context.Background(),
		"SELECT activity, source_elapsed FROM system_traces.events WHERE session_id = ?",
		&engine.Options{Values: []engine.Value{{Bytes: id}}})
	if err != nil {
		t.Fatal(err)
	}
	var acts []string
	var elapsed []int32
	for _, r := range res.Rows {
		acts = append(acts, string(r[0]))
		elapsed = append(elapsed, int32(binary.BigEndian.Uint32(r[1])))
	}
	return acts, elapsed
}

func traced(t *testing.T, s *engine.Session, query string) []byte {
	t.Helper()
	tr := &engine.TraceRequest{Client: net.IPv4(10, 1, 2, 3)}
	ctx := engine.WithTraceRequest(context.Background(), tr)
	if _, err := s.Query(ctx, query, &engine.Options{Consistency: engine.One, PageSize: 100}); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	if len(tr.SessionID) != 16 || tr.SessionID[6]>>4 != 1 {
		t.Fatalf("%s: session id %x is not a timeuuid", query, tr.SessionID)
	}
	return tr.SessionID
}

// TestTraceSession checks that a traced request's session is complete and
// readable as soon as the request returns (cqlsh and the drivers read it
// right after the response), with Cassandra's request text and
// parameters (transport/messages/QueryMessage.traceQuery), and that its
// events say what ran, in order, with growing elapsed times.
func TestTraceSession(t *testing.T) {
	h := cqltest.New(t)
	s := h.Session
	mustExec(t, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))",
		"CREATE INDEX ON ks.t (v)")

	insert := traced(t, s, "INSERT INTO ks.t (k, c, v) VALUES (1, 1, 'a')")
	res, err := s.Query(context.Background(),
		"SELECT client, command, duration, request, parameters, coordinator FROM system_traces.sessions WHERE session_id = ?",
		&engine.Options{Values: []engine.Value{{Bytes: insert}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 {
		t.Fatalf("sessions: %d rows for the traced INSERT, want 1", len(res.Rows))
	}
	row := res.Rows[0]
	if !net.IP(row[0]).Equal(net.IPv4(10, 1, 2, 3)) || string(row[1]) != "QUERY" || row[2] == nil ||
		string(row[3]) != "Execute CQL3 query" || row[5] == nil {
		t.Errorf("session row: client %v command %q duration %x request %q coordinator %v",
			net.IP(row[0]), row[1], row[2], row[3], net.IP(row[5]))
	}
	for _, want := range []string{"query", "INSERT INTO ks.t (k, c, v) VALUES (1, 1, 'a')", "consistency_level", "ONE",
		"page_size", "100", "serial_consistency_level", "SERIAL"} {
		if !strings.Contains(string(row[4]), want) {
			t.Errorf("parameters lack %q: %q", want, row[4])
		}
	}

	tests := []struct {
		query string
		want  []string
	}{
		// The row and its index entry: two partitions, one batch.
		{"INSERT INTO ks.t (k, c, v) VALUES (1, 1, 'a')", []string{"Parsing INSERT INTO ks.t (k, c, v) VALUES (1, 1, 'a')",
			"Preparing statement", "Appending to WAL (2 partition mutations)", "Synced WAL (the commit waited <n> µs)"}},
		{"SELECT * FROM ks.t WHERE k = 1", []string{"Parsing SELECT * FROM ks.t WHERE k = 1", "Preparing statement",
			"Executing single-partition query on t", "Read 1 live rows and 0 tombstone cells", "Returned 1 rows of 1 read from 1 partitions"}},
		{"SELECT * FROM ks.t", []string{"Parsing SELECT * FROM ks.t", "Preparing statement",
			"Scanning token range (min, max] on t", "Read 1 live rows and 0 tombstone cells", "Returned 1 rows of 1 read from 1 partitions"}},
		{"SELECT * FROM ks.t WHERE v = 'a'", []string{"Parsing SELECT * FROM ks.t WHERE v = 'a'", "Preparing statement",
			"Index used: t_v_idx", "Read 1 live rows and 0 tombstone cells", "Returned 1 rows of 1 read from 1 partitions, filtering"}},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			id := insert
			if !strings.HasPrefix(tc.query, "INSERT") {
				id = traced(t, s, tc.query)
			}
			acts, elapsed := traceEvents(t, s, id)
			// <n> stands for a number that varies (a wait in µs).
			match := len(acts) == len(tc.want)
			for i := 0; match && i < len(acts); i++ {
				re := strings.ReplaceAll(regexp.QuoteMeta(tc.want[i]), "<n>", `\d+`)
				match = regexp.MustCompile("^" + re + "$").MatchString(acts[i])
			}
			if !match {
				t.Errorf("events:\n  %q\nwant\n  %q", acts, tc.want)
			}
			for i := 1; i < len(elapsed); i++ {
				if elapsed[i] < elapsed[i-1] {
					t.Errorf("source_elapsed goes back: %v", elapsed)
				}
			}
		})
	}
}

// TestTraceProbability: trace_probability 1 traces requests that did not
// ask (their sessions appear, without a client), 0 traces none.
func TestTraceProbability(t *testing.T) {
	count := func(s *engine.Session) int {
		res, err := s.Query(context.Background(), "SELECT session_id, client FROM system_traces.sessions", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Rows {
			if r[1] != nil {
				t.Errorf("a probabilistic session has client %v", net.IP(r[1]))
			}
		}
		return len(res.Rows)
	}
	for _, p := range []float64{0, 1} {
		cfg := engine.DefaultConfig()
		cfg.SplitTick, cfg.GCInterval = 0, 0
		cfg.TraceProbability = p
		h := cqltest.NewWithConfig(t, cfg)
		mustExec(t, h.Session, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
			"CREATE TABLE ks.t (k int PRIMARY KEY, v int)", "INSERT INTO ks.t (k, v) VALUES (1, 1)")
		// p = 1: the three statements above, each its own session (the
		// count query itself is still running when it reads).
		if got, want := count(h.Session), int(p*3); got != want {
			t.Errorf("trace_probability %v: %d sessions, want %d", p, got, want)
		}
	}
}

// TestTraceStoreBounds: the store keeps the newest TraceMaxSessions
// sessions and drops the older ones.
func TestTraceStoreBounds(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.SplitTick, cfg.GCInterval = 0, 0
	cfg.TraceMaxSessions = 3
	h := cqltest.NewWithConfig(t, cfg)
	var ids [][]byte
	for i := range 5 {
		ids = append(ids, traced(t, h.Session, fmt.Sprintf("SELECT * FROM system.local WHERE key = 'k%d'", i)))
	}
	for i, id := range ids {
		acts, _ := traceEvents(t, h.Session, id)
		if kept := len(acts) > 0; kept != (i >= 2) {
			t.Errorf("session %d of 5 kept = %v with room for 3", i, kept)
		}
	}
}

// TestTraceSplitPartition: a read of a split partition says so, with its
// children.
func TestTraceSplitPartition(t *testing.T) {
	h := cqltest.New(t)
	s := h.Session
	mustExec(t, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))")
	for i := range 40 {
		mustExec(t, s, fmt.Sprintf("INSERT INTO ks.t (k, c, v) VALUES (2, %d, 'x')", i))
	}
	ctx := context.Background()
	if err := h.Engine.SplitOperation(ctx, "split", "ks", "t", "2", "range"); err != nil {
		t.Fatal(err)
	}
	if err := h.Engine.StepSplits(ctx, 10); err != nil {
		t.Fatal(err)
	}
	acts, _ := traceEvents(t, s, traced(t, s, "SELECT * FROM ks.t WHERE k = 2"))
	got := strings.Join(acts, "\n")
	m := regexp.MustCompile(`Split partition \(epoch \d+\): ([2-9]\d*) children, the slices open (\d+) of them`).FindStringSubmatch(got)
	if m == nil || m[1] != m[2] || !strings.Contains(got, "Read 40 live rows and 0 tombstone cells") {
		t.Errorf("events of a split partition's whole read:\n%s", got)
	}
	// A slice of the first rows opens the first child only.
	acts, _ = traceEvents(t, s, traced(t, s, "SELECT * FROM ks.t WHERE k = 2 AND c < 2"))
	got = strings.Join(acts, "\n")
	if !regexp.MustCompile(`Split partition \(epoch \d+\): [2-9]\d* children, the slices open 1 of them`).MatchString(got) ||
		!strings.Contains(got, "Read 2 live rows and 0 tombstone cells") {
		t.Errorf("events of a split partition's slice:\n%s", got)
	}
}

// A traced conditional update says what its Paxos round would: the read
// of the current values and whether the condition held
// (service/StorageProxy.cas's trace points), for single statements and
// conditional batches.
func TestTraceLWT(t *testing.T) {
	h := cqltest.New(t)
	s := h.Session
	mustExec(t, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int, c int, v int, PRIMARY KEY (k, c))",
		"INSERT INTO ks.t (k, c, v) VALUES (1, 1, 1)")
	for _, tc := range []struct{ stmt, want string }{
		{"UPDATE ks.t SET v = 2 WHERE k = 1 AND c = 1 IF v = 1", "Reading existing values for CAS precondition\nCAS precondition is met; proposing client-requested updates\n.*CAS successful"},
		{"UPDATE ks.t SET v = 3 WHERE k = 1 AND c = 1 IF v = 1", "Reading existing values for CAS precondition\nCAS precondition does not match current values"},
		{"BEGIN BATCH UPDATE ks.t SET v = 4 WHERE k = 1 AND c = 1 IF v = 2; INSERT INTO ks.t (k, c, v) VALUES (1, 2, 0) APPLY BATCH",
			"Reading existing values for CAS precondition\nCAS precondition is met; proposing client-requested updates\n.*CAS successful"},
	} {
		acts, _ := traceEvents(t, s, traced(t, s, tc.stmt))
		if got := strings.Join(acts, "\n"); !regexp.MustCompile("(?s)" + tc.want).MatchString(got) {
			t.Errorf("%s: events\n%s", tc.stmt, got)
		}
	}
}

// A traced page says that it filled (reading one row past it, to know
// there is more) and sent a paging state; the next
// page's trace says it resumed from one.
func TestTracePaging(t *testing.T) {
	h := cqltest.New(t)
	s := h.Session
	mustExec(t, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int, c int, PRIMARY KEY (k, c))")
	for c := range 5 {
		mustExec(t, s, fmt.Sprintf("INSERT INTO ks.t (k, c) VALUES (1, %d)", c))
	}
	page := func(state []byte) ([]byte, string) {
		tr := &engine.TraceRequest{Client: net.IPv4(10, 1, 2, 3)}
		res, err := s.Query(engine.WithTraceRequest(context.Background(), tr), "SELECT * FROM ks.t WHERE k = 1",
			&engine.Options{Consistency: engine.One, PageSize: 2, PagingState: state})
		if err != nil {
			t.Fatal(err)
		}
		acts, _ := traceEvents(t, s, tr.SessionID)
		return res.PagingState, strings.Join(acts, "\n")
	}
	state, first := page(nil)
	if !strings.Contains(first, "Returned 2 rows of 3 read from 1 partitions\nPage full: paging state returned for the next page") ||
		strings.Contains(first, "Resuming") {
		t.Errorf("first page's events:\n%s", first)
	}
	if _, second := page(state); !strings.HasPrefix(second, "Parsing") || !strings.Contains(second, "Resuming from the paging state of the previous page") {
		t.Errorf("second page's events:\n%s", second)
	}
}
