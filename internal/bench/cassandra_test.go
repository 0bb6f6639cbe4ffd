package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

func TestResolvePeers(t *testing.T) {
	script := filepath.Join(t.TempDir(), "cassandra.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	pg := PostgresAvailable(DefaultPostgresBin)
	for _, tc := range []struct {
		peer, want, err string
		needsPG         bool
	}{
		{peer: "none", want: "none"},
		{peer: "cassandra", want: "cassandra"},
		{peer: " cassandra-periodic , cassandra ", want: "cassandra,cassandra-periodic"},
		{peer: "cassandra,postgres,cassandra", want: "postgres,cassandra", needsPG: true},
		{peer: "postgres,none", err: "none cannot be combined"},
		{peer: "cassandra,scylla", err: `unknown peer "scylla"`},
		{peer: "mysql", err: `unknown peer "mysql"`},
	} {
		if tc.needsPG && !pg {
			t.Logf("%q: no PostgreSQL in %s", tc.peer, DefaultPostgresBin)
			continue
		}
		o, err := Options{Quick: true, Peer: tc.peer, CassandraScript: script}.Resolve()
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("--peer %q: error %v, want %q", tc.peer, err, tc.err)
			}
		case err != nil:
			t.Errorf("--peer %q: %v", tc.peer, err)
		case o.Peer != tc.want:
			t.Errorf("--peer %q resolves to %q, want %q", tc.peer, o.Peer, tc.want)
		case strings.Contains(tc.want, "cassandra") && (o.CassandraScript != script || o.CassandraHeap != DefaultCassandraHeap):
			t.Errorf("--peer %q: script %q, heap %q", tc.peer, o.CassandraScript, o.CassandraHeap)
		}
	}
	missing := filepath.Join(t.TempDir(), "nothing.sh")
	if _, err := (Options{Peer: "cassandra", CassandraScript: missing}).Resolve(); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("a missing --cassandra-script: error %v, want one naming %s", err, missing)
	}
}

