package systables

import (
	"crypto/md5"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/types"
)

// Keyspace names.
const (
	SystemKeyspace        = "system"
	SchemaKeyspace        = "system_schema"
	AuthKeyspace          = "system_auth"
	DistributedKeyspace   = "system_distributed"
	TracesKeyspace        = "system_traces"
	ViewsKeyspace         = "system_views"
	VirtualSchemaKeyspace = "system_virtual_schema"
)

const (
	localStrategy  = "org.apache.cassandra.locator.LocalStrategy"
	simpleStrategy = "org.apache.cassandra.locator.SimpleStrategy"
)

// Shorthands for the column types the built-in tables use.
var (
	text          = types.Text
	setOfText     = types.SetOf(types.Text)
	frozenTextMap = types.Frozen(types.MapOf(types.Text, types.Text))
	frozenBlobMap = types.Frozen(types.MapOf(types.Text, types.Blob))
	frozenTexts   = types.Frozen(types.ListOf(types.Text))
	frozenTextSet = types.Frozen(types.SetOf(types.Text))
)

func col(name string, t *types.Type) catalog.ColumnSpec {
	return catalog.ColumnSpec{Name: name, Type: t}
}

// Keyspaces returns the built-in keyspaces with their table schemas, to be
// registered in the catalog. Each call builds new values.
func Keyspaces() []*catalog.Keyspace {
	// Replication as Cassandra 4.1 declares it: LocalStrategy for the
	// node-local keyspaces (schema/KeyspaceParams.local), SimpleStrategy for
	// the distributed ones (AuthKeyspace, SystemDistributedKeyspace,
	// TraceKeyspace).
	local := func() map[string]string { return map[string]string{"class": localStrategy} }
	simple := func(rf string) map[string]string {
		return map[string]string{"class": simpleStrategy, "replication_factor": rf}
	}
	return []*catalog.Keyspace{
		catalog.NewBuiltinKeyspace(SystemKeyspace, false, local(), systemTables()...),
		catalog.NewBuiltinKeyspace(SchemaKeyspace, false, local(), schemaTables()...),
		catalog.NewBuiltinKeyspace(AuthKeyspace, false, simple("1"), authTables()...),
		catalog.NewBuiltinKeyspace(DistributedKeyspace, false, simple("3")),
		catalog.NewBuiltinKeyspace(TracesKeyspace, false, simple("2"), tracesTables()...),
		catalog.NewBuiltinKeyspace(ViewsKeyspace, true, local()),
		catalog.NewBuiltinKeyspace(VirtualSchemaKeyspace, true, local(), virtualSchemaTables()...),
		catalog.NewBuiltinKeyspace(PartitaKeyspace, true, local(), partitaTables()...),
	}
}

// builtinTable builds a table with Cassandra's id for it and the options
// Cassandra's system tables carry.
func builtinTable(b catalog.BuiltinTable, gcGrace int32) *catalog.Table {
	t := catalog.NewBuiltinTable(b)
	t.ID = systemTableID(b.Keyspace, b.Name)
	t.Options.GCGraceSeconds = gcGrace
	// One hour, as SystemKeyspace.parse and SchemaKeyspace.parse set it.
	t.Options.MemtableFlushPeriodMs = 3600000
	return t
}

// systemTableID is TableId.forSystemTable: a name-based (version 3) uuid of
// the keyspace and table names (UUID.nameUUIDFromBytes).
func systemTableID(keyspace, table string) catalog.UUID {
	u := catalog.UUID(md5.Sum([]byte(keyspace + table)))
	u[6] = u[6]&0x0f | 0x30
	u[8] = u[8]&0x3f | 0x80
	return u
}

// systemTables are db/SystemKeyspace.java's local, peers_v2 and peers.
func systemTables() []*catalog.Table {
	const ks = SystemKeyspace
	return []*catalog.Table{
		builtinTable(catalog.BuiltinTable{
			Keyspace: ks, Name: "local", Comment: "information about the local node",
			PartitionKey: []catalog.ColumnSpec{col("key", text)},
			Regular: []catalog.ColumnSpec{
				col("bootstrapped", text),
				col("broadcast_address", types.Inet),
				col("broadcast_port", types.Int),
				col("cluster_name", text),
				col("cql_version", text),
				col("data_center", text),
				col("gossip_generation", types.Int),
				col("host_id", types.UUID),
				col("listen_address", types.Inet),
				col("listen_port", types.Int),
				col("native_protocol_version", text),
				col("partitioner", text),
				col("rack", text),
				col("release_version", text),
				col("rpc_address", types.Inet),
				col("rpc_port", types.Int),
				col("schema_version", types.UUID),
				col("tokens", setOfText),
				col("truncated_at", types.MapOf(types.UUID, types.Blob)),
			},
		}, 0),
		builtinTable(catalog.BuiltinTable{
			Keyspace: ks, Name: "peers_v2", Comment: "information about known peers in the cluster",
			PartitionKey: []catalog.ColumnSpec{col("peer", types.Inet)},
			Clustering:   []catalog.ColumnSpec{col("peer_port", types.Int)},
			Regular: []catalog.ColumnSpec{
				col("data_center", text),
				col("host_id", types.UUID),
				col("native_address", types.Inet),
				col("native_port", types.Int),
				col("preferred_ip", types.Inet),
				col("preferred_port", types.Int),
				col("rack", text),
				col("release_version", text),
				col("schema_version", types.UUID),
				col("tokens", setOfText),
			},
		}, 0),
		builtinTable(catalog.BuiltinTable{
			Keyspace: ks, Name: "peers", Comment: "information about known peers in the cluster",
			PartitionKey: []catalog.ColumnSpec{col("peer", types.Inet)},
			Regular: []catalog.ColumnSpec{
				col("data_center", text),
				col("host_id", types.UUID),
				col("preferred_ip", types.Inet),
				col("rack", text),
				col("release_version", text),
				col("rpc_address", types.Inet),
				col("schema_version", types.UUID),
				col("tokens", setOfText),
			},
		}, 0),
	}
}

