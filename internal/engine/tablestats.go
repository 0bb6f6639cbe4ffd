package engine

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cqlerr"
)

// TableStats is one table's figures for `partita tablestats` and
// `partita tablehistograms`, from the partition statistics the node keeps
// since it started (at most the tracked partitions) and the store.
type TableStats struct {
	Keyspace, Table string
	// SpaceUsed is the table's bytes on disk (sstables), -1 when the store
	// cannot tell (a cluster backend).
	SpaceUsed int64
	// Partitions tracked, their rows and bytes (measured, or written since
	// start), reads, read time and writes.
	Partitions, SplitPartitions   int64
	Rows, Bytes                   int64
	Reads, ReadMicros             int64
	RowsWritten, BytesWritten     int64
	Tombstones, MaxTombstones     int64
	MinBytes, MaxBytes, MeanBytes int64
	Histograms                    []HistogramRow
}

// HistogramRow is one line of tablehistograms: a percentile over the
// tracked partitions.
type HistogramRow struct {
	Percentile string // 50%, 75%, 95%, 98%, 99%, Min, Max
	// Bytes, Rows and Tombstones per partition; ReadMicros is the
	// partition's mean read latency.
	Bytes, Rows, Tombstones, ReadMicros int64
}

// TableStats reports every table of keyspace (every user keyspace when
// empty), or one table.
func (e *Engine) TableStats(keyspace, table string) ([]TableStats, error) {
	schema := e.catalog.Current()
	var tables []*catalog.Table
	for name, ks := range schema.Keyspaces {
		if ks.Virtual || keyspace == "" && catalog.IsSystemKeyspace(name) || keyspace != "" && name != keyspace {
			continue
		}
		for _, t := range ks.Tables {
			if !t.Virtual && (table == "" || t.Name == table) {
				tables = append(tables, t)
			}
		}
	}
	if keyspace != "" && schema.Keyspace(keyspace) == nil {
		return nil, cqlerr.Invalidf("Keyspace '%s' does not exist", keyspace)
	}
	if table != "" && len(tables) == 0 {
		return nil, cqlerr.Invalidf("Table '%s.%s' does not exist", keyspace, table)
	}
	byID := map[backend.TableID]*TableStats{}
	parts := map[backend.TableID][]HistogramRow{} // one per partition, then percentiles
	usage, _ := e.backend.(interface {
		TableDiskUsage(backend.TableID) (int64, error)
	})
	out := make([]TableStats, len(tables))
	for i, t := range tables {
		out[i] = TableStats{Keyspace: t.Keyspace, Table: t.Name, SpaceUsed: -1}
		if usage != nil {
			if n, err := usage.TableDiskUsage(t.StorageID); err == nil {
				out[i].SpaceUsed = n
			}
		}
		byID[t.StorageID] = &out[i]
	}
	for _, st := range e.split.Stats() {
		ts := byID[st.Partition.Table]
		if ts == nil {
			continue
		}
		rows := statRows(st.Rows, st.RowsWritten, st.MeasuredAt.IsZero())
		bytes := statRows(st.Bytes, st.BytesWritten, st.MeasuredAt.IsZero())
		ts.Partitions++
		ts.Rows += rows
		ts.Bytes += bytes
		ts.Reads += st.Reads
		ts.ReadMicros += st.ReadMicros
		ts.RowsWritten += st.RowsWritten
		ts.BytesWritten += st.BytesWritten
		ts.Tombstones += st.Tombstones
		ts.MaxTombstones = max(ts.MaxTombstones, st.Tombstones)
		if ts.Partitions == 1 || bytes < ts.MinBytes {
			ts.MinBytes = bytes
		}
		ts.MaxBytes = max(ts.MaxBytes, bytes)
		if e.split.State(st.Partition) != nil {
			ts.SplitPartitions++
		}
		var mean int64
		if st.Reads > 0 {
			mean = st.ReadMicros / st.Reads
		}
		parts[st.Partition.Table] = append(parts[st.Partition.Table], HistogramRow{Bytes: bytes, Rows: rows, Tombstones: st.Tombstones, ReadMicros: mean})
	}
	for id, ts := range byID {
		if ts.Partitions > 0 {
			ts.MeanBytes = ts.Bytes / ts.Partitions
		}
		ts.Histograms = percentileRows(parts[id])
	}
	slices.SortFunc(out, func(a, b TableStats) int {
		return cmp.Or(cmp.Compare(a.Keyspace, b.Keyspace), cmp.Compare(a.Table, b.Table))
	})
	return out, nil
}

