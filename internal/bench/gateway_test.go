package bench

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The gateway's split is smaller still: with split states shared between
// gateways (the default), its backfill moves one chunk of up to 1,000 rows
// per lease and drain (20 s).
const (
	testGatewaySplitRows    = 2_000
	testGatewaySplitMaxRows = 100
)

// TestQuickGateway runs `partita bench --target gateway --quick --rounds 2`
// at a tiny scale: the server process is a gateway over a real Apache
// Cassandra node ($PARTITA_REFERENCE_ADDR, else one the harness starts),
// the seed workloads run through it and directly against the node, and the
// split workload splits its hot partition through the gateway. It checks
// that the report is complete and sane, not that the targets are met: every
// step has figures from both systems (the split workload's from the
// gateway alone) that read what the data holds, every read has its ratios
// and a ratio per round, every gateway target is judged, and the run's
// keyspaces are gone from the node afterwards.
func TestQuickGateway(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a gateway over a real Cassandra node")
	}
	if withoutCassandra() && os.Getenv(referenceAddrEnv) == "" {
		t.Skip("PARTITA_NO_CASSANDRA=1 outside CI and no PARTITA_REFERENCE_ADDR")
	}
	out := t.TempDir()
	var log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Options{
		Target: TargetGateway, Rounds: 2, Quick: true, Duration: 300 * time.Millisecond, Rows: 1000,
		SplitRows: testGatewaySplitRows, SplitMaxRows: testGatewaySplitMaxRows, splitTiming: testSplitTiming,
		OutDir: out, Progress: io.Discard, Log: &log,
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
		t.Fatalf("a workload failed\n%s", log.String())
	}
	st := rep.Settings
	if st.Target != TargetGateway || st.Rounds != 2 || !strings.HasPrefix(st.ClusterVersion, "5.0.") || st.BackendKeyspace == "" || st.DirectKeyspace == "" {
		t.Fatalf("settings %+v, want the gateway target over Cassandra 5.0 in 2 rounds", st)
	}
	var ran []string
	for _, w := range rep.Workloads {
		ran = append(ran, w.Name)
	}
	if !slices.Equal(ran, gatewayWorkloads) {
		t.Fatalf("workloads %v, want %v", ran, gatewayWorkloads)
	}
	for _, w := range rep.Workloads {
		for _, s := range w.Steps {
			checkGatewayStep(t, w.Name, s)
		}
	}
	checkSplit(t, rep, summary.String())
	judged := 0
	for _, tg := range rep.Targets {
		if strings.HasPrefix(tg.Name, "gateway ") {
			judged++
			if tg.Met == nil {
				t.Errorf("target %s not judged: %s", tg.Name, tg.Verdict)
			}
		}
	}
	// The reads of iot (1), user-events (2) and hot-asset (2), and the
	// split workload's latest-100.
	if judged != 6 {
		t.Errorf("%d gateway targets, want 6: %+v", judged, rep.Targets)
	}
	if rep.Restart == nil || rep.Restart.FirstQueryMs <= 0 {
		t.Errorf("the gateway's restart not measured: %+v (%s)", rep.Restart, rep.RestartError)
	}
	if st, err := os.Stat(filepath.Join(out, "results.json")); err != nil || st.Size() == 0 {
		t.Errorf("results.json not written: %v", err)
	}
	if addr := os.Getenv(referenceAddrEnv); addr != "" {
		checkKeyspacesDropped(t, addr, rep.Settings.BackendKeyspace, rep.Settings.DirectKeyspace)
	}
}

// checkGatewayStep wants figures from the gateway and, outside the split
// workload, from the direct system, reads that returned the rows the data
// holds, and for every read the ratios and one ratio per round.
func checkGatewayStep(t *testing.T, workload string, s *StepResult) {
	t.Helper()
	want := []string{SystemPartita, SystemCassandraDirect}
	if workload == WorkloadSplit {
		want = want[:1]
		if s.result(SystemCassandraDirect) != nil {
			t.Errorf("%s %s: the direct system ran the split workload", workload, s.Name)
		}
	}
	for _, sys := range want {
		r := s.result(sys)
		switch {
		case r == nil:
			t.Errorf("%s %s: no result from %s", workload, s.Name, sys)
		case !r.ok():
			t.Errorf("%s %s on %s: no figures: %+v", workload, s.Name, sys, r)
		case r.Mismatches > 0:
			t.Errorf("%s %s on %s: %d of %d reads returned an unexpected number of rows", workload, s.Name, sys, r.Mismatches, r.Requests)
		case r.Latency.Count != r.Requests+r.ServerErrors || r.Latency.P50 <= 0 || r.Latency.P99 < r.Latency.P50:
			t.Errorf("%s %s on %s: latency %+v for %d requests", workload, s.Name, sys, r.Latency, r.Requests)
		}
	}
	if workload == WorkloadSplit || s.Kind != "read" {
		return
	}
	if len(s.Ratios[SystemCassandraDirect]) == 0 {
		t.Errorf("%s %s: no ratios to %s", workload, s.Name, SystemCassandraDirect)
	}
	if len(s.RoundRatios) != 2 {
		t.Errorf("%s %s: %d round ratios, want 2", workload, s.Name, len(s.RoundRatios))
	}
	for _, rr := range s.RoundRatios {
		if rr.P50 <= 0 || rr.P99 <= 0 {
			t.Errorf("%s %s: round ratio %+v", workload, s.Name, rr)
		}
	}
}

