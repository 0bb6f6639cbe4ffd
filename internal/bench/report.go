package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is everything one run measured; it is written as results.json.
type Report struct {
	Started   time.Time         `json:"started"`
	Seconds   float64           `json:"seconds"`
	Machine   Machine           `json:"machine"`
	Settings  Settings          `json:"settings"`
	Workloads []*WorkloadResult `json:"workloads"`
	// IngestPeakRSS is the largest resident set of the Partita server
	// process during any step (in-process: of this process, driver
	// included, during the ingest steps).
	IngestPeakRSS int64    `json:"ingest_peak_rss_bytes,omitempty"`
	Restart       *Restart `json:"restart,omitempty"`
	RestartError  string   `json:"restart_error,omitempty"`
	// PeerServers describes, by system name, the peer servers the harness
	// started and watched: the Cassandra nodes.
	PeerServers map[string]*PeerServer `json:"peer_servers,omitempty"`
	Targets     []Target               `json:"targets"`
	Notes       []string               `json:"notes,omitempty"`
}

// PeerServer is what the harness measured of a Cassandra peer's node.
type PeerServer struct {
	Version       string `json:"version"`
	CommitlogSync string `json:"commitlog_sync"`
	Heap          string `json:"heap"`
	// StartMs runs from the exec of a node on an empty data directory to
	// its first answer.
	StartMs float64 `json:"start_ms"`
	// IngestPeakRSS is the JVM's largest resident set during any step (the
	// server alone: the driver runs in the harness).
	IngestPeakRSS int64 `json:"ingest_peak_rss_bytes,omitempty"`
	// Restart is the restart on its data after the workloads: StopMs is
	// the drain (SIGTERM), OpenMs runs from the exec to the native port
	// accepting connections, FirstQueryMs to the first answered SELECT
	// through a new driver session.
	Restart      *Restart `json:"restart,omitempty"`
	RestartError string   `json:"restart_error,omitempty"`
}