// TestCassandraScriptLookup: the script is the one named, then the one the
// environment names, then the repository's (go test runs in the
// package's directory, inside the module).
func TestCassandraScriptLookup(t *testing.T) {
	t.Setenv("PARTITA_CASSANDRA_SCRIPT", "")
	repo, err := filepath.Abs("../../scripts/cassandra.sh")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := cassandraScript(""); err != nil || got != repo {
		t.Errorf("default script %q (%v), want %q", got, err, repo)
	}
	env := filepath.Join(t.TempDir(), "c.sh")
	if err := os.WriteFile(env, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PARTITA_CASSANDRA_SCRIPT", env)
	if got, err := cassandraScript(""); err != nil || got != env {
		t.Errorf("script from the environment %q (%v), want %q", got, err, env)
	}
	if got, err := cassandraScript(repo); err != nil || got != repo {
		t.Errorf("named script %q (%v), want %q", got, err, repo)
	}
	t.Setenv("PARTITA_CASSANDRA_SCRIPT", env+".gone")
	if _, err := cassandraScript(""); err == nil {
		t.Error("a PARTITA_CASSANDRA_SCRIPT naming no file fell back to another script")
	}
}

// namedFake is a fakeSystem under another system's name.
type namedFake struct {
	*fakeSystem
	label string
}

func (n namedFake) name() string { return n.label }

// TestPeriodicPeerRunsWritesOnly: the periodic Cassandra skips reads, with
// the reason, and runs every step that writes (single rows, range
// deletions, compare-and-set).
func TestPeriodicPeerRunsWritesOnly(t *testing.T) {
	periodic := namedFake{&fakeSystem{}, SystemCassandraPeriodic}
	batch := namedFake{&fakeSystem{}, SystemCassandra}
	read := &step{name: "r", stmt: statement{kind: kindRead}, requests: 5, args: func(int) [][]any { return one("k") }}
	writes := []*step{
		{name: "w", stmt: statement{kind: kindWrite}, requests: 5, args: func(int) [][]any { return one("k") }},
		{name: "d", stmt: statement{kind: kindDelete}, requests: 1, args: func(int) [][]any { return one("k") }},
	}
	r := testRunner(time.Minute)
	if res := r.runStep(context.Background(), "test", periodic, read); !strings.Contains(res.Skipped, "commit log") || periodic.calls.Load() != 0 {
		t.Errorf("a read on %s: %+v after %d requests; want it skipped", periodic.label, res, periodic.calls.Load())
	}
	if res := r.runStep(context.Background(), "test", batch, read); !res.ok() {
		t.Errorf("a read on %s: %+v", batch.label, res)
	}
	for _, st := range writes {
		if res := r.runStep(context.Background(), "test", periodic, st); !res.ok() || res.Requests != int64(st.requests) {
			t.Errorf("step %s on %s: %+v", st.name, periodic.label, res)
		}
	}
	w := lwtWorkload(Options{Concurrency: 4, LWTKeys: 2})
	if res := testRunner(50*time.Millisecond).runStep(context.Background(), w.name, periodic, w.steps[1]); res.Skipped != "" || res.Error != "" {
		t.Errorf("the compare-and-set step on %s: %+v", periodic.label, res)
	}
}

// withCassandra adds Cassandra's figures to the sample report: ingest at
// half Partita's rate, the widest reads' p99 at 3× Partita's (2× for the
// 1-hour range), the slice behind deleted rows at 20× Partita's, a restart
// 30 s long and a JVM of 1.2 GiB.
func withCassandra(r *Report) *Report {
	add := func(w *WorkloadResult, step string, mul func(p *Result) *Result) {
		s := w.step(step)
		s.Results = append(s.Results, mul(s.result(SystemPartita)))
	}
	scaled := func(rate, latency float64) func(p *Result) *Result {
		return func(p *Result) *Result { return res(SystemCassandra, p.RowsPerSec*rate, p.Latency.P99*latency) }
	}
	add(r.workload(WorkloadIoT), "ingest", scaled(0.5, 2))
	wide := r.workload(WorkloadWide)
	add(wide, "latest-100-asc@20k", scaled(1, 3))
	add(wide, "latest-100-desc@20k", scaled(1, 3))
	add(wide, "range-1h@20k", scaled(1, 2))
	add(r.workload(WorkloadTombstones), "slice-behind-deleted", scaled(1, 20))
	r.PeerServers = map[string]*PeerServer{SystemCassandra: {Version: "5.0.6", CommitlogSync: "batch", Heap: "1g", StartMs: 40_000,
		IngestPeakRSS: 1200 << 20, Restart: &Restart{DataBytes: 2 << 30, StopMs: 5000, OpenMs: 28_000, FirstQueryMs: 30_000, Query: "SELECT 1"}}}
	return r
}

func TestCassandraTargets(t *testing.T) {
	r := withCassandra(sampleReport())
	r.computeRatios()
	r.computeTargets()
	got := map[string]string{}
	for _, tg := range r.Targets {
		if strings.Contains(tg.Name, "cassandra") {
			got[tg.Name] = tg.Verdict + " | " + tg.Measured
		}
	}
	want := map[string]string{
		"iot ingest vs cassandra":               "met | 2.00×",
		"wide latest-100-asc@20k vs cassandra":  "met | 3.00ms vs 9.00ms (0.33×)",
		"wide latest-100-desc@20k vs cassandra": "met | 3.30ms vs 9.90ms (0.33×)",
		"wide range-1h@20k vs cassandra":        "met | 3.00ms vs 6.00ms (0.50×)",
		"tombstones vs cassandra":               "met | 9.00ms vs 180ms (0.05×)",
		"start vs cassandra":                    "met | 250ms vs 30.0s (0.01×)",
		"memory vs cassandra":                   "missed: 33% over | 400.0 MiB (server + driver, during ingest) vs 1.2 GiB (JVM) (0.33×)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("targets against Cassandra\n got %v\nwant %v", got, want)
	}
	var out strings.Builder
	if err := r.WriteSummary(&out); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"÷ cassandra",
		"cassandra: Cassandra 5.0.6, commitlog_sync batch, heap 1g; first start 40.0s to its first answer (empty node)",
		"cassandra: peak JVM RSS during the workloads: 1.2 GiB (the server alone)",
		`cassandra: restart: stop 5.00s; native port open 28.0s after the exec; first SELECT answered 30.0s after it (2.0 GiB of data; "SELECT 1")`,
	} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("summary lacks %q:\n%s", line, out.String())
		}
	}
	// Without the Cassandra node's figures there are no targets against it.
	r.PeerServers = nil
	r.computeTargets()
	for _, tg := range r.Targets {
		if strings.Contains(tg.Name, "vs cassandra") && tg.Name != "iot ingest vs cassandra" {
			t.Errorf("target %s without a Cassandra node", tg.Name)
		}
	}
	// A failed restart of the peer fails the run, as Partita's does.
	r.PeerServers = map[string]*PeerServer{SystemCassandra: {RestartError: "boom"}}
	if !r.Failed() {
		t.Error("a failed Cassandra restart does not fail the run")
	}
}

