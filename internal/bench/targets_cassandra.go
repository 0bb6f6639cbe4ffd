package bench

import "fmt"

// cassandraTargets sets the goals against the batch-mode Cassandra peer,
// when it ran: the reads of the widest partition and behind the deleted
// rows (p99 ratios), start to first answer, and RSS during ingest. The
// ingest goal is among ingestTargets.
func (r *Report) cassandraTargets() []Target {
	peer := r.PeerServers[SystemCassandra]
	if peer == nil {
		return nil
	}
	var out []Target
	p99 := func(name, goal string, s *StepResult, limit float64) {
		if s == nil {
			return
		}
		for _, ratio := range s.Ratios[SystemCassandra] {
			if ratio.Metric == "p99" {
				measured := fmt.Sprintf("%s vs %s (%s)", FormatMillis(s.result(SystemPartita).Latency.P99),
					FormatMillis(s.result(SystemCassandra).Latency.P99), formatFactor(ratio.Value))
				out = append(out, judge(name, goal, ratio.Value, limit, LowerIsBetter, measured))
				return
			}
		}
		out = append(out, unmeasured(name, goal, "no figures from both systems"))
	}
	if w := r.workload(WorkloadWide); w != nil {
		widest := 0
		for _, s := range w.Steps {
			widest = max(widest, s.Width)
		}
		for _, read := range []string{"latest-100-asc", "latest-100-desc", "range-1h"} {
			at := read + "@" + widthLabel(widest)
			p99("wide "+at+" vs cassandra", fmt.Sprintf("%s p99 at %s rows ≤ 0.5× Cassandra's", read, widthLabel(widest)),
				w.step(at), goalWideReadVsCassandra)
		}
	}
	if w := r.workload(WorkloadTombstones); w != nil {
		p99("tombstones vs cassandra", "slice p99 behind the deleted rows ≤ 0.3× Cassandra's",
			w.step("slice-behind-deleted"), goalTombstonesVsCassandra)
	}
	return append(out, r.startAndMemoryVsCassandra(peer)...)
}

// startAndMemoryVsCassandra compares Partita's restart to first answer and
// peak RSS (over the workloads for servers of their own; in-process, during
// ingest) with the Cassandra node's.
func (r *Report) startAndMemoryVsCassandra(peer *PeerServer) []Target {
	var out []Target
	const startName, startGoal = "start vs cassandra", "start to first answer on the data ≤ 1/20 of Cassandra's"
	switch {
	case r.Restart == nil:
		out = append(out, unmeasured(startName, startGoal, "Partita's restart was not measured"))
	case peer.Restart == nil:
		out = append(out, unmeasured(startName, startGoal, "Cassandra's restart was not measured"))
	default:
		a, b := r.Restart.FirstQueryMs, peer.Restart.FirstQueryMs
		out = append(out, judge(startName, startGoal, a/b, goalStartVsCassandra, LowerIsBetter,
			fmt.Sprintf("%s vs %s (%s)", FormatMillis(a), FormatMillis(b), formatFactor(a/b))))
	}
	const rssName, rssGoal = "memory vs cassandra", "peak RSS ≤ 1/4 of Cassandra's"
	if r.IngestPeakRSS == 0 || peer.IngestPeakRSS == 0 {
		out = append(out, unmeasured(rssName, rssGoal, "needs a server the harness starts and an ingest step on both"))
	} else {
		a, b := float64(r.IngestPeakRSS), float64(peer.IngestPeakRSS)
		out = append(out, judge(rssName, rssGoal, a/b, goalRSSVsCassandra, LowerIsBetter,
			fmt.Sprintf("%s (%s) vs %s (JVM) (%s)", FormatBytes(r.IngestPeakRSS), r.rssWhose(), FormatBytes(peer.IngestPeakRSS), formatFactor(a/b))))
	}
	return out
}

// rssWhose says whose resident set Report.IngestPeakRSS is.
func (r *Report) rssWhose() string {
	if r.Settings.Server == ServerInProcess {
		return "server + driver, during ingest"
	}
	return "the server alone"
}