// schemaGCGrace is SchemaKeyspace.parse's gc_grace_seconds: seven days.
const schemaGCGrace = 7 * 24 * 3600

// tableParamColumns are the table options as columns of system_schema.tables
// and system_schema.views (Cassandra 4.1: memtable is new in 4.1).
func tableParamColumns() []catalog.ColumnSpec {
	return []catalog.ColumnSpec{
		col("additional_write_policy", text),
		col("allow_auto_snapshot", types.Boolean),
		col("bloom_filter_fp_chance", types.Double),
		col("caching", frozenTextMap),
		col("cdc", types.Boolean),
		col("comment", text),
		col("compaction", frozenTextMap),
		col("compression", frozenTextMap),
		col("crc_check_chance", types.Double),
		col("dclocal_read_repair_chance", types.Double),
		col("default_time_to_live", types.Int),
		col("extensions", frozenBlobMap),
		col("gc_grace_seconds", types.Int),
		col("id", types.UUID),
		col("incremental_backups", types.Boolean),
		col("max_index_interval", types.Int),
		col("memtable", text),
		col("memtable_flush_period_in_ms", types.Int),
		col("min_index_interval", types.Int),
		col("read_repair", text),
		col("read_repair_chance", types.Double),
		col("speculative_retry", text),
	}
}

// schemaTables are schema/SchemaKeyspace.java's tables as of 4.1.
func schemaTables() []*catalog.Table {
	const ks = SchemaKeyspace
	keyspaceName := []catalog.ColumnSpec{col("keyspace_name", text)}
	def := func(name, comment string, clustering []catalog.ColumnSpec, regular ...catalog.ColumnSpec) *catalog.Table {
		return builtinTable(catalog.BuiltinTable{Keyspace: ks, Name: name, Comment: comment,
			PartitionKey: keyspaceName, Clustering: clustering, Regular: regular}, schemaGCGrace)
	}
	names := func(ns ...string) []catalog.ColumnSpec {
		out := make([]catalog.ColumnSpec, len(ns))
		for i, n := range ns {
			out[i] = col(n, text)
		}
		return out
	}
	tableRegular := append(tableParamColumns(), col("flags", frozenTextSet))
	viewRegular := append(tableParamColumns(),
		col("base_table_id", types.UUID),
		col("base_table_name", text),
		col("include_all_columns", types.Boolean),
		col("where_clause", text))
	return []*catalog.Table{
		def("keyspaces", "keyspace definitions", nil,
			col("durable_writes", types.Boolean),
			col("replication", frozenTextMap)),
		def("tables", "table definitions", names("table_name"), tableRegular...),
		def("columns", "column definitions", names("table_name", "column_name"),
			col("clustering_order", text),
			col("column_name_bytes", types.Blob),
			col("kind", text),
			col("position", types.Int),
			col("type", text)),
		def("triggers", "trigger definitions", names("table_name", "trigger_name"),
			col("options", frozenTextMap)),
		def("dropped_columns", "dropped column registry", names("table_name", "column_name"),
			col("dropped_time", types.Timestamp),
			col("kind", text),
			col("type", text)),
		def("views", "view definitions", names("view_name"), viewRegular...),
		def("types", "user defined type definitions", names("type_name"),
			col("field_names", frozenTexts),
			col("field_types", frozenTexts)),
		def("functions", "user defined function definitions",
			[]catalog.ColumnSpec{col("function_name", text), col("argument_types", frozenTexts)},
			col("argument_names", frozenTexts),
			col("body", text),
			col("called_on_null_input", types.Boolean),
			col("language", text),
			col("return_type", text)),
		def("aggregates", "user defined aggregate definitions",
			[]catalog.ColumnSpec{col("aggregate_name", text), col("argument_types", frozenTexts)},
			col("final_func", text),
			col("initcond", text),
			col("return_type", text),
			col("state_func", text),
			col("state_type", text)),
		def("indexes", "secondary index definitions", names("table_name", "index_name"),
			col("kind", text),
			col("options", frozenTextMap)),
	}
}

// virtualSchemaTables are db/virtual/VirtualSchemaKeyspace.java's tables.
func virtualSchemaTables() []*catalog.Table {
	const ks = VirtualSchemaKeyspace
	keyspaceName := []catalog.ColumnSpec{col("keyspace_name", text)}
	return []*catalog.Table{
		builtinTable(catalog.BuiltinTable{Keyspace: ks, Name: "keyspaces", Comment: "virtual keyspace definitions",
			PartitionKey: keyspaceName}, 0),
		builtinTable(catalog.BuiltinTable{Keyspace: ks, Name: "tables", Comment: "virtual table definitions",
			PartitionKey: keyspaceName,
			Clustering:   []catalog.ColumnSpec{col("table_name", text)},
			Regular:      []catalog.ColumnSpec{col("comment", text)}}, 0),
		builtinTable(catalog.BuiltinTable{Keyspace: ks, Name: "columns", Comment: "virtual column definitions",
			PartitionKey: keyspaceName,
			Clustering:   []catalog.ColumnSpec{col("table_name", text), col("column_name", text)},
			Regular: []catalog.ColumnSpec{
				col("clustering_order", text),
				col("column_name_bytes", types.Blob),
				col("kind", text),
				col("position", types.Int),
				col("type", text),
			}}, 0),
	}
}