// percentileRows computes tablehistograms' lines, each column sorted on
// its own as nodetool's histograms are.
func percentileRows(ps []HistogramRow) []HistogramRow {
	if len(ps) == 0 {
		return nil
	}
	col := func(f func(HistogramRow) int64) []int64 {
		vs := make([]int64, len(ps))
		for i, p := range ps {
			vs[i] = f(p)
		}
		slices.Sort(vs)
		return vs
	}
	bytes, rows := col(func(h HistogramRow) int64 { return h.Bytes }), col(func(h HistogramRow) int64 { return h.Rows })
	tombs, reads := col(func(h HistogramRow) int64 { return h.Tombstones }), col(func(h HistogramRow) int64 { return h.ReadMicros })
	at := func(vs []int64, q float64) int64 { return vs[max(int(q*float64(len(vs)))-1, 0)] }
	var out []HistogramRow
	for _, q := range []struct {
		name string
		q    float64
	}{{"50%", 0.5}, {"75%", 0.75}, {"95%", 0.95}, {"98%", 0.98}, {"99%", 0.99}} {
		out = append(out, HistogramRow{Percentile: q.name, Bytes: at(bytes, q.q), Rows: at(rows, q.q), Tombstones: at(tombs, q.q), ReadMicros: at(reads, q.q)})
	}
	n := len(ps) - 1
	out = append(out, HistogramRow{Percentile: "Min", Bytes: bytes[0], Rows: rows[0], Tombstones: tombs[0], ReadMicros: reads[0]},
		HistogramRow{Percentile: "Max", Bytes: bytes[n], Rows: rows[n], Tombstones: tombs[n], ReadMicros: reads[n]})
	return out
}

// PartitionActivity is one partition's reads and writes over a sampling
// window (toppartitions).
type PartitionActivity struct {
	Partition     string
	Reads, Writes int64
}

// TopPartitions samples a table's partitions for d and returns those read
// and written most in that time, at most size of each, largest first, and
// how many distinct partitions were read and written.
func (e *Engine) TopPartitions(ctx context.Context, keyspace, table string, d time.Duration, size int) (reads, writes []PartitionActivity, readCard, writeCard int, err error) {
	t := e.catalog.Current().Table(keyspace, table)
	if t == nil || t.Virtual {
		return nil, nil, 0, 0, cqlerr.Invalidf("Table '%s.%s' does not exist", keyspace, table)
	}
	type counts struct{ reads, writes int64 }
	sample := func() map[string]counts {
		m := map[string]counts{}
		for _, st := range e.split.Stats() {
			if st.Partition.Table == t.StorageID {
				m[string(st.Partition.Key)] = counts{st.Reads, st.RowsWritten + st.Tombstones}
			}
		}
		return m
	}
	before := sample()
	select {
	case <-ctx.Done():
		return nil, nil, 0, 0, ctx.Err()
	case <-time.After(d):
	}
	for key, c := range sample() {
		b := before[key]
		a := PartitionActivity{Partition: formatPartitionKey(t, []byte(key)), Reads: c.reads - b.reads, Writes: c.writes - b.writes}
		if a.Reads > 0 {
			reads, readCard = append(reads, a), readCard+1
		}
		if a.Writes > 0 {
			writes, writeCard = append(writes, a), writeCard+1
		}
	}
	top := func(as []PartitionActivity, f func(PartitionActivity) int64) []PartitionActivity {
		slices.SortFunc(as, func(a, b PartitionActivity) int {
			return cmp.Or(cmp.Compare(f(b), f(a)), cmp.Compare(a.Partition, b.Partition))
		})
		return as[:min(len(as), size)]
	}
	return top(reads, func(a PartitionActivity) int64 { return a.Reads }), top(writes, func(a PartitionActivity) int64 { return a.Writes }), readCard, writeCard, nil
}
