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
	if s.Kind == "write" && !strings.HasPrefix(s.Name, "seed") {
		want = append(want, SystemPebble)
	}
	for _, sys := range want {
		r := s.result(sys)
		switch {
		case r == nil:
			t.Errorf("%s %s: no result from %s", workload, s.Name, sys)
		case r.Skipped != "" && workload == WorkloadLWT:
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