// flakySystem answers with err the first attempt of every every-th request
// (by the index its arguments carry), or, with always, every attempt.
type flakySystem struct {
	calls  atomic.Int64
	every  int
	always bool
	err    error
	tried  sync.Map // request indexes attempted once
}

func (f *flakySystem) name() string                                 { return "flaky" }
func (f *flakySystem) createTables(context.Context, []*table) error { return nil }
func (f *flakySystem) close() error                                 { return nil }

func (f *flakySystem) prepare(context.Context, statement) (op, error) {
	return func(_ context.Context, rows [][]any) (int, error) {
		f.calls.Add(1)
		i := rows[0][0].(int)
		if _, again := f.tried.LoadOrStore(i, true); f.always || (!again && i%f.every == 0) {
			return 0, f.err
		}
		time.Sleep(100 * time.Microsecond)
		return 1, nil
	}, nil
}

// TestServerGaveUpCounted: in a timed step a server's reply that it gave
// up (Cassandra's compare-and-set under contention, a read past many
// deleted rows) is counted and its latency recorded, and the step goes on;
// in a counted step, whose rows later steps read, the write is sent
// again, up to maxAttempts attempts. Any other error fails the step.
func TestServerGaveUpCounted(t *testing.T) {
	timed := func() *step {
		return &step{name: "t", timed: true, requests: timedRequests, stmt: statement{kind: kindRead},
			args: func(i int) [][]any { return one(i) }, expect: func(int) int { return 1 }}
	}
	for _, err := range []error{
		rejection{0x1100, "Operation timed out - received only 0 responses."},
		rejection{0x1200, "Operation timed out - received only 0 responses."},
		rejection{0x1300, "Operation failed - received 0 responses and 1 failures: UNKNOWN (Operation timed out)"},
		rejection{0x1500, "Operation failed - received 0 responses and 1 failures (Operation timed out)"},
		fmt.Errorf("request 7: %w", gocql.ErrTimeoutNoResponse),
	} {
		code := "no answer"
		if re, ok := err.(rejection); ok {
			code = fmt.Sprintf("%#x", re.code)
		}
		sys := &flakySystem{every: 3, err: err}
		res := testRunner(200*time.Millisecond).runStep(context.Background(), "test", sys, timed())
		switch {
		case !res.ok() || res.Error != "":
			t.Errorf("%s: a timed step with timeouts has no figures: %+v", code, res)
		case res.ServerErrors == 0 || res.Requests == 0:
			t.Errorf("%s: %d given up, %d requests; want both", code, res.ServerErrors, res.Requests)
		case res.Latency.Count != res.Requests+res.ServerErrors:
			t.Errorf("%s: %d latencies for %d requests and %d given up", code, res.Latency.Count, res.Requests, res.ServerErrors)
		case res.Mismatches != 0:
			t.Errorf("%s: timeouts counted as %d row-count mismatches", code, res.Mismatches)
		case !strings.Contains(resultRemark(&res), "the server gave up on") || !strings.Contains(resultRemark(&res), "timeout") && !strings.Contains(resultRemark(&res), "timed out"):
			t.Errorf("%s: remark %q", code, resultRemark(&res))
		}
	}
	// A counted step sends the write again: the first attempt of every
	// third request fails, its second succeeds.
	counted := &step{name: "c", requests: 100, stmt: statement{kind: kindWrite}, args: func(i int) [][]any { return one(i) }}
	flaky := &flakySystem{every: 3, err: rejection{0x1100, "timed out"}}
	if res := testRunner(time.Minute).runStep(context.Background(), "test", flaky, counted); !res.ok() || res.Requests != 100 ||
		res.Resent != 34 || flaky.calls.Load() != 134 || res.ServerErrors != 0 || res.Latency.Count != 100 {
		t.Errorf("a counted step whose server gave up on the first attempt of every third request: %+v after %d attempts", res, flaky.calls.Load())
	}
	// A server that always gives up fails the counted step after
	// maxAttempts attempts.
	never := &flakySystem{always: true, err: rejection{0x1100, "timed out"}}
	counted.requests = 1
	if res := testRunner(time.Minute).runStep(context.Background(), "test", never, counted); res.Error == "" || never.calls.Load() != maxAttempts {
		t.Errorf("a counted step whose server always gives up: %+v after %d attempts, want an error after %d", res, never.calls.Load(), maxAttempts)
	}
	other := &flakySystem{every: 3, err: rejection{0x1000, "Cannot achieve consistency level ONE"}}
	if res := testRunner(200*time.Millisecond).runStep(context.Background(), "test", other, timed()); res.Error == "" {
		t.Errorf("a timed step with an Unavailable error succeeded: %+v", res)
	}
}
