package systables

import (
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/types"
)

// PartitaKeyspace holds Partita's own virtual tables: the split state,
// its audit, and the largest partitions.
const PartitaKeyspace = "system_partita"

// SplitInfo is one split logical partition (system_partita.splits).
type SplitInfo struct {
	Keyspace, Table, PartitionKey string
	Epoch                         int64
	// State: active, moving, reverting or merging.
	State, Strategy, Reason string
	// Children describe each piece: "shard N [start, end)" or the hash
	// segments.
	Children              []string
	Cursor                string
	RowsMoved, BytesMoved int64
	StartedAt             int64 // ms
	Rows, Bytes           int64 // last measured, -1 when not measured
}

// SplitEvent is one audit record (system_partita.split_history).
type SplitEvent struct {
	Keyspace, Table, PartitionKey         string
	At                                    int64 // ms
	Event, Purpose, Strategy, Reason, Who string
	Epoch, RowsBefore, ChecksumBefore     int64
	RowsMoved, BytesMoved, Children       int64
}

// LargePartition is one tracked partition (system_partita.large_partitions).
type LargePartition struct {
	Keyspace, Table, PartitionKey string
	// Size is the measured bytes, or the bytes written since the server
	// started when not measured yet; Rows likewise.
	Size, Rows                                 int64
	RowsWritten, BytesWritten, Tombstones      int64
	Reads, RowsRead, BytesRead, MeanReadMicros int64
	MaxChildRows, MaxChildBytes                int64
	Split                                      string
}

// StatementInfo is one normalized statement's statistics
// (system_partita.statements).
type StatementInfo struct {
	Keyspace, Statement, Kind          string
	Count, Errors                      int64
	MeanMicros, P50Micros, P99Micros   int64
	MaxMicros                          int64
	RowsRead, RowsReturned, Partitions int64
	Tombstones                         int64
	RangeScans, IndexReads, Filtered   int64
	LastSeen                           int64 // ms
}

// PartitaSource provides the rows of the system_partita tables.
type PartitaSource interface {
	Splits() []SplitInfo
	SplitHistory() []SplitEvent
	LargePartitions() []LargePartition
	Statements() []StatementInfo
}

func partitaTables() []*catalog.Table {
	const ks = PartitaKeyspace
	table := []catalog.ColumnSpec{col("keyspace_name", text), col("table_name", text)}
	bigint := types.Bigint
	return []*catalog.Table{
		builtinTable(catalog.BuiltinTable{Keyspace: ks, Name: "splits", Comment: "split logical partitions",
			PartitionKey: table, Clustering: []catalog.ColumnSpec{col("partition_key", text)},
			Regular: []catalog.ColumnSpec{col("epoch", bigint), col("state", text), col("strategy", text),
				col("children", types.ListOf(text)), col("cursor", text), col("rows_moved", bigint),
				col("bytes_moved", bigint), col("started_at", types.Timestamp), col("reason", text),
				col("rows", bigint), col("bytes", bigint)}}, 0),
		builtinTable(catalog.BuiltinTable{Keyspace: ks, Name: "split_history", Comment: "audit of splits, merges and reverts",
			PartitionKey: table, Clustering: []catalog.ColumnSpec{col("at", types.Timestamp), col("partition_key", text)},
			Regular: []catalog.ColumnSpec{col("event", text), col("purpose", text), col("strategy", text),
				col("reason", text), col("who", text), col("epoch", bigint), col("rows_before", bigint),
				col("checksum_before", bigint), col("rows_moved", bigint), col("bytes_moved", bigint),
				col("children", bigint)}}, 0),
		builtinTable(catalog.BuiltinTable{Keyspace: ks, Name: "large_partitions", Comment: "the largest partitions, largest first",
			PartitionKey: table, Clustering: []catalog.ColumnSpec{col("partition_size", bigint), col("partition_key", text)},
			Desc: map[string]bool{"partition_size": true},
			Regular: []catalog.ColumnSpec{col("rows", bigint), col("rows_written", bigint), col("bytes_written", bigint),
				col("tombstones", bigint), col("reads", bigint), col("rows_read", bigint), col("bytes_read", bigint),
				col("mean_read_latency_us", bigint), col("max_child_rows", bigint), col("max_child_bytes", bigint),
				col("split", text)}}, 0),
		builtinTable(catalog.BuiltinTable{Keyspace: ks, Name: "statements", Comment: "statistics per normalized statement since the node started",
			PartitionKey: []catalog.ColumnSpec{col("keyspace_name", text)}, Clustering: []catalog.ColumnSpec{col("statement", text)},
			Regular: []catalog.ColumnSpec{col("kind", text), col("count", bigint), col("errors", bigint),
				col("mean_latency_us", bigint), col("p50_latency_us", bigint), col("p99_latency_us", bigint),
				col("max_latency_us", bigint), col("rows_read", bigint), col("rows_returned", bigint),
				col("partitions_read", bigint), col("tombstones", bigint), col("range_scans", bigint),
				col("index_reads", bigint), col("filtered", bigint), col("last_seen", types.Timestamp)}}, 0),
	}
}

