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
			t.Verdict = fmt.Sprintf("missed: %.0f%% below", 100*(1-value/limit))
		} else {
			t.Verdict = fmt.Sprintf("missed: %.0f%% over", 100*(value/limit-1))
		}
	}
	return t
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
	const restartGoal = "first answered query < 1 s after reopening (goal stated for 5 GB of data)"
	switch {
	case r.RestartError != "":
		r.Targets = append(r.Targets, unmeasured("restart", restartGoal, "the restart failed"))
	case r.Restart == nil:
		r.Targets = append(r.Targets, unmeasured("restart", restartGoal, "needs the in-process server"))
	default:
		t := judge("restart", restartGoal,
			r.Restart.FirstQueryMs, goalRestartMs, LowerIsBetter,
			fmt.Sprintf("%s with %s", FormatMillis(r.Restart.FirstQueryMs), FormatBytes(r.Restart.DataBytes)))
		r.Targets = append(r.Targets, t)
	}
	const rssGoal = "RSS ≤ 300 MiB during ingest"
	if r.IngestPeakRSS == 0 {
		r.Targets = append(r.Targets, unmeasured("memory", rssGoal, "needs the in-process server and an ingest step"))
	} else {
		r.Targets = append(r.Targets, judge("memory", rssGoal, float64(r.IngestPeakRSS),
			goalRSSBytes, LowerIsBetter, FormatBytes(r.IngestPeakRSS)+" (server + driver)"))
	}
}

// ingestTargets compares the single-row ingest steps' rows/s with the
// peers.
func (r *Report) ingestTargets() {
	for _, peer := range []struct {
		system, goal string
		limit        float64
	}{
		{SystemPostgres, "ingest rows/s ≥ 2× PostgreSQL", goalIngestVsPostgres},
		{SystemPebble, "ingest rows/s ≥ 0.4× raw Pebble", goalIngestVsPebble},
	} {
		for _, w := range r.Workloads {
			s := w.step("ingest")
			if s == nil {
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