// Machine describes where the run happened.
type Machine struct {
	CPUs      int    `json:"cpus"`
	MemBytes  int64  `json:"mem_bytes"`
	GoVersion string `json:"go_version"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
}

// Settings are the resolved options that shape the figures.
type Settings struct {
	Workloads     []string `json:"workloads"`
	Quick         bool     `json:"quick"`
	Server        string   `json:"server"` // ServerProcess, ServerInProcess or the --cql-addr
	Connections   int      `json:"connections"`
	Concurrency   int      `json:"concurrency"`
	ReadSeconds   float64  `json:"read_step_seconds"`
	Rows          int      `json:"rows"`
	WideRows      int      `json:"wide_rows"`
	TombstoneRows int      `json:"tombstone_rows"`
	SplitRows     int      `json:"split_rows"`
	SplitOther    int      `json:"split_other_asset_rows"`
	SplitMaxRows  int      `json:"split_max_rows"`
	// SplitWindowSeconds is the server's split hysteresis window (the
	// in-process server's; the default assumed for an external one).
	SplitWindowSeconds float64 `json:"split_window_seconds"`
	// Peer lists the peers, comma-separated, or is "none".
	Peer          string `json:"peer"`
	PebbleFloor   bool   `json:"pebble_floor"`
	CassandraHeap string `json:"cassandra_heap,omitempty"`
	// Target is TargetNode or TargetGateway. For the gateway: the
	// Cassandra node under it (address and version), and the rounds of
	// each timed read.
	Target         string `json:"target"`
	ClusterAddr    string `json:"cluster_addr,omitempty"`
	ClusterVersion string `json:"cluster_version,omitempty"`
	// BackendKeyspace holds the gateway's tables on the node,
	// DirectKeyspace the direct system's; the run drops both at its end.
	BackendKeyspace string `json:"backend_keyspace,omitempty"`
	DirectKeyspace  string `json:"direct_keyspace,omitempty"`
	Rounds          int    `json:"rounds,omitempty"`
	// SingleGateway: the gateway ran with --backend-single-gateway.
	SingleGateway bool `json:"single_gateway,omitempty"`
}

// WorkloadResult holds a workload's steps.
type WorkloadResult struct {
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Steps       []*StepResult `json:"steps"`
	// Errors lists, per system, why the workload stopped early.
	Errors []string `json:"errors,omitempty"`
	// Split describes the split the split workload caused on Partita.
	Split *SplitSummary `json:"split,omitempty"`
}

// SplitSummary is what the split workload saw of the split of its hot
// partition on Partita, from system_partita.splits and split_history.
type SplitSummary struct {
	Partition string `json:"partition"`
	MaxRows   int    `json:"max_rows"`
	// Strategy, RowsBefore (the rows counted at its start), RowsMoved,
	// BytesMoved and FirstChildren describe the first split.
	Strategy      string `json:"strategy"`
	RowsBefore    int64  `json:"rows_before"`
	RowsMoved     int64  `json:"rows_moved"`
	BytesMoved    int64  `json:"bytes_moved"`
	FirstChildren int    `json:"first_children"`
	// Migrations counts the splits of the partition: the first, and any
	// follow-up of its growing end that the writes during the backfill
	// pushed over the limit. Children is their number once it settled.
	Migrations int `json:"migrations"`
	Children   int `json:"children"`
	// DetectSeconds runs from the ALTER TABLE to the first split's start
	// (the hysteresis window and the measurements), BackfillSeconds from
	// that start to its finish, SettledSeconds from the ALTER to the last
	// split's finish.
	DetectSeconds   float64 `json:"detect_seconds"`
	BackfillSeconds float64 `json:"backfill_seconds"`
	SettledSeconds  float64 `json:"settled_seconds"`
	// BackfillShare is the part of the hot-writes-backfill step during
	// which the first split's backfill ran.
	BackfillShare float64 `json:"backfill_share_of_write_step"`
	// The 8-children range: event_ts in [RangeFrom, RangeTo), RangeRows
	// rows, the children as system_partita.splits prints them.
	RangeFrom     time.Time `json:"range_from"`
	RangeTo       time.Time `json:"range_to"`
	RangeRows     int       `json:"range_rows"`
	RangeChildren []string  `json:"range_children,omitempty"`
}

// write prints the split summary's lines.
func (s *SplitSummary) write(w io.Writer, workload string) {
	rate := ""
	if s.BackfillSeconds > 0 {
		rate = ", " + FormatBytes(int64(float64(s.BytesMoved)/s.BackfillSeconds)) + "/s"
	}
	fmt.Fprintf(w, "%s: %s (max_rows %d): %s split of %s rows into %d children, started %.1f s after the ALTER, backfill %.1f s (%s rows, %s moved%s)\n",
		workload, s.Partition, s.MaxRows, s.Strategy, groupThousands(s.RowsBefore), s.FirstChildren, s.DetectSeconds,
		s.BackfillSeconds, groupThousands(s.RowsMoved), FormatBytes(s.BytesMoved), rate)
	fmt.Fprintf(w, "%s: %d split(s), the last finished %.1f s after the ALTER, %d children; the backfill ran for %.0f%% of hot-writes-backfill\n",
		workload, s.Migrations, s.SettledSeconds, s.Children, 100*s.BackfillShare)
	if s.RangeRows > 0 {
		fmt.Fprintf(w, "%s: the 8-children range is event_ts in [%s, %s): %s rows\n", workload,
			s.RangeFrom.UTC().Format(time.RFC3339Nano), s.RangeTo.UTC().Format(time.RFC3339Nano), groupThousands(int64(s.RangeRows)))
	}
}

// StepResult holds every system's figures for one step and Partita's
// ratios to the others.
type StepResult struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"`
	Width int    `json:"partition_width,omitempty"`
	// Results has one entry per system that ran the step, Partita first.
	Results []*Result `json:"results"`
	// Ratios maps a peer's name to Partita's figures divided by its.
	Ratios map[string][]Ratio `json:"ratios,omitempty"`
	// RoundRatios are, for a timed read the gateway target ran in
	// several rounds, the gateway's p50 and p99 divided by the direct
	// system's in each round (Results and Ratios pool the rounds).
	RoundRatios []RoundRatio `json:"round_ratios,omitempty"`
}

// RoundRatio is one round's gateway ÷ direct latency.
type RoundRatio struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
}

func (s *StepResult) result(system string) *Result {
	for _, r := range s.Results {
		if r.System == system {
			return r
		}
	}
	return nil
}

// Failed reports whether any workload, or the restart, stopped on an
// error.
func (r *Report) Failed() bool {
	if r.RestartError != "" {
		return true
	}
	for _, ps := range r.PeerServers {
		if ps.RestartError != "" {
			return true
		}
	}
	for _, w := range r.Workloads {
		if len(w.Errors) > 0 {
			return true
		}
	}
	return false
}

func machine() Machine {
	return Machine{CPUs: runtime.NumCPU(), MemBytes: memTotal(), GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
}

// memTotal reads MemTotal from /proc/meminfo (0 elsewhere).
func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var kb int64
		if _, err := fmt.Sscanf(sc.Text(), "MemTotal: %d kB", &kb); err == nil {
			return kb * 1024
		}
	}
	return 0
}

