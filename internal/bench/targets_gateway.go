package bench

import (
	"fmt"
	"slices"
)

// Goals of the gateway target (issue "Scale-out"), against the same
// Cassandra node read directly in the same run: a read of a partition that
// never split costs at most 1.3× through the gateway (p99), and the hot
// partition's latest 100 rows read in at most half their p99 once it has
// split.
const (
	goalGatewayOverhead  = 1.3
	goalGatewaySplitRead = 0.5
)

// gatewayTargets sets the gateway target's goals: one per timed read of
// the workloads that ran on both systems, and the split workload's
// latest-100 read after against before.
func (r *Report) gatewayTargets() []Target {
	if r.Settings.Target != TargetGateway {
		return nil
	}
	var out []Target
	const goal = "p99 through the gateway ≤ 1.3× the node's direct p99 (unsplit partitions)"
	for _, w := range r.Workloads {
		if w.Name == WorkloadSplit {
			continue
		}
		for _, s := range w.Steps {
			if s.Kind != "read" {
				continue
			}
			name := fmt.Sprintf("gateway %s %s vs direct", w.Name, s.Name)
			g, d := s.partita(), s.result(SystemCassandraDirect)
			if g == nil || !d.ok() {
				out = append(out, unmeasured(name, goal, "no figures from both systems"))
				continue
			}
			v := g.Latency.P99 / d.Latency.P99
			measured := fmt.Sprintf("%s vs %s (%s; p50 %s, rows/s %s)", FormatMillis(g.Latency.P99), FormatMillis(d.Latency.P99),
				formatFactor(v), formatFactor(g.Latency.P50/d.Latency.P50), formatFactor(g.RowsPerSec/d.RowsPerSec))
			if len(s.RoundRatios) > 1 {
				p99s := make([]float64, len(s.RoundRatios))
				for i, rr := range s.RoundRatios {
					p99s[i] = rr.P99
				}
				measured += fmt.Sprintf("; p99 per round %s to %s", formatFactor(slices.Min(p99s)), formatFactor(slices.Max(p99s)))
			}
			out = append(out, judge(name, goal, v, goalGatewayOverhead, LowerIsBetter, measured))
		}
	}
	if w := r.workload(WorkloadSplit); w != nil {
		const name, goal = "gateway split latest-100 after/before", "latest-100 p99 of the hot partition after its split ≤ 0.5× before"
		before, after := w.step("latest-100-before").partita(), w.step("latest-100-after").partita()
		if before == nil || after == nil {
			out = append(out, unmeasured(name, goal, "no figures for both reads"))
		} else {
			v := after.Latency.P99 / before.Latency.P99
			out = append(out, judge(name, goal, v, goalGatewaySplitRead, LowerIsBetter,
				fmt.Sprintf("%s vs %s (%s; p50 %s)", FormatMillis(after.Latency.P99), FormatMillis(before.Latency.P99),
					formatFactor(v), formatFactor(after.Latency.P50/before.Latency.P50))))
		}
	}
	return out
}
