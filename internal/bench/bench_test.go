package bench

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestQuickRunAll runs `partita bench --workload all --quick --peer
// postgres,cassandra` against a real Partita in a process of its own
// (the default --server-process: the harness builds cmd/partita and
// starts `partita serve`), with the Pebble floor, a real Apache Cassandra 5.0 node started by the harness and, when
// PostgreSQL 15 is installed, the PostgreSQL peer: the smoke test that the
// harness works. It checks that every step ran and read what the data
// holds, and that the server's CPU time, allocations and resident set were
// measured per step, not the figures. A Cassandra that cannot start fails
// the test; only
// PARTITA_NO_CASSANDRA=1 outside CI leaves Cassandra out (as
// test/internal/cassandra's Require does).
func TestQuickRunAll(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every workload against a real server")
	}
	var peers []string
	if PostgresAvailable(DefaultPostgresBin) {
		peers = append(peers, PeerPostgres)
	} else {
		t.Logf("no PostgreSQL in %s: running without it", DefaultPostgresBin)
	}
	if withoutCassandra() {
		t.Log("PARTITA_NO_CASSANDRA=1 outside CI: running without the Cassandra peer")
	} else {
		peers = append(peers, PeerCassandra)
	}
	peer := strings.Join(peers, ",")
	if peer == "" {
		peer = PeerNone
	}
	out := t.TempDir()
	var log bytes.Buffer
	// Cassandra starts twice (for the run and for its restart): up to two
	// minutes each on a loaded 2-core machine.
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Options{
		Workloads: []string{"all"}, Quick: true, Duration: 300 * time.Millisecond,
		SplitRows: testSplitRows, SplitMaxRows: testSplitMaxRows, splitTiming: testSplitTiming,
		Peer: peer, PebbleFloor: true, OutDir: out, Progress: io.Discard, Log: &log,
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	var summary bytes.Buffer
	if err := rep.WriteSummary(&summary); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + summary.String())
	if rep.Failed() {
		t.Fatalf("a workload failed")
	}
	if rep.Settings.Peer != peer {
		t.Fatalf("peer %q, want %q (notes: %v)", rep.Settings.Peer, peer, rep.Notes)
	}
	if len(rep.Workloads) != len(Workloads) {
		t.Fatalf("%d workloads ran, want %d", len(rep.Workloads), len(Workloads))
	}
	if rep.Settings.Server != ServerProcess {
		t.Errorf("server %q, want %q", rep.Settings.Server, ServerProcess)
	}
	for _, w := range rep.Workloads {
		for _, s := range w.Steps {
			checkStep(t, w.Name, s, peer)
			checkServerFigures(t, w.Name, s)
		}
	}
	checkSplit(t, rep, summary.String())
	for _, col := range []string{"cpu µs/req", "alloc/req", "peak RSS"} {
		if !strings.Contains(summary.String(), col) {
			t.Errorf("the summary has no %q column", col)
		}
	}
	cpuTargets := 0
	for _, tg := range rep.Targets {
		if strings.HasPrefix(tg.Name, "server CPU per ") {
			cpuTargets++
			if tg.Met == nil {
				t.Errorf("target %s not judged: %s", tg.Name, tg.Verdict)
			}
		}
	}
	if cpuTargets != 2 {
		t.Errorf("%d server CPU targets, want 2: %+v", cpuTargets, rep.Targets)
	}
	if rep.Restart == nil || rep.Restart.FirstQueryMs <= 0 || rep.Restart.DataBytes <= 0 {
		t.Errorf("restart not measured: %+v", rep.Restart)
	}
	if rep.IngestPeakRSS <= 0 {
		t.Error("no peak RSS during ingest")
	}
	if strings.Contains(peer, PeerCassandra) {
		checkCassandra(t, rep)
	}
	for _, f := range []string{"results.json", "throughput.png", "wide-latency.png"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}

// withoutCassandra reports whether PARTITA_NO_CASSANDRA=1 is set outside
// CI (CI set, and neither "false" nor "0"); in CI Cassandra always runs.
func withoutCassandra() bool {
	ci := strings.ToLower(os.Getenv("CI"))
	return os.Getenv("PARTITA_NO_CASSANDRA") == "1" && (ci == "" || ci == "false" || ci == "0")
}

