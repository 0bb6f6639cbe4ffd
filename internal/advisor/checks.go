package advisor

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// checkOverwrite: a table without clustering columns holds one row per
// partition, so a partition written many times kept only its last write.
// With a time-typed column among the values, that is a history (readings,
// events) being overwritten: seed 001's iot_data_error.
func checkOverwrite(t *Table, lim Limits) *Finding {
	if len(t.Clustering) > 0 || len(t.Partitions) == 0 {
		return nil
	}
	// Without clustering columns a partition holds at most one row.
	var written int64
	stored := int64(len(t.Partitions))
	for i := range t.Partitions {
		written += t.Partitions[i].RowsWritten
	}
	if written < 10*stored {
		return nil
	}
	timeCol := -1
	for i, c := range t.Regular {
		if timeLike(c.Type) {
			timeCol = i
			break
		}
	}
	w := worst(t.Partitions, func(p *Partition) bool { return p.RowsWritten > 1 }, func(p *Partition) float64 { return float64(p.RowsWritten) })
	f := &Finding{Severity: Warning, Check: "overwrite", Worst: keys(w),
		Problem: fmt.Sprintf("PRIMARY KEY (%s) has no clustering column, so each partition holds one row: %s writes were kept as %s rows; every write replaced the one before it",
			names(t.PartitionKey), count(written), count(stored))}
	if timeCol < 0 {
		f.Fix = "if every write is a new fact, add the column that tells them apart as a clustering column"
		return f
	}
	tc := t.Regular[timeCol]
	f.Severity = Critical
	f.Problem += fmt.Sprintf(" (column %s is a %s: the table keeps the last reading of each partition and loses its history)", tc.Name, tc.Type)
	rate, window := 0.0, time.Duration(0) // rows per day of the busiest partition, seen over window
	for _, p := range w {
		if r := writesPerDay(p); r > rate {
			rate, window = r, p.LastWrite.Sub(p.FirstWrite)
		}
	}
	if len(w) > 0 && w[0].RowsWritten > 0 {
		perRow := float64(w[0].BytesWritten) / float64(w[0].RowsWritten)
		b := chooseBucket(rate, rate*perRow, lim)
		regular := slices.DeleteFunc(slices.Clone(t.Regular), func(c Column) bool { return c.Name == tc.Name })
		tc.Desc = true // the latest readings are the ones read
		f.FixCQL = createTable(t, t.Name+"_by_"+b.name, t.PartitionKey, &b, []Column{tc}, regular)
		f.Fix = fmt.Sprintf("keep the history: make %s a clustering column and bound each partition by a %s bucket in the partition key (at %s rows a day for the busiest partition, its rate over the %s of writes seen, %s)",
			tc.Name, b.name, count(int64(rate)), window.Round(time.Millisecond), b.why)
		f.Effect = fmt.Sprintf("rows kept per partition: 1 -> about %s per %s, under the %s-row limit", count(int64(b.rows)), b.name, count(lim.MaxRows))
	}
	return f
}

