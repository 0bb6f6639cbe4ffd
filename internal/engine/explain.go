package engine

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/exec"
	"github.com/partita-db/partita/internal/plan"
	"github.com/partita-db/partita/internal/split"
	"github.com/partita-db/partita/internal/types"
)

// explainPartitionsListed bounds the partitions EXPLAIN lists one by one.
const explainPartitionsListed = 20

// runExplain answers EXPLAIN SELECT ...: one row per step of the plan
// (step, detail), resolved with the request's values, nothing read.
func (e *Engine) runExplain(ctx context.Context, p *plan.Explain, opts *Options, origin bindOrigin) (*Result, error) {
	sel := p.Select
	vals, err := bindValues(sel.Vars, opts, origin)
	if err != nil {
		return nil, err
	}
	x, err := e.exec.Explain(ctx, sel, e.request(vals, opts))
	if err != nil {
		return nil, err
	}
	t := sel.Table
	var rows [][][]byte
	add := func(step, format string, args ...any) {
		rows = append(rows, [][]byte{[]byte(step), []byte(fmt.Sprintf(format, args...))})
	}
	add("table", "%s", t.QualifiedName())
	pol := e.splitPolicy(t.StorageID)
	var estimate int64
	estimated := false
	switch x.Access {
	case exec.AccessVirtual:
		add("access", "system table, answered from memory")
	case exec.AccessIndex:
		add("access", "secondary index %s on %s: reads the index entries of the value, then each base row they name (stale entries are checked and removed)", sel.Index.Name, sel.Index.Column)
	case exec.AccessScan:
		add("access", "scan of token range %s, partitions in token order", x.ScanRange())
		var parts, rowsTracked int64
		for _, st := range e.split.Stats() {
			if st.Partition.Table == t.StorageID {
				parts++
				rowsTracked += statRows(st.Rows, st.RowsWritten, st.MeasuredAt.IsZero())
			}
		}
		add("partitions", "the table's %d tracked partitions, all read unless a LIMIT stops the scan", parts)
		estimate, estimated = rowsTracked, true
	case exec.AccessPartitions:
		if x.Nothing {
			add("access", "none: the restrictions select no row, nothing is read")
			break
		}
		add("access", "%d named partition(s), read one after another", len(x.Partitions))
		for i, lp := range x.Partitions {
			if i == explainPartitionsListed {
				add("partition", "... and %d more", len(x.Partitions)-i)
				break
			}
			add("partition", "%s", e.explainPartition(t, lp, x.Slices, pol, &estimate))
		}
		estimated = true
	}
	if len(t.Clustering) > 0 && x.Access != exec.AccessVirtual && !x.Nothing {
		if len(sel.Clustering) == 0 {
			add("clustering", "every row of each partition")
		} else {
			add("clustering", "%s: %d slice(s) of each partition", restrictionsText(sel.Clustering), len(x.Slices))
		}
	}
	switch {
	case len(t.Clustering) == 0:
	case len(sel.PostOrder) > 0:
		add("order", "rows of all partitions read, then sorted (IN with ORDER BY)")
	case sel.Reversed:
		add("order", "reversed: each partition is read from its last row backwards")
	default:
		add("order", "clustering order")
	}
	if x.Limit >= 0 {
		add("limit", "%d rows", x.Limit)
	}
	if x.PerPartitionLimit >= 0 {
		add("per partition limit", "%d rows", x.PerPartitionLimit)
	}
	if x.Filters > 0 {
		add("filtering", "%s checked on every row read: rows that fail are read and dropped", restrictionsText(sel.Filters))
	}
	if sel.Selection.Aggregate || sel.GroupBy {
		add("aggregation", "every selected row is read to compute the result")
	}
	if estimated {
		max := estimate
		if x.Limit >= 0 && x.Filters == 0 && !sel.Selection.Aggregate && len(sel.PostOrder) == 0 {
			max = min(max, x.Limit)
		}
		add("estimated rows", "at most %d read of about %d in the partitions (partition statistics)", max, estimate)
	}
	switch {
	case x.Access == exec.AccessScan && (x.Filters > 0 || sel.AllowFiltering):
		add("warning", "a filtering scan reads every row of the table to return those that match: a table keyed by the filtered columns answers this from one partition (partita advise writes it out)")
	case x.Access == exec.AccessPartitions && len(x.Partitions) > 10:
		add("warning", "%d partitions in one request: one request per partition, run concurrently by the client, spreads the load (drivers route each to its replica)", len(x.Partitions))
	}
	return &Result{Kind: ResultRows, Columns: explainColumns(t), Rows: rows}, nil
}

// explainColumns are EXPLAIN's result columns.
func explainColumns(t *catalog.Table) []Column {
	return []Column{{Keyspace: t.Keyspace, Table: t.Name, Name: "step", Type: types.Text},
		{Keyspace: t.Keyspace, Table: t.Name, Name: "detail", Type: types.Text}}
}

// explainPartition describes one named partition: its key and token, its
// split children and which the slices open, and its size.
func (e *Engine) explainPartition(t *catalog.Table, lp backend.LogicalPartition, slices []backend.Slice, pol split.Policy, estimate *int64) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "(%s), token %d", formatPartitionKey(t, lp.Key), lp.Token)
	if s := e.split.State(lp); s != nil {
		read := s.ShardsRead(slices)
		fmt.Fprintf(&sb, "; split (epoch %d) into %d children, the slices open %d: shards %v", s.Epoch, len(s.Current.AllShards()), len(read), read)
		if s.Migration != nil {
			sb.WriteString("; a migration is under way")
		}
	}
	st, ok := e.split.StatsOf(lp)
	if !ok {
		sb.WriteString("; not tracked since the node started (no writes or reads seen)")
		return sb.String()
	}
	rows := statRows(st.Rows, st.RowsWritten, st.MeasuredAt.IsZero())
	*estimate += rows
	how := "measured"
	if st.MeasuredAt.IsZero() {
		how = "written since start"
	}
	fmt.Fprintf(&sb, "; about %d rows, %d bytes (%s)", rows, statRows(st.Bytes, st.BytesWritten, st.MeasuredAt.IsZero()), how)
	if pol.MaxRows > 0 && rows > pol.MaxRows {
		fmt.Fprintf(&sb, "; above the %d-row split threshold", pol.MaxRows)
	}
	if st.Tombstones > 0 {
		fmt.Fprintf(&sb, "; %d tombstones written", st.Tombstones)
	}
	return sb.String()
}

// statRows is a measured figure, or the written one when not measured.
func statRows(measured, written int64, notMeasured bool) int64 {
	if notMeasured {
		return written
	}
	return measured
}

// restrictionsText is the restrictions as written, joined by AND.
func restrictionsText(rs []*plan.Restriction) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = cmp.Or(r.Text, r.String())
	}
	return strings.Join(parts, " AND ")
}
