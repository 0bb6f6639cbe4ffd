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

// TestQuickRunAll runs `partita bench --workload all --quick` in-process
// against a real Partita, with the Pebble floor and, when PostgreSQL 15 is
// installed, the PostgreSQL peer: the smoke test that the harness works. It
// checks that every step ran and read what the data holds, not the figures.
func TestQuickRunAll(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every workload against a real server")
	}
	peer := PeerPostgres
	if !PostgresAvailable(DefaultPostgresBin) {
		t.Logf("no PostgreSQL in %s: running without the peer", DefaultPostgresBin)
		peer = PeerNone
	}
	out := t.TempDir()
	var log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
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
	for _, w := range rep.Workloads {
		for _, s := range w.Steps {
			checkStep(t, w.Name, s, peer)
		}
	}
	checkSplit(t, rep, summary.String())
	if rep.Restart == nil || rep.Restart.FirstQueryMs <= 0 || rep.Restart.DataBytes <= 0 {
		t.Errorf("restart not measured: %+v", rep.Restart)
	}
	if rep.IngestPeakRSS <= 0 {
		t.Error("no peak RSS during ingest")
	}
	for _, f := range []string{"results.json", "throughput.png", "wide-latency.png"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}

// checkStep wants figures from every system that runs the step, and reads
// that returned the rows the data holds.
func checkStep(t *testing.T, workload string, s *StepResult, peer string) {
	t.Helper()
	want := []string{SystemPartita}
	if peer == PeerPostgres {
		want = append(want, SystemPostgres)
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
		}
	}
	if peer == PeerPostgres && s.partita() != nil && s.result(SystemPostgres).ok() && len(s.Ratios[SystemPostgres]) == 0 {
		t.Errorf("%s %s: no ratios to PostgreSQL", workload, s.Name)
	}
}

// The quick runs here split a smaller partition than `--quick` does, with
// a faster detector, so that both stay well under a minute together.
const (
	testSplitRows    = 20_000
	testSplitMaxRows = 2_000
)

var testSplitTiming = splitTiming{window: 500 * time.Millisecond, tick: 200 * time.Millisecond}

// TestQuickRunSplit runs `partita bench --workload split --quick`: the hot
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
		Peer: peer, PebbleFloor: true, Progress: io.Discard, Log: &log,
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