// checkUnbounded: a partition keyed without a time bucket whose clustering
// key is a time grows as long as data arrives.
func checkUnbounded(t *Table, lim Limits) *Finding {
	if len(t.Clustering) == 0 || !timeLike(t.Clustering[0].Type) || bucketed(t) || t.DefaultTTL > 0 || len(t.Partitions) == 0 {
		return nil
	}
	var fastest *Partition
	var rate, byteRate float64
	var basis string
	for i := range t.Partitions {
		p := &t.Partitions[i]
		if p.Interior > (p.Ascending+p.Descending)/4 {
			continue // mostly rewrites of old keys: not a growing end
		}
		if r, b, why := growthPerDay(p); r > rate {
			fastest, rate, byteRate, basis = p, r, b, why
		}
	}
	if fastest == nil {
		return nil
	}
	daysRows := float64(lim.MaxRows-fastest.Rows) / rate
	daysBytes := math.Inf(1)
	if byteRate > 0 {
		daysBytes = float64(lim.MaxBytes-fastest.Bytes) / byteRate
	}
	days := math.Min(daysRows, daysBytes)
	f := &Finding{Severity: Warning, Check: "unbounded-growth", Worst: keys([]*Partition{fastest})}
	f.Problem = fmt.Sprintf("the partition key (%s) has no time bucket and rows are clustered by %s, so a partition grows as long as data arrives: (%s) gains %s rows (%s) per day %s",
		names(t.PartitionKey), t.Clustering[0].Name, fastest.Key, count(int64(rate)), size(int64(byteRate)), basis)
	switch {
	case days <= 0:
		f.Severity = Critical
		f.Problem += fmt.Sprintf(" and is already past the limit (%s rows, %s)", count(fastest.Rows), size(fastest.Bytes))
	default:
		f.Problem += fmt.Sprintf(" and reaches the limit (%s rows or %s) in %s", count(lim.MaxRows), size(lim.MaxBytes), days2(days))
		if days > 365 {
			f.Severity = Info
		}
	}
	b := chooseBucket(rate, byteRate, lim)
	f.FixCQL = createTable(t, t.Name+"_by_"+b.name, t.PartitionKey, &b, t.Clustering, t.Regular)
	f.Fix = fmt.Sprintf("add a %s bucket to the partition key (%s) and query one bucket at a time", b.name, b.why)
	if t.Split.Enabled {
		f.Fix += fmt.Sprintf("; until then Partita splits a partition past %s rows or %s by itself, which keeps reads fast but not the partition small", count(t.Split.MaxRows), size(t.Split.MaxBytes))
	}
	f.Effect = fmt.Sprintf("rows per partition: unbounded -> about %s per %s", count(int64(b.rows)), b.name)
	return f
}

// checkLarge: partitions past (critical) or over half (warning) a limit.
func checkLarge(t *Table, lim Limits) *Finding {
	over := func(p *Partition, frac float64) bool {
		return float64(p.Rows) > frac*float64(lim.MaxRows) || float64(p.Bytes) > frac*float64(lim.MaxBytes)
	}
	load := func(p *Partition) float64 {
		return math.Max(float64(p.Rows)/float64(lim.MaxRows), float64(p.Bytes)/float64(lim.MaxBytes))
	}
	w := worst(t.Partitions, func(p *Partition) bool { return over(p, 0.5) }, load)
	if len(w) == 0 {
		return nil
	}
	f := &Finding{Severity: Warning, Check: "large-partition", Worst: keys(w)}
	if over(w[0], 1) {
		f.Severity = Critical
	}
	n := 0
	for i := range t.Partitions {
		if over(&t.Partitions[i], 0.5) {
			n++
		}
	}
	f.Problem = fmt.Sprintf("%d partition(s) above half the limit of %s rows or %s; the largest, (%s), holds %s rows, %s",
		n, count(lim.MaxRows), size(lim.MaxBytes), w[0].Key, count(w[0].Rows), size(w[0].Bytes))
	switch {
	case w[0].Children > 0:
		f.Severity = Info
		f.Problem += fmt.Sprintf(", which Partita has split into %d physical partitions", w[0].Children)
		f.Fix = "nothing is needed for reads; the data model still puts this much in one logical partition"
	case t.Split.Enabled:
		f.Fix = fmt.Sprintf("Partita splits a partition past %s rows or %s by itself", count(t.Split.MaxRows), size(t.Split.MaxBytes))
	default:
		f.Fix = "enable splitting for this table, or bound the partition in the data model"
		f.FixCQL = fmt.Sprintf("ALTER TABLE %s.%s WITH extensions = {'partita.split.enabled': 'true', 'partita.split.max_rows': '%d'};",
			ident(t.Keyspace), ident(t.Name), lim.MaxRows)
	}
	if len(t.Clustering) > 0 && timeLike(t.Clustering[0].Type) {
		if r, b, _ := growthPerDay(w[0]); r > 0 {
			bk := chooseBucket(r, b, lim)
			f.Fix += fmt.Sprintf("; a %s bucket in the partition key keeps each partition near %s rows", bk.name, count(int64(bk.rows)))
			if f.FixCQL == "" && !bucketed(t) {
				f.FixCQL = createTable(t, t.Name+"_by_"+bk.name, t.PartitionKey, &bk, t.Clustering, t.Regular)
			}
		}
	}
	return f
}

