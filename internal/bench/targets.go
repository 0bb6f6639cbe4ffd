package bench

import (
	"fmt"
	"strings"
)

// Target is one of the performance goals, set against this run's figures.
type Target struct {
	Name     string `json:"name"`
	Goal     string `json:"goal"`
	Measured string `json:"measured"`
	// Met is nil when the run has no figure for the goal.
	Met     *bool  `json:"met,omitempty"`
	Verdict string `json:"verdict"`
}

// Goals (issue "Benchmark harness").
const (
	goalIngestVsPostgres = 2.0
	goalIngestVsPebble   = 0.4
	goalFlatness         = 1.3
	goalDescVsAsc        = 1.2
	goalTombstones       = 2.0
	goalRestartMs        = 1000.0
	goalRSSBytes         = 300 << 20
	// Issue "Performance: the server in its own process": the server
	// process alone, per request and in memory.
	goalServerRSSBytes     = 200 << 20
	goalWriteCPUMicros     = 10.0
	goalLatest100CPUMicros = 40.0
	// Seed 003's promise: a split partition reads no slower than it did
	// whole, a read across 8 children costs at most 1.3× the same read
	// unsplit, and writes keep 0.7× of their rate while a backfill runs.
	goalSplitReadAfter = 1.0
	goalSplitFanOut    = 1.3
	goalSplitWrites    = 0.7
	// Against Apache Cassandra 5.0 (commitlog_sync: batch), in the same
	// run: ingest rows/s, p99 of the latest 100 rows and of a 1-hour range
	// in the widest partition (5M rows in full runs), p99 of the slice
	// behind range-deleted rows (1M in full runs), start to first answer
	// on the data, and the server's peak RSS.
	goalIngestVsCassandra     = 1.5
	goalWideReadVsCassandra   = 0.5
	goalTombstonesVsCassandra = 0.3
	goalStartVsCassandra      = 1.0 / 20
	goalRSSVsCassandra        = 1.0 / 4
)

// judge states whether measured meets goal, and by how much it misses.
func judge(name, goal string, value, limit float64, better Better, measured string) Target {
	met := value <= limit
	if better == HigherIsBetter {
		met = value >= limit
	}
	t := Target{Name: name, Goal: goal, Measured: measured, Met: &met, Verdict: "met"}
	if !met {
		if better == HigherIsBetter {
			t.Verdict = "missed: " + percent(1-value/limit) + " below"
		} else {
			t.Verdict = "missed: " + percent(value/limit-1) + " over"
		}
	}
	return t
}

// percent prints a share as a whole percentage, or with one decimal below
// 1% (a miss never reads "0%").
func percent(f float64) string {
	if p := 100 * f; p < 0.95 {
		return fmt.Sprintf("%.1f%%", p)
	}
	return fmt.Sprintf("%.0f%%", 100*f)
}

func unmeasured(name, goal, why string) Target {
	return Target{Name: name, Goal: goal, Measured: "-", Verdict: "not measured: " + why}
}

// computeTargets sets the goals against the figures present.
func (r *Report) computeTargets() {
	r.Targets = nil
	r.ingestTargets()
	if w := r.workload(WorkloadWide); w != nil {
		r.Targets = append(r.Targets, wideTargets(w)...)
	}
	if w := r.workload(WorkloadTombstones); w != nil {
		behind, clean := w.step("slice-behind-deleted"), w.step("slice-clean")
		if p, c := behind.partita(), clean.partita(); p != nil && c != nil {
			v := p.Latency.P99 / c.Latency.P99
			r.Targets = append(r.Targets, judge("tombstones", "slice p99 behind deleted rows ≤ 2× clean slice p99",
				v, goalTombstones, LowerIsBetter, fmt.Sprintf("%s vs %s (%s)", FormatMillis(p.Latency.P99),
					FormatMillis(c.Latency.P99), formatFactor(v))))
		}
	}
	if w := r.workload(WorkloadSplit); w != nil {
		r.Targets = append(r.Targets, splitTargets(w)...)
	}
	r.Targets = append(r.Targets, r.gatewayTargets()...)
	r.Targets = append(r.Targets, r.cassandraTargets()...)
	const restartGoal = "first answered query < 1 s after reopening (goal stated for 5 GB of data)"
	switch {
	case r.RestartError != "":
		r.Targets = append(r.Targets, unmeasured("restart", restartGoal, "the restart failed"))
	case r.Restart == nil:
		r.Targets = append(r.Targets, unmeasured("restart", restartGoal, "needs a server the harness starts"))
	default:
		t := judge("restart", restartGoal,
			r.Restart.FirstQueryMs, goalRestartMs, LowerIsBetter,
			fmt.Sprintf("%s with %s", FormatMillis(r.Restart.FirstQueryMs), FormatBytes(r.Restart.DataBytes)))
		r.Targets = append(r.Targets, t)
	}
	rssGoal, rssLimit, rssWhose := "RSS ≤ 200 MiB during every workload (the server process alone)", float64(goalServerRSSBytes), " (the server alone)"
	if r.Settings.Server == ServerInProcess {
		rssGoal, rssLimit, rssWhose = "RSS ≤ 300 MiB during ingest", goalRSSBytes, " (server + driver)"
	}
	if r.IngestPeakRSS == 0 {
		r.Targets = append(r.Targets, unmeasured("memory", rssGoal, "needs a server the harness starts"))
	} else {
		r.Targets = append(r.Targets, judge("memory", rssGoal, float64(r.IngestPeakRSS),
			rssLimit, LowerIsBetter, FormatBytes(r.IngestPeakRSS)+rssWhose))
	}
	r.Targets = append(r.Targets, r.serverCPUTargets()...)
}