// checkKeyspacesDropped wants the run's keyspaces gone from the node.
func checkKeyspacesDropped(t *testing.T, addr string, keyspaces ...string) {
	t.Helper()
	cluster, err := newCluster(addr, 1)
	if err != nil {
		t.Fatal(err)
	}
	s, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, ks := range keyspaces {
		var name string
		iter := s.Query("SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?", ks).Iter()
		found := iter.Scan(&name)
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
		if found {
			t.Errorf("keyspace %s is still on %s", ks, addr)
		}
	}
}

// TestPoolRounds: rounds add their counts and time, pool their latencies
// and keep the largest RSS; a failed round is the result.
func TestPoolRounds(t *testing.T) {
	round := func(ms ...int) *Result {
		r := &Result{System: SystemPartita, Requests: int64(len(ms)), Rows: 10 * int64(len(ms)), Seconds: 1,
			ServerCPUSeconds: 0.5, PeakRSS: int64(len(ms)) << 20, hist: newRecorder()}
		for _, m := range ms {
			r.hist.record(time.Duration(m) * time.Millisecond)
		}
		r.Latency = r.hist.summary()
		return r
	}
	p := poolRounds([]*Result{round(1, 1, 1), round(9, 9)})
	switch {
	case p.Requests != 5 || p.Rows != 50 || p.Seconds != 2 || p.RequestsPerSec != 2.5 || p.RowsPerSec != 25:
		t.Errorf("pooled counts %+v", p)
	case p.Latency.Count != 5 || p.Latency.P50 < 0.99 || p.Latency.P50 > 1.01 || p.Latency.Max < 8.99:
		t.Errorf("pooled latency %+v, want p50 1 ms and max 9 ms", p.Latency)
	case p.PeakRSS != 3<<20 || p.ServerCPUSeconds != 1 || p.ServerCPUMicrosPerRequest != 1e6/5:
		t.Errorf("pooled server figures: RSS %d, CPU %.2f s, %.0f µs/request", p.PeakRSS, p.ServerCPUSeconds, p.ServerCPUMicrosPerRequest)
	}
	failed := &Result{System: SystemPartita, Error: "boom"}
	if got := poolRounds([]*Result{round(1), failed}); got != failed {
		t.Errorf("a failed round pooled into %+v", got)
	}
}

// TestResolveTarget: the gateway target runs the seed workloads and the
// split workload by default, on the node named or in the environment,
// and refuses what it cannot run.
func TestResolveTarget(t *testing.T) {
	t.Setenv(referenceAddrEnv, "127.0.0.1:19150")
	o, err := Options{Target: TargetGateway, Quick: true}.Resolve()
	switch {
	case err != nil:
		t.Fatal(err)
	case !slices.Equal(o.Workloads, gatewayWorkloads) || o.ClusterAddr != "127.0.0.1:19150" || o.Rounds != 1 || o.Peer != PeerNone:
		t.Errorf("resolved to workloads %v, cluster %q, rounds %d, peer %q", o.Workloads, o.ClusterAddr, o.Rounds, o.Peer)
	}
	if o, err := (Options{Target: TargetGateway, Quick: true, ClusterAddr: "10.0.0.1:9042"}).Resolve(); err != nil || o.ClusterAddr != "10.0.0.1:9042" {
		t.Errorf("--cluster-addr: %q, %v", o.ClusterAddr, err)
	}
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Target: "cluster"}, `unknown target "cluster"`},
		{Options{Target: TargetGateway, InProcess: true}, "no --in-process"},
		{Options{Target: TargetGateway, CQLAddr: "127.0.0.1:9042"}, "no --in-process or --cql-addr"},
		{Options{Target: TargetGateway, Peer: PeerPostgres}, "no --peer"},
		{Options{Rounds: 3}, "for --target gateway"},
		{Options{SingleGateway: true}, "for --target gateway"},
	} {
		tc.o.Quick = true
		if _, err := tc.o.Resolve(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.o, err, tc.want)
		}
	}
}