// computeRatios fills every step's ratios of Partita to each peer.
func (r *Report) computeRatios() {
	for _, w := range r.Workloads {
		for _, s := range w.Steps {
			p := s.result(SystemPartita)
			if !p.ok() {
				continue
			}
			for _, peer := range s.Results {
				if peer.System == SystemPartita || !peer.ok() {
					continue
				}
				if s.Ratios == nil {
					s.Ratios = map[string][]Ratio{}
				}
				s.Ratios[peer.System] = stepRatios(p, peer)
			}
		}
	}
}

// stepRatios divides Partita's figures by a peer's: throughput (higher is
// better) and latency percentiles (lower is better).
func stepRatios(p, peer *Result) []Ratio {
	var out []Ratio
	add := func(metric string, a, b float64, better Better) {
		if v, ok := ratioOf(a, b); ok {
			out = append(out, Ratio{Metric: metric, Value: v, Better: better})
		}
	}
	add("throughput", p.RowsPerSec, peer.RowsPerSec, HigherIsBetter)
	if p.Rows == 0 || peer.Rows == 0 {
		add("throughput", p.RequestsPerSec, peer.RequestsPerSec, HigherIsBetter)
	}
	add("p50", p.Latency.P50, peer.Latency.P50, LowerIsBetter)
	add("p95", p.Latency.P95, peer.Latency.P95, LowerIsBetter)
	add("p99", p.Latency.P99, peer.Latency.P99, LowerIsBetter)
	add("p99.9", p.Latency.P999, peer.Latency.P999, LowerIsBetter)
	if p.ServerCPUMicrosPerRequest > 0 {
		add("server_cpu_per_request", p.ServerCPUMicrosPerRequest, peer.ServerCPUMicrosPerRequest, LowerIsBetter)
	}
	return out
}

// WriteJSON writes the report to dir/results.json.
func (r *Report) WriteJSON(dir string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "results.json"), append(b, '\n'), 0o644)
}