// checkHot: one partition taking many times the writes of the median one
// (seed 003's hot asset).
func checkHot(t *Table, lim Limits) *Finding {
	if len(t.Partitions) < 5 {
		return nil
	}
	ws := make([]int64, 0, len(t.Partitions))
	var total int64
	for i := range t.Partitions {
		ws = append(ws, t.Partitions[i].RowsWritten)
		total += t.Partitions[i].RowsWritten
	}
	med := max(dist(ws).P50, 1)
	const factor = 10
	w := worst(t.Partitions, func(p *Partition) bool { return p.RowsWritten >= factor*med }, func(p *Partition) float64 { return float64(p.RowsWritten) })
	if len(w) == 0 || total == 0 {
		return nil
	}
	hot := w[0]
	ratio := float64(hot.RowsWritten) / float64(med)
	f := &Finding{Severity: Warning, Check: "hot-partition", Worst: keys(w)}
	f.Problem = fmt.Sprintf("(%s) took %s writes, %.0fx the median partition's %s and %.0f%% of the table's: one partition (one replica set in a cluster) carries that load",
		hot.Key, count(hot.RowsWritten), ratio, count(med), 100*float64(hot.RowsWritten)/float64(total))
	shards := 1
	for shards < 64 && float64(shards) < ratio/2 {
		shards *= 2
	}
	switch {
	case hot.Children > 0:
		f.Severity = Info
		f.Fix = fmt.Sprintf("none needed: Partita has split it into %d physical partitions, and reads of the other partitions are not affected", hot.Children)
		return f
	case t.Split.Enabled:
		f.Fix = fmt.Sprintf("Partita splits it when it passes %s rows or %s; to spread the writes now, give it hash segments", count(t.Split.MaxRows), size(t.Split.MaxBytes))
	default:
		f.Fix = "enable splitting with hash segments for this table"
	}
	f.FixCQL = fmt.Sprintf("ALTER TABLE %s.%s WITH extensions = {'partita.split.enabled': 'true', 'partita.split.strategy': 'hash', 'partita.split.hash_segments': '%d'};",
		ident(t.Keyspace), ident(t.Name), shards)
	f.Fix += fmt.Sprintf(" (or, in the data model, a shard column 0..%d in the partition key written round-robin and read from all %d shards)", shards-1, shards)
	f.Effect = fmt.Sprintf("writes per physical partition of (%s): %.0fx the median -> about %.1fx", hot.Key, ratio, ratio/float64(shards))
	return f
}

// checkTombstones: partitions whose reads pass more tombstones than the
// warning threshold.
func checkTombstones(t *Table, lim Limits) *Finding {
	w := worst(t.Partitions, func(p *Partition) bool { return p.Tombstones >= lim.TombstoneWarn }, func(p *Partition) float64 { return float64(p.Tombstones) })
	if len(w) == 0 {
		return nil
	}
	f := &Finding{Severity: Warning, Check: "tombstones", Worst: keys(w)}
	f.Problem = fmt.Sprintf("(%s) received %s deletions since the node started (tombstone_warn_threshold is %s): reads that cross them pay for each until gc_grace_seconds passes",
		w[0].Key, count(w[0].Tombstones), count(lim.TombstoneWarn))
	f.Fix = "delete by dropping whole time buckets (or let a TTL expire the data: default_time_to_live) instead of deleting rows one by one; read with a lower bound that starts past the deleted range"
	if t.DefaultTTL == 0 {
		f.FixCQL = fmt.Sprintf("ALTER TABLE %s.%s WITH default_time_to_live = <seconds the data is needed>;", ident(t.Keyspace), ident(t.Name))
	}
	return f
}

