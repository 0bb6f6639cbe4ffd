package bench

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func res(system string, rowsPerSec, p99 float64) *Result {
	return &Result{System: system, Requests: 100, Rows: 100, Seconds: 1, RequestsPerSec: rowsPerSec, RowsPerSec: rowsPerSec,
		Latency: Summary{Count: 100, P50: p99 / 4, P95: p99 / 2, P99: p99, P999: p99 * 2, Max: p99 * 3}}
}

// sampleReport has every kind of step the targets look at.
func sampleReport() *Report {
	wide := &WorkloadResult{Name: WorkloadWide}
	for _, w := range []struct {
		width int
		p99   float64
	}{{1000, 2}, {20000, 3}} {
		for _, read := range []string{"latest-100-asc", "latest-100-desc", "range-1h"} {
			p99 := w.p99
			if read == "latest-100-desc" {
				p99 *= 1.1
			}
			wide.Steps = append(wide.Steps, &StepResult{Name: read + "@" + widthLabel(w.width), Kind: "read", Width: w.width,
				Results: []*Result{res(SystemPartita, 1000, p99), res(SystemPostgres, 2000, p99/2)}})
		}
	}
	r := &Report{
		Machine:  Machine{CPUs: 2, MemBytes: 8 << 30, GoVersion: "go1.26", OS: "linux", Arch: "amd64"},
		Settings: Settings{Server: ServerInProcess, Connections: 2, Concurrency: 32, ReadSeconds: 2},
		Workloads: []*WorkloadResult{{
			Name: WorkloadIoT,
			Steps: []*StepResult{
				{Name: "ingest", Kind: "write", Results: []*Result{res(SystemPartita, 30000, 4), res(SystemPostgres, 10000, 8), res(SystemPebble, 100000, 1)}},
				{Name: "latest-10", Kind: "read", Results: []*Result{res(SystemPartita, 5000, 2), {System: SystemPostgres, Error: "boom"}}},
			},
		}, wide, {
			Name: WorkloadTombstones,
			Steps: []*StepResult{
				{Name: "slice-behind-deleted", Kind: "read", Results: []*Result{res(SystemPartita, 100, 9)}},
				{Name: "slice-clean", Kind: "read", Results: []*Result{res(SystemPartita, 1000, 3)}},
			},
		}, {
			Name:  WorkloadLWT,
			Steps: []*StepResult{{Name: "contended-update", Kind: "cas", Results: []*Result{{System: SystemPartita, Skipped: "server does not support LWT yet"}}}},
		}},
		IngestPeakRSS: 400 << 20,
		Restart:       &Restart{DataBytes: 1 << 30, OpenMs: 100, FirstQueryMs: 250},
	}
	r.Workloads = append(r.Workloads, sampleSplit())
	return r
}

// TestServerProcessTargets: with the server in a process of its own, its
// CPU per single-row write and per latest-100 read of the widest partition
// are judged, and its RSS against the goal for the server alone.
func TestServerProcessTargets(t *testing.T) {
	r := sampleReport()
	r.Settings.Server = ServerProcess
	r.Workloads[0].Steps[0].Results[0].ServerCPUMicrosPerRequest = 12
	for _, s := range r.workload(WorkloadWide).Steps {
		s.Results[0].ServerCPUMicrosPerRequest = 50 // the 1k-row steps: not the widest
		if s.Name == "latest-100-asc@20k" {
			s.Results[0].ServerCPUMicrosPerRequest = 30
		}
	}
	r.computeRatios()
	r.computeTargets()
	verdicts := map[string]string{}
	for _, tg := range r.Targets {
		verdicts[tg.Name] = tg.Verdict + " | " + tg.Measured
	}
	for name, want := range map[string]string{
		"server CPU per write": "missed: 20% over | 12.0 µs (ingest)",
		"server CPU per read":  "met | 30.0 µs (latest-100-asc@20k)",
		"memory":               "missed: 100% over | 400.0 MiB (the server alone)",
	} {
		if verdicts[name] != want {
			t.Errorf("%s: %q, want %q", name, verdicts[name], want)
		}
	}
	var out bytes.Buffer
	if err := r.WriteSummary(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "peak RSS of the server process during the workloads: 400.0 MiB (the server alone)") {
		t.Errorf("summary:\n%s", out.String())
	}
}

// sampleSplit has the split workload's steps: latest-100 slower after the
// split, the 1-hour range faster; the LIMIT 100 over 8 children twice the
// unsplit one; writes during the backfill at 0.8× idle, half of the step
// during the backfill.
func sampleSplit() *WorkloadResult {
	step := func(name string, kind string, rows, p99 float64) *StepResult {
		return &StepResult{Name: name, Kind: kind, Results: []*Result{res(SystemPartita, rows, p99), res(SystemPostgres, rows, p99)}}
	}
	from := time.Date(2026, 1, 20, 4, 0, 0, 1_000_000, time.UTC)
	return &WorkloadResult{
		Name: WorkloadSplit,
		Steps: []*StepResult{
			step("ingest", "write", 100_000, 50),
			step("latest-100-before", "read", 1000, 2), step("range-1h-before", "read", 1000, 10),
			step("hot-writes-idle", "write", 1000, 5), step("hot-writes-backfill", "write", 800, 9),
			step("latest-100-after", "read", 1000, 3), step("range-1h-after", "read", 1000, 9),
			step("range-8-children", "read", 1000, 8), step("range-8-children-unsplit", "read", 1000, 8),
			step("range-8-children-limit-100", "read", 1000, 4), step("range-8-children-limit-100-unsplit", "read", 1000, 2),
		},
		Split: &SplitSummary{Partition: splitHotKey, MaxRows: 100_000, Strategy: "rollover", RowsBefore: 2_100_000,
			RowsMoved: 2_000_000, BytesMoved: 300 << 20, FirstChildren: 28, Migrations: 2, Children: 30,
			DetectSeconds: 12, BackfillSeconds: 80, SettledSeconds: 110, BackfillShare: 0.5,
			RangeFrom: from, RangeTo: from.Add(16 * time.Hour), RangeRows: 600_000, RangeChildren: []string{"shard 3: [...)"}},
	}
}