// WriteSummary prints the table of every step, the ratios and the targets.
func (r *Report) WriteSummary(out io.Writer) error {
	bw := bufio.NewWriter(out)
	fmt.Fprintf(bw, "partita bench: %d CPUs, %s memory, %s; %d connections, %d requests in flight, read steps %gs after a %gs warm-up\n",
		r.Machine.CPUs, FormatBytes(r.Machine.MemBytes), r.Machine.GoVersion, r.Settings.Connections,
		r.Settings.Concurrency, r.Settings.ReadSeconds, r.Settings.ReadSeconds/warmupDivisor)
	fmt.Fprintln(bw, "ratio = Partita ÷ peer. Throughput: higher is better (↑). Latency: lower is better (↓).")
	if r.Settings.Target == TargetGateway {
		fmt.Fprintf(bw, "Target gateway: partita is `serve --backend cassandra` over Cassandra %s on %s; %s is that node read and written directly. "+
			"Each step runs on both before the next; timed reads in %d round(s), alternating which goes first, pooled.\n",
			r.Settings.ClusterVersion, r.Settings.ClusterAddr, SystemCassandraDirect, r.Settings.Rounds)
		if r.Settings.SingleGateway {
			fmt.Fprintln(bw, "The gateway runs with --backend-single-gateway (no leases, split states as metadata).")
		}
	}
	fmt.Fprintf(bw, "Server (%s): CPU µs and heap bytes allocated per request, peak RSS, of the server process alone (PostgreSQL: with its backends).\n", r.Settings.Server)
	fmt.Fprintln(bw)
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\tstep\tsystem\trows/s ↑\treq/s ↑\tp50 ↓\tp95 ↓\tp99 ↓\tp99.9 ↓\tcpu µs/req ↓\talloc/req ↓\tpeak RSS ↓\t")
	for _, w := range r.Workloads {
		for _, s := range w.Steps {
			writeStepRows(tw, w.Name, s)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, w := range r.Workloads {
		for _, s := range w.Steps {
			for _, res := range s.Results {
				if res.Note != "" || res.Skipped != "" || res.Mismatches > 0 || res.ServerErrors > 0 || res.Resent > 0 {
					fmt.Fprintf(bw, "%s %s (%s): %s\n", w.Name, s.Name, res.System, resultRemark(res))
				}
			}
		}
		if w.Split != nil {
			w.Split.write(bw, w.Name)
		}
		for _, e := range w.Errors {
			fmt.Fprintf(bw, "%s FAILED: %s\n", w.Name, e)
		}
	}
	r.writeExtras(bw)
	return bw.Flush()
}

func writeStepRows(tw io.Writer, workload string, s *StepResult) {
	for i, res := range s.Results {
		w, name := workload, s.Name
		if i > 0 {
			w, name = "", ""
		}
		if !res.ok() {
			status := "skipped"
			if res.Error != "" {
				status = "error"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\t\t\t\t\t\t\t\t\n", w, name, res.System, status)
			continue
		}
		l := res.Latency
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", w, name, res.System,
			FormatRate(res.RowsPerSec), FormatRate(res.RequestsPerSec),
			FormatMillis(l.P50), FormatMillis(l.P95), FormatMillis(l.P99), FormatMillis(l.P999),
			formatMicros(res.ServerCPUMicrosPerRequest), formatAlloc(res.ServerAllocBytesPerRequest), formatRSS(res.PeakRSS))
	}
	for _, peer := range systemOrder[1:] {
		rs, ok := s.Ratios[peer]
		if !ok {
			continue
		}
		cells := map[string]string{}
		for _, r := range rs {
			cells[r.Metric] = formatFactor(r.Value)
		}
		req := cells["throughput"]
		fmt.Fprintf(tw, "\t\t÷ %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\t\t\n", peer, req, "", cells["p50"], cells["p95"], cells["p99"], cells["p99.9"],
			cells["server_cpu_per_request"])
	}
}

func resultRemark(res *Result) string {
	var parts []string
	if res.Skipped != "" {
		parts = append(parts, "skipped: "+res.Skipped)
	}
	if res.Note != "" {
		parts = append(parts, res.Note)
	}
	if res.ServerErrors > 0 {
		parts = append(parts, fmt.Sprintf("the server gave up on %d of %d requests (first: %q); their time to that answer is in the percentiles, which are lower bounds",
			res.ServerErrors, res.ServerErrors+res.Requests, res.FirstServerError))
	}
	if res.Resent > 0 {
		parts = append(parts, fmt.Sprintf("%d writes sent again after the server gave up on them (their latency includes every attempt)", res.Resent))
	}
	if res.Mismatches > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d reads returned an unexpected number of rows", res.Mismatches, res.Requests))
	}
	return strings.Join(parts, "; ")
}

// writeExtras prints restart, memory, targets and notes.
func (r *Report) writeExtras(bw *bufio.Writer) {
	fmt.Fprintln(bw)
	if r.Restart != nil {
		fmt.Fprintf(bw, "restart: stop %s; reopen %s; first SELECT answered %s after reopening (%s of data; %q)\n",
			FormatMillis(r.Restart.StopMs), FormatMillis(r.Restart.OpenMs), FormatMillis(r.Restart.FirstQueryMs),
			FormatBytes(r.Restart.DataBytes), r.Restart.Query)
	}
	if r.RestartError != "" {
		fmt.Fprintf(bw, "restart FAILED: %s\n", r.RestartError)
	}
	if r.IngestPeakRSS > 0 {
		if r.Settings.Server == ServerInProcess {
			fmt.Fprintf(bw, "peak RSS during ingest: %s (server and driver share this process)\n", FormatBytes(r.IngestPeakRSS))
		} else {
			fmt.Fprintf(bw, "peak RSS of the server process during the workloads: %s (the server alone)\n", FormatBytes(r.IngestPeakRSS))
		}
	}
	for _, name := range systemOrder {
		if ps := r.PeerServers[name]; ps != nil {
			ps.write(bw, name)
		}
	}
	if len(r.Targets) > 0 {
		fmt.Fprintln(bw, "\ntargets (reported, not enforced):")
		tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		for _, t := range r.Targets {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", t.Name, t.Goal, t.Measured, t.Verdict)
		}
		tw.Flush()
	}
	for _, n := range r.Notes {
		fmt.Fprintln(bw, "note:", n)
	}
}

// write prints a peer server's lines.
func (ps *PeerServer) write(w io.Writer, name string) {
	fmt.Fprintf(w, "%s: Cassandra %s, commitlog_sync %s, heap %s; first start %s to its first answer (empty node)\n",
		name, ps.Version, ps.CommitlogSync, ps.Heap, FormatMillis(ps.StartMs))
	if ps.IngestPeakRSS > 0 {
		fmt.Fprintf(w, "%s: peak JVM RSS during the workloads: %s (the server alone)\n", name, FormatBytes(ps.IngestPeakRSS))
	}
	if r := ps.Restart; r != nil {
		fmt.Fprintf(w, "%s: restart: stop %s; native port open %s after the exec; first SELECT answered %s after it (%s of data; %q)\n",
			name, FormatMillis(r.StopMs), FormatMillis(r.OpenMs), FormatMillis(r.FirstQueryMs), FormatBytes(r.DataBytes), r.Query)
	}
	if ps.RestartError != "" {
		fmt.Fprintf(w, "%s: restart FAILED: %s\n", name, ps.RestartError)
	}
}