// checkImbalance: data skewed enough that the simulated busiest node of a
// 6- or 12-node cluster holds far more than the ring alone explains.
func checkImbalance(t *Table, lim Limits) *Finding {
	for _, im := range simulateRing(t.Partitions) {
		if im.Nodes < 6 || im.Bytes < 1.5 || im.Bytes < 1.25*im.Partitions {
			continue
		}
		f := &Finding{Severity: Warning, Check: "token-imbalance"}
		f.Problem = fmt.Sprintf("on a simulated %d-node cluster (num_tokens 16, replication factor 3) the busiest node would hold %.2fx the mean node's data, where the partition count alone gives %.2fx: a few partitions hold most of the data",
			im.Nodes, im.Bytes, im.Partitions)
		if p := largest(t.Partitions); p != nil {
			f.Worst = keys([]*Partition{p})
		}
		f.Fix = "spread the largest partitions: a finer bucket or a shard column in the partition key (see the other findings of this table)"
		return f
	}
	return nil
}

// bucket is a time bucket for the partition key.
type bucket struct {
	name, column, typ, example string
	dur                        time.Duration
	rows                       float64 // expected rows per partition
	why                        string
}

var buckets = []bucket{
	{name: "year", column: "year", typ: "int", example: "2026", dur: 365 * 24 * time.Hour},
	{name: "month", column: "year_month", typ: "text", example: "'202605'", dur: 31 * 24 * time.Hour},
	{name: "week", column: "week", typ: "date", example: "the Monday, '2026-05-04'", dur: 7 * 24 * time.Hour},
	{name: "day", column: "day", typ: "date", example: "'2026-05-06'", dur: 24 * time.Hour},
	{name: "hour", column: "hour", typ: "timestamp", example: "'2026-05-06 13:00:00+0000'", dur: time.Hour},
	{name: "minute", column: "minute", typ: "timestamp", example: "'2026-05-06 13:07:00+0000'", dur: time.Minute},
}

// chooseBucket picks the coarsest bucket whose expected partition stays
// under half of both limits at the given growth per day.
func chooseBucket(rowsPerDay, bytesPerDay float64, lim Limits) bucket {
	for _, b := range buckets {
		days := b.dur.Hours() / 24
		rows, bytes := rowsPerDay*days, bytesPerDay*days
		if rows <= float64(lim.MaxRows)/2 && bytes <= float64(lim.MaxBytes)/2 {
			b.rows = rows
			b.why = fmt.Sprintf("about %s rows and %s per %s, half the limit or less", count(int64(rows)), size(int64(bytes)), b.name)
			return b
		}
	}
	b := buckets[len(buckets)-1]
	b.rows = rowsPerDay * b.dur.Hours() / 24
	b.why = fmt.Sprintf("still %s rows per minute: add a shard column too", count(int64(b.rows)))
	return b
}

// createTable writes the query table of a fix: the partition key with the
// bucket column, the clustering columns, and the other columns.
func createTable(t *Table, name string, pk []Column, b *bucket, clustering, regular []Column) string {
	bc := Column{Name: b.column, Type: b.typ}
	return queryTable(t.Keyspace, name, append(slices.Clone(pk), bc), clustering, regular,
		map[string]string{bc.Name: fmt.Sprintf("the %s bucket, e.g. %s", b.name, b.example)})
}

func names(cs []Column) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = ident(c.Name)
	}
	return strings.Join(out, ", ")
}

// ident quotes a name CQL would otherwise fold or misread.
func ident(s string) string {
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || r == '_' || i > 0 && r >= '0' && r <= '9') {
			return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
		}
	}
	return s
}

