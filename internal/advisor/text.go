package advisor

import (
	"fmt"
	"io"
	"strings"
)

// WriteText prints the report for a terminal: the findings, most severe
// first, then one summary line per table.
func (r Report) WriteText(w io.Writer) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Partition limits: %s rows, %s; tombstone_warn_threshold %s\n\n", count(r.Limits.MaxRows), size(r.Limits.MaxBytes), count(r.Limits.TombstoneWarn))
	if len(r.Findings) == 0 {
		sb.WriteString("No findings.\n")
	}
	for i, f := range r.Findings {
		fmt.Fprintf(&sb, "%d. [%s] %s.%s: %s\n", i+1, strings.ToUpper(string(f.Severity)), f.Keyspace, f.Table, f.Check)
		fmt.Fprintf(&sb, "   Problem: %s.\n", f.Problem)
		if len(f.Worst) > 0 {
			fmt.Fprintf(&sb, "   Worst: %s\n", strings.Join(f.Worst, ", "))
		}
		fmt.Fprintf(&sb, "   Fix: %s.\n", f.Fix)
		if f.FixCQL != "" {
			for _, line := range strings.Split(f.FixCQL, "\n") {
				fmt.Fprintf(&sb, "      %s\n", line)
			}
		}
		if f.Effect != "" {
			fmt.Fprintf(&sb, "   Effect: %s.\n", f.Effect)
		}
		sb.WriteString("\n")
	}
	if len(r.Tables) > 0 {
		fmt.Fprintf(&sb, "%-40s %10s %24s %28s %12s\n", "table", "partitions", "rows p50/p99/max", "bytes p50/p99/max", "imbalance@6")
	}
	for _, t := range r.Tables {
		im := "-"
		for _, x := range t.Imbalance {
			if x.Nodes == 6 {
				im = fmt.Sprintf("%.2fx", x.Bytes)
			}
		}
		fmt.Fprintf(&sb, "%-40s %10d %24s %28s %12s\n", t.Keyspace+"."+t.Table, t.Partitions,
			count(t.Rows.P50)+"/"+count(t.Rows.P99)+"/"+count(t.Rows.Max),
			size(t.Bytes.P50)+"/"+size(t.Bytes.P99)+"/"+size(t.Bytes.Max), im)
	}
	_, err := io.WriteString(w, sb.String())
	return err
}