func statementsRows(env *Env, rs *rowSet) {
	if env.Partita == nil {
		return
	}
	for _, s := range env.Partita.Statements() {
		rs.newRow().put("keyspace_name", textValue(s.Keyspace)).put("statement", textValue(s.Statement)).
			put("kind", textValue(s.Kind)).put("count", bigintValue(s.Count)).put("errors", bigintValue(s.Errors)).
			put("mean_latency_us", bigintValue(s.MeanMicros)).put("p50_latency_us", bigintValue(s.P50Micros)).
			put("p99_latency_us", bigintValue(s.P99Micros)).put("max_latency_us", bigintValue(s.MaxMicros)).
			put("rows_read", bigintValue(s.RowsRead)).put("rows_returned", bigintValue(s.RowsReturned)).
			put("partitions_read", bigintValue(s.Partitions)).put("tombstones", bigintValue(s.Tombstones)).
			put("range_scans", bigintValue(s.RangeScans)).put("index_reads", bigintValue(s.IndexReads)).
			put("filtered", bigintValue(s.Filtered)).put("last_seen", timestampValue(s.LastSeen))
	}
}

func splitsRows(env *Env, rs *rowSet) {
	if env.Partita == nil {
		return
	}
	for _, s := range env.Partita.Splits() {
		rs.newRow().put("keyspace_name", textValue(s.Keyspace)).put("table_name", textValue(s.Table)).
			put("partition_key", textValue(s.PartitionKey)).put("epoch", bigintValue(s.Epoch)).
			put("state", textValue(s.State)).put("strategy", textValue(s.Strategy)).
			put("children", textListValue(s.Children)).put("cursor", optText(s.Cursor)).
			put("rows_moved", bigintValue(s.RowsMoved)).put("bytes_moved", bigintValue(s.BytesMoved)).
			put("started_at", optTimestamp(s.StartedAt)).put("reason", optText(s.Reason)).
			put("rows", optBigint(s.Rows)).put("bytes", optBigint(s.Bytes))
	}
}

func splitHistoryRows(env *Env, rs *rowSet) {
	if env.Partita == nil {
		return
	}
	for _, e := range env.Partita.SplitHistory() {
		rs.newRow().put("keyspace_name", textValue(e.Keyspace)).put("table_name", textValue(e.Table)).
			put("at", timestampValue(e.At)).put("partition_key", textValue(e.PartitionKey)).
			put("event", textValue(e.Event)).put("purpose", optText(e.Purpose)).put("strategy", optText(e.Strategy)).
			put("reason", optText(e.Reason)).put("who", optText(e.Who)).put("epoch", bigintValue(e.Epoch)).
			put("rows_before", bigintValue(e.RowsBefore)).put("checksum_before", bigintValue(e.ChecksumBefore)).
			put("rows_moved", bigintValue(e.RowsMoved)).put("bytes_moved", bigintValue(e.BytesMoved)).
			put("children", bigintValue(e.Children))
	}
}

func largePartitionsRows(env *Env, rs *rowSet) {
	if env.Partita == nil {
		return
	}
	for _, p := range env.Partita.LargePartitions() {
		rs.newRow().put("keyspace_name", textValue(p.Keyspace)).put("table_name", textValue(p.Table)).
			put("partition_size", bigintValue(p.Size)).put("partition_key", textValue(p.PartitionKey)).
			put("rows", bigintValue(p.Rows)).put("rows_written", bigintValue(p.RowsWritten)).
			put("bytes_written", bigintValue(p.BytesWritten)).put("tombstones", bigintValue(p.Tombstones)).
			put("reads", bigintValue(p.Reads)).put("rows_read", bigintValue(p.RowsRead)).
			put("bytes_read", bigintValue(p.BytesRead)).put("mean_read_latency_us", bigintValue(p.MeanReadMicros)).
			put("max_child_rows", bigintValue(p.MaxChildRows)).put("max_child_bytes", bigintValue(p.MaxChildBytes)).
			put("split", textValue(p.Split))
	}
}

func optText(s string) []byte {
	if s == "" {
		return nil
	}
	return textValue(s)
}

func optBigint(v int64) []byte {
	if v < 0 {
		return nil
	}
	return bigintValue(v)
}

func optTimestamp(ms int64) []byte {
	if ms == 0 {
		return nil
	}
	return timestampValue(ms)
}