// count prints an integer with thousands separators.
func count(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// size prints bytes in Cassandra's units.
func size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func days2(d float64) string {
	switch {
	case d < 1:
		return fmt.Sprintf("%.1f hours", d*24)
	case d < 60:
		return fmt.Sprintf("%.1f days", d)
	}
	return fmt.Sprintf("%.0f days", d)
}

// checkStatement: a read that filters (ALLOW FILTERING) and reads far more
// rows than it returns, or a scan of the whole table that reads many: the
// query wants a table of its own, keyed by what it restricts.
func checkStatement(t *Table, st Statement) *Finding {
	ratio := float64(st.RowsRead) / float64(max(st.RowsReturned, 1))
	var f *Finding
	switch {
	case st.Filtered > 0 && st.RowsRead >= 100 && ratio >= 10:
		f = &Finding{Severity: Warning, Check: "filtering"}
		f.Problem = fmt.Sprintf("%s ran %s times and read %s rows to return %s (%.0fx): ALLOW FILTERING reads every row it might need and drops the rest",
			st.Text, count(st.Count), count(st.RowsRead), count(st.RowsReturned), ratio)
	case st.RangeScans > 0 && st.RowsRead >= 10_000:
		f = &Finding{Severity: Info, Check: "scan"}
		f.Problem = fmt.Sprintf("%s ran %s times as a scan of the table and read %s rows: its cost grows with the table", st.Text, count(st.Count), count(st.RowsRead))
	default:
		return nil
	}
	if len(st.EqualityColumns) == 0 {
		f.Fix = "restrict the partition key (or a token range, paged) so that a read touches the partitions it needs"
		return f
	}
	cols := map[string]Column{}
	for _, c := range append(append(append([]Column(nil), t.PartitionKey...), t.Clustering...), t.Regular...) {
		cols[c.Name] = c
	}
	var pk, clustering []Column
	used := map[string]bool{}
	for _, n := range st.EqualityColumns {
		if c, ok := cols[n]; ok && !used[n] {
			pk, used[n] = append(pk, c), true
		}
	}
	for _, n := range st.RangeColumns {
		if c, ok := cols[n]; ok && !used[n] {
			clustering, used[n] = append(clustering, c), true
		}
	}
	// The base table's key columns keep the rows apart.
	for _, c := range append(append([]Column(nil), t.PartitionKey...), t.Clustering...) {
		if !used[c.Name] {
			clustering, used[c.Name] = append(clustering, c), true
		}
	}
	if len(pk) == 0 {
		f.Fix = "restrict the partition key so that a read touches the partitions it needs"
		return f
	}
	var regular []Column
	for _, c := range t.Regular {
		if !used[c.Name] {
			regular = append(regular, c)
		}
	}
	name := t.Name + "_by"
	for _, c := range pk {
		name += "_" + c.Name
	}
	f.FixCQL = queryTable(t.Keyspace, name, pk, clustering, regular, nil)
	f.Fix = fmt.Sprintf("write the rows a second time into a table keyed by %s (in the same logged batch as the base table) and read that one; a secondary index on %s is the alternative when few rows match", names(pk), names(pk[:1]))
	f.Effect = fmt.Sprintf("rows read per returned row: %.0fx -> 1x", ratio)
	return f
}

// queryTable writes a CREATE TABLE with the given partition key and
// clustering columns (a column listed twice is written once), with notes
// as comments after columns.
func queryTable(keyspace, name string, pk, clustering, regular []Column, notes map[string]string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "CREATE TABLE %s.%s (\n", ident(keyspace), ident(name))
	seen := map[string]bool{}
	for _, cs := range [][]Column{pk, clustering, regular} {
		for _, c := range cs {
			if seen[c.Name] {
				continue
			}
			seen[c.Name] = true
			fmt.Fprintf(&sb, "    %s %s,", ident(c.Name), c.Type)
			if n := notes[c.Name]; n != "" {
				sb.WriteString(" -- " + n)
			}
			sb.WriteString("\n")
		}
	}
	key := "(" + names(pk) + ")"
	if len(clustering) > 0 {
		key += ", " + names(clustering)
	}
	fmt.Fprintf(&sb, "    PRIMARY KEY (%s)\n)", key)
	var order []string
	anyDesc := false
	for _, c := range clustering {
		dir := "ASC"
		if c.Desc {
			dir, anyDesc = "DESC", true
		}
		order = append(order, ident(c.Name)+" "+dir)
	}
	if anyDesc {
		fmt.Fprintf(&sb, " WITH CLUSTERING ORDER BY (%s)", strings.Join(order, ", "))
	}
	sb.WriteString(";")
	return sb.String()
}