// serverCPUTargets sets the server process's CPU time per request against
// its goals: a single-row write (iot ingest) and a read of the latest 100
// rows of the widest partition (wide).
func (r *Report) serverCPUTargets() []Target {
	var out []Target
	cpu := func(name, goal string, s *StepResult, limit float64) {
		p := s.partita()
		switch {
		case s == nil:
		case p == nil || p.ServerCPUMicrosPerRequest <= 0:
			out = append(out, unmeasured(name, goal, "needs the server in a process of its own"))
		default:
			out = append(out, judge(name, goal, p.ServerCPUMicrosPerRequest, limit, LowerIsBetter,
				fmt.Sprintf("%s µs (%s)", formatMicros(p.ServerCPUMicrosPerRequest), s.Name)))
		}
	}
	if w := r.workload(WorkloadIoT); w != nil {
		cpu("server CPU per write", "server CPU ≤ 10 µs per single-row write", w.step("ingest"), goalWriteCPUMicros)
	}
	if w := r.workload(WorkloadWide); w != nil {
		var widest *StepResult
		for _, s := range w.Steps {
			if strings.HasPrefix(s.Name, "latest-100-asc@") && (widest == nil || s.Width > widest.Width) {
				widest = s
			}
		}
		cpu("server CPU per read", "server CPU ≤ 40 µs per latest-100 read", widest, goalLatest100CPUMicros)
	}
	return out
}

// ingestTargets compares the single-row ingest steps' rows/s with the
// peers.
func (r *Report) ingestTargets() {
	for _, peer := range []struct {
		system, goal string
		limit        float64
	}{
		{SystemPostgres, "ingest rows/s ≥ 2× PostgreSQL", goalIngestVsPostgres},
		{SystemCassandra, "ingest rows/s ≥ 1.5× Cassandra", goalIngestVsCassandra},
		{SystemPebble, "ingest rows/s ≥ 0.4× raw Pebble", goalIngestVsPebble},
	} {
		for _, w := range r.Workloads {
			s := w.step("ingest")
			if s == nil || w.Name == WorkloadSplit { // the split workload ingests in batches
				continue
			}
			for _, ratio := range s.Ratios[peer.system] {
				if ratio.Metric == "throughput" {
					r.Targets = append(r.Targets, judge(w.Name+" ingest vs "+peer.system, peer.goal, ratio.Value,
						peer.limit, HigherIsBetter, formatFactor(ratio.Value)))
				}
			}
		}
	}
}

// wideTargets: p99 at the largest width against the smallest, per read,
// and DESC against ASC at the largest width.
func wideTargets(w *WorkloadResult) []Target {
	var out []Target
	first, last := 0, 0
	for _, s := range w.Steps {
		if s.Width > 0 && (first == 0 || s.Width < first) {
			first = s.Width
		}
		last = max(last, s.Width)
	}
	if first == 0 || first == last {
		return nil
	}
	for _, read := range []string{"latest-100-asc", "latest-100-desc", "range-1h"} {
		a, b := w.step(read+"@"+widthLabel(first)).partita(), w.step(read+"@"+widthLabel(last)).partita()
		if a == nil || b == nil {
			continue
		}
		v := b.Latency.P99 / a.Latency.P99
		out = append(out, judge("flatness "+read, fmt.Sprintf("p99 at %s rows ≤ 1.3× p99 at %s", widthLabel(last), widthLabel(first)),
			v, goalFlatness, LowerIsBetter, fmt.Sprintf("%s vs %s (%s)", FormatMillis(b.Latency.P99), FormatMillis(a.Latency.P99), formatFactor(v))))
	}
	asc, desc := w.step("latest-100-asc@"+widthLabel(last)).partita(), w.step("latest-100-desc@"+widthLabel(last)).partita()
	if asc != nil && desc != nil {
		v := desc.Latency.P99 / asc.Latency.P99
		out = append(out, judge("DESC vs ASC", fmt.Sprintf("latest-100 DESC p99 ≤ 1.2× ASC p99 (at %s rows)", widthLabel(last)),
			v, goalDescVsAsc, LowerIsBetter, fmt.Sprintf("%s vs %s (%s)", FormatMillis(desc.Latency.P99), FormatMillis(asc.Latency.P99), formatFactor(v))))
	}
	return out
}