func TestRatiosAndTargets(t *testing.T) {
	r := sampleReport()
	r.computeRatios()
	r.computeTargets()
	ingest := r.Workloads[0].Steps[0].Ratios
	want := map[string][]Ratio{
		SystemPostgres: {{"throughput", 3, HigherIsBetter}, {"p50", 0.5, LowerIsBetter}, {"p95", 0.5, LowerIsBetter},
			{"p99", 0.5, LowerIsBetter}, {"p99.9", 0.5, LowerIsBetter}},
		SystemPebble: {{"throughput", 0.3, HigherIsBetter}, {"p50", 4, LowerIsBetter}, {"p95", 4, LowerIsBetter},
			{"p99", 4, LowerIsBetter}, {"p99.9", 4, LowerIsBetter}},
	}
	if !reflect.DeepEqual(ingest, want) {
		t.Errorf("ingest ratios\n got %v\nwant %v", ingest, want)
	}
	if got := r.Workloads[0].Steps[1].Ratios; got != nil {
		t.Errorf("a step whose peer failed has ratios %v", got)
	}
	verdicts := map[string]string{}
	for _, tg := range r.Targets {
		verdicts[tg.Name] = tg.Verdict
	}
	wantVerdicts := map[string]string{
		"iot ingest vs postgres":                      "met",
		"iot ingest vs pebble":                        "missed: 25% below",
		"flatness latest-100-asc":                     "missed: 15% over",
		"flatness latest-100-desc":                    "missed: 15% over",
		"flatness range-1h":                           "missed: 15% over",
		"DESC vs ASC":                                 "met",
		"tombstones":                                  "missed: 50% over",
		"restart":                                     "met",
		"memory":                                      "missed: 33% over",
		"split latest-100 after/before":               "missed: 50% over",
		"split range-1h after/before":                 "met",
		"split range-8-children vs unsplit":           "met",
		"split range-8-children-limit-100 vs unsplit": "missed: 54% over",
		"split writes during backfill":                "met",
		"server CPU per write":                        "not measured: needs the server in a process of its own",
		"server CPU per read":                         "not measured: needs the server in a process of its own",
	}
	if !reflect.DeepEqual(verdicts, wantVerdicts) {
		t.Errorf("verdicts\n got %v\nwant %v", verdicts, wantVerdicts)
	}
	if got := len(r.missedTargets()); got != 8 {
		t.Errorf("%d missed targets, want 8: %v", got, r.missedTargets())
	}
}

func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		value, limit float64
		better       Better
		want         string
	}{
		{2.5, 2, HigherIsBetter, "met"},
		{2, 2, HigherIsBetter, "met"},
		{1, 2, HigherIsBetter, "missed: 50% below"},
		{1.2, 1.3, LowerIsBetter, "met"},
		{2.6, 1.3, LowerIsBetter, "missed: 100% over"},
		{1.305, 1.3, LowerIsBetter, "missed: 0.4% over"},
	} {
		if got := judge("x", "goal", tc.value, tc.limit, tc.better, "").Verdict; got != tc.want {
			t.Errorf("judge(%v, %v, %s) = %q, want %q", tc.value, tc.limit, tc.better, got, tc.want)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	r := sampleReport()
	r.computeRatios()
	r.computeTargets()
	dir := t.TempDir()
	if err := r.WriteJSON(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, r) {
		t.Errorf("results.json does not read back as the report:\n%s", b)
	}
	for _, key := range []string{`"p99_ms"`, `"rows_per_sec"`, `"ratios"`, `"better": "higher"`, `"skipped"`, `"first_query_ms"`} {
		if !bytes.Contains(b, []byte(key)) {
			t.Errorf("results.json lacks %s", key)
		}
	}
}

func TestSummary(t *testing.T) {
	r := sampleReport()
	r.computeRatios()
	r.computeTargets()
	var out bytes.Buffer
	if err := r.WriteSummary(&out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{
		"Throughput: higher is better (↑). Latency: lower is better (↓).",
		"÷ postgres", "3.00×", "÷ pebble", "0.30×",
		"lwt contended-update (partita): skipped: server does not support LWT yet",
		"restart: stop", "peak RSS during ingest: 400.0 MiB",
		"targets (reported, not enforced):", "missed: 25% below",
		"split: 'asset-0', '2026-01-20' (max_rows 100000): rollover split of 2,100,000 rows into 28 children",
		"the backfill ran for 50% of hot-writes-backfill",
		"the 8-children range is event_ts in [2026-01-20T04:00:00.001Z, 2026-01-20T20:00:00.001Z): 600,000 rows",
		"800/s vs 1,000/s (0.80×); the backfill ran for 50% of the step",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}

func TestCharts(t *testing.T) {
	r := sampleReport()
	dir := t.TempDir()
	files, err := r.WriteCharts(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("charts %v, want throughput and wide latency", files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("%s is not a PNG", f)
		}
	}
}