// checkCassandra wants the Cassandra node described, its JVM's RSS and its
// restart measured, and every target against it judged.
func checkCassandra(t *testing.T, rep *Report) {
	t.Helper()
	ps := rep.PeerServers[SystemCassandra]
	switch {
	case ps == nil:
		t.Fatal("no Cassandra node in the report")
	case !strings.HasPrefix(ps.Version, "5.0.") || ps.CommitlogSync != "batch" || ps.StartMs <= 0:
		t.Errorf("Cassandra node %+v, want 5.0.x in batch mode with its start time", ps)
	case ps.IngestPeakRSS < 100<<20:
		t.Errorf("the JVM's peak RSS during ingest is %s", FormatBytes(ps.IngestPeakRSS))
	case ps.Restart == nil || ps.Restart.FirstQueryMs <= ps.Restart.OpenMs || ps.Restart.DataBytes <= 0:
		t.Errorf("Cassandra's restart not measured: %+v (%s)", ps.Restart, ps.RestartError)
	}
	judged := 0
	for _, tg := range rep.Targets {
		if strings.HasSuffix(tg.Name, " vs cassandra") {
			judged++
			if tg.Met == nil {
				t.Errorf("target %s not judged: %s", tg.Name, tg.Verdict)
			}
		}
	}
	// Three ingests, three reads of the widest partition, the tombstones
	// slice, start and memory.
	if judged != 9 {
		t.Errorf("%d targets against Cassandra, want 9: %+v", judged, rep.Targets)
	}
}

// checkStep wants figures from every system that runs the step, and reads
// that returned the rows the data holds.
func checkStep(t *testing.T, workload string, s *StepResult, peer string) {
	t.Helper()
	want := []string{SystemPartita}
	for _, p := range strings.Split(peer, ",") {
		if p != PeerNone {
			want = append(want, p)
		}
	}
	if s.Kind == "write" && !strings.HasPrefix(s.Name, "seed") && workload != WorkloadSplit {
		want = append(want, SystemPebble)
	}
	if workload == WorkloadSplit && s.result(SystemPebble) != nil {
		t.Errorf("%s %s: the Pebble floor ran", workload, s.Name)
	}
	for _, sys := range want {
		r := s.result(sys)
		switch {
		case r == nil:
			t.Errorf("%s %s: no result from %s", workload, s.Name, sys)
		case r.Skipped != "" && workload == WorkloadLWT,
			r.Skipped != "" && workload == WorkloadSplit && sys != SystemPartita:
			t.Logf("%s %s on %s: %s", workload, s.Name, sys, r.Skipped)
		case !r.ok():
			t.Errorf("%s %s on %s: no figures: %+v", workload, s.Name, sys, r)
		case r.Mismatches > 0:
			t.Errorf("%s %s on %s: %d of %d reads returned an unexpected number of rows", workload, s.Name, sys, r.Mismatches, r.Requests)
		case (r.ServerErrors > 0 || r.Resent > 0) && sys == SystemPartita:
			// A peer may give up on requests (Cassandra's contended
			// compare-and-set); Partita must not.
			t.Errorf("%s %s on Partita: %d requests given up, %d sent again: %s", workload, s.Name, r.ServerErrors, r.Resent, r.FirstServerError)
		}
	}
	for _, sys := range want[1:] {
		if sys != SystemPebble && s.partita() != nil && s.result(sys).ok() && len(s.Ratios[sys]) == 0 {
			t.Errorf("%s %s: no ratios to %s", workload, s.Name, sys)
		}
	}
}