func (r *Report) workload(name string) *WorkloadResult {
	for _, w := range r.Workloads {
		if w.Name == name {
			return w
		}
	}
	return nil
}

func (w *WorkloadResult) step(name string) *StepResult {
	for _, s := range w.Steps {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// partita returns Partita's result when it has figures.
func (s *StepResult) partita() *Result {
	if s == nil {
		return nil
	}
	if r := s.result(SystemPartita); r.ok() {
		return r
	}
	return nil
}

// missedTargets lists the targets missed, for the closing note.
func (r *Report) missedTargets() []string {
	var out []string
	for _, t := range r.Targets {
		if t.Met != nil && !*t.Met {
			out = append(out, fmt.Sprintf("%s (%s)", t.Name, strings.TrimPrefix(t.Verdict, "missed: ")))
		}
	}
	return out
}

// splitTargets: the hot partition's reads after its split against before
// (p99), the reads across 8 children against the unsplit copy, and the
// writes during the backfill against idle.
func splitTargets(w *WorkloadResult) []Target {
	var out []Target
	vs := func(a, b float64, format func(float64) string) string {
		return fmt.Sprintf("%s vs %s (%s)", format(a), format(b), formatFactor(a/b))
	}
	for _, read := range []string{"latest-100", "range-1h"} {
		name, goal := "split "+read+" after/before", read+" p99 after the split ≤ 1× before"
		before, after := w.step(read+"-before").partita(), w.step(read+"-after").partita()
		if before == nil || after == nil {
			out = append(out, unmeasured(name, goal, "no figures for both reads"))
			continue
		}
		out = append(out, judge(name, goal, after.Latency.P99/before.Latency.P99, goalSplitReadAfter, LowerIsBetter,
			vs(after.Latency.P99, before.Latency.P99, FormatMillis)))
	}
	for _, read := range []struct {
		step, goal string
		latency    func(Summary) float64
	}{
		{"range-8-children", "p50 over 8 children (one read in flight) ≤ 1.3× unsplit", func(l Summary) float64 { return l.P50 }},
		{"range-8-children-limit-100", "p99 of LIMIT 100 over 8 children ≤ 1.3× unsplit", func(l Summary) float64 { return l.P99 }},
	} {
		name := "split " + read.step + " vs unsplit"
		split, whole := w.step(read.step).partita(), w.step(read.step+"-unsplit").partita()
		if split == nil || whole == nil {
			out = append(out, unmeasured(name, read.goal, "no figures for both reads"))
			continue
		}
		a, b := read.latency(split.Latency), read.latency(whole.Latency)
		out = append(out, judge(name, read.goal, a/b, goalSplitFanOut, LowerIsBetter, vs(a, b, FormatMillis)))
	}
	const name, goal = "split writes during backfill", "hot-partition rows/s during the backfill ≥ 0.7× idle"
	idle, busy := w.step("hot-writes-idle").partita(), w.step("hot-writes-backfill").partita()
	switch {
	case idle == nil || busy == nil:
		out = append(out, unmeasured(name, goal, "no figures for both write steps"))
	case w.Split != nil && w.Split.BackfillShare == 0:
		out = append(out, unmeasured(name, goal, "the backfill did not run during the writes"))
	default:
		measured := vs(busy.RowsPerSec, idle.RowsPerSec, FormatRate)
		if w.Split != nil && w.Split.BackfillShare < 1 {
			measured += fmt.Sprintf("; the backfill ran for %.0f%% of the step", 100*w.Split.BackfillShare)
		}
		out = append(out, judge(name, goal, busy.RowsPerSec/idle.RowsPerSec, goalSplitWrites, HigherIsBetter, measured))
	}
	return out
}