// checkServerFigures wants the server process's figures on every Partita
// step that ran: its peak RSS, and, for a step of at least 1,000 requests
// (whose CPU time is many of /proc's 10 ms ticks), CPU time and heap
// bytes per request; and PostgreSQL's CPU time (postmaster and backends)
// on its ingest steps.
func checkServerFigures(t *testing.T, workload string, s *StepResult) {
	t.Helper()
	if p := s.partita(); p != nil {
		if p.PeakRSS < 10<<20 {
			t.Errorf("%s %s: the server's peak RSS is %d bytes", workload, s.Name, p.PeakRSS)
		}
		if p.Requests >= 1000 && (p.ServerCPUMicrosPerRequest <= 0 || p.ServerAllocBytesPerRequest <= 0) {
			t.Errorf("%s %s: server CPU %.1f µs and %.0f bytes allocated per request, want both measured",
				workload, s.Name, p.ServerCPUMicrosPerRequest, p.ServerAllocBytesPerRequest)
		}
	}
	if pg := s.result(SystemPostgres); pg.ok() && s.Name == "ingest" && pg.ServerCPUMicrosPerRequest <= 0 {
		t.Errorf("%s %s: PostgreSQL's CPU time not measured", workload, s.Name)
	}
}

// The quick runs here split a smaller partition than `--quick` does, with
// a faster detector, so that both stay well under a minute together.
const (
	testSplitRows    = 20_000
	testSplitMaxRows = 2_000
)

var testSplitTiming = splitTiming{window: 500 * time.Millisecond, tick: 200 * time.Millisecond}

// TestQuickRunSplit runs `partita bench --workload split --quick
// --in-process` (the option that keeps the server inside the harness): the hot
// partition, created with splitting off, splits once it is enabled, while
// the harness writes to it; every step has figures and reads what the data
// holds, and the report describes the split and judges its targets. The
// restart then reopens a node holding a split partition.
func TestQuickRunSplit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the split workload against a real server")
	}
	peer := PeerPostgres
	if !PostgresAvailable(DefaultPostgresBin) {
		peer = PeerNone
	}
	var log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Options{
		Workloads: []string{WorkloadSplit}, Quick: true, Duration: 300 * time.Millisecond,
		SplitRows: testSplitRows, SplitMaxRows: testSplitMaxRows, splitTiming: testSplitTiming,
		Peer: peer, PebbleFloor: true, InProcess: true, Progress: io.Discard, Log: &log,
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	var summary bytes.Buffer
	if err := rep.WriteSummary(&summary); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + summary.String())
	if rep.Failed() {
		t.Fatalf("the workload failed")
	}
	if rep.Settings.Server != ServerInProcess {
		t.Errorf("server %q, want %q", rep.Settings.Server, ServerInProcess)
	}
	for _, s := range rep.Workloads[0].Steps {
		checkStep(t, WorkloadSplit, s, peer)
	}
	checkSplit(t, rep, summary.String())
	if rep.Restart == nil || rep.Restart.FirstQueryMs <= 0 {
		t.Errorf("no restart on the split partition: %+v (%s)", rep.Restart, rep.RestartError)
	}
}

// checkSplit wants the split workload's summary of the split and a verdict
// on each of its targets.
func checkSplit(t *testing.T, rep *Report, summary string) {
	t.Helper()
	w := rep.workload(WorkloadSplit)
	if w == nil {
		t.Fatal("the split workload did not run")
	}
	sm := w.Split
	switch {
	case sm == nil:
		t.Fatal("no split summary")
	case sm.Migrations < 1 || sm.FirstChildren < 2 || sm.Children < splitReadChildren+2:
		t.Errorf("split into %d children (%d after %d splits), want at least %d", sm.FirstChildren, sm.Children, sm.Migrations, splitReadChildren+2)
	case sm.DetectSeconds <= 0 || sm.BackfillSeconds <= 0 || sm.RowsMoved <= 0 || sm.BackfillShare <= 0:
		t.Errorf("split timing not measured: %+v", sm)
	case sm.RangeRows <= 0 || len(sm.RangeChildren) != splitReadChildren || !sm.RangeFrom.Before(sm.RangeTo):
		t.Errorf("8-children range not found: %+v", sm)
	}
	if !strings.Contains(summary, "the 8-children range is event_ts in [") {
		t.Error("the summary does not describe the split")
	}
	found := 0
	for _, tg := range rep.Targets {
		if strings.HasPrefix(tg.Name, "split ") {
			found++
			if tg.Met == nil {
				t.Errorf("target %s not judged: %s", tg.Name, tg.Verdict)
			}
		}
	}
	if found != 5 {
		t.Errorf("%d split targets, want 5: %+v", found, rep.Targets)
	}
}
