package systables

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/catalog"
)

func builtinTableByName(t *testing.T, keyspace, table string) *catalog.Table {
	t.Helper()
	for _, ks := range Keyspaces() {
		if ks.Name == keyspace {
			if tbl := ks.Tables[table]; tbl != nil {
				return tbl
			}
		}
	}
	t.Fatalf("no built-in table %s.%s", keyspace, table)
	return nil
}

// describe lists a table's columns in SELECT * order as
// "name type kind[ desc]".
func describe(t *catalog.Table) string {
	var lines []string
	for _, c := range t.Columns {
		line := c.Name + " " + c.Type.String() + " " + c.Kind.String()
		if c.Desc {
			line += " desc"
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// TestSchemas pins every built-in table's columns, in SELECT * order, to
// Cassandra 4.1's declarations (db/SystemKeyspace.java,
// schema/SchemaKeyspace.java, db/virtual/VirtualSchemaKeyspace.java).
func TestSchemas(t *testing.T) {
	tests := []struct{ keyspace, table, want string }{
		{"system", "local", `key text partition_key
bootstrapped text regular
broadcast_address inet regular
broadcast_port int regular
cluster_name text regular
cql_version text regular
data_center text regular
gossip_generation int regular
host_id uuid regular
listen_address inet regular
listen_port int regular
native_protocol_version text regular
partitioner text regular
rack text regular
release_version text regular
rpc_address inet regular
rpc_port int regular
schema_version uuid regular
tokens set<text> regular
truncated_at map<uuid, blob> regular`},
		{"system", "peers", `peer inet partition_key
data_center text regular
host_id uuid regular
preferred_ip inet regular
rack text regular
release_version text regular
rpc_address inet regular
schema_version uuid regular
tokens set<text> regular`},
		{"system", "peers_v2", `peer inet partition_key
peer_port int clustering
data_center text regular
host_id uuid regular
native_address inet regular
native_port int regular
preferred_ip inet regular
preferred_port int regular
rack text regular
release_version text regular
schema_version uuid regular
tokens set<text> regular`},
		{"system_schema", "keyspaces", `keyspace_name text partition_key
durable_writes boolean regular
replication frozen<map<text, text>> regular`},
		{"system_schema", "tables", `keyspace_name text partition_key
table_name text clustering
additional_write_policy text regular
allow_auto_snapshot boolean regular
bloom_filter_fp_chance double regular
caching frozen<map<text, text>> regular
cdc boolean regular
comment text regular
compaction frozen<map<text, text>> regular
compression frozen<map<text, text>> regular
crc_check_chance double regular
dclocal_read_repair_chance double regular
default_time_to_live int regular
extensions frozen<map<text, blob>> regular
flags frozen<set<text>> regular
gc_grace_seconds int regular
id uuid regular
incremental_backups boolean regular
max_index_interval int regular
memtable text regular
memtable_flush_period_in_ms int regular
min_index_interval int regular
read_repair text regular
read_repair_chance double regular
speculative_retry text regular`},
		{"system_schema", "columns", `keyspace_name text partition_key
table_name text clustering
column_name text clustering
clustering_order text regular
column_name_bytes blob regular
kind text regular
position int regular
type text regular`},
		{"system_schema", "dropped_columns", `keyspace_name text partition_key
table_name text clustering
column_name text clustering
dropped_time timestamp regular
kind text regular
type text regular`},
		{"system_schema", "triggers", `keyspace_name text partition_key
table_name text clustering
trigger_name text clustering
options frozen<map<text, text>> regular`},
		{"system_schema", "views", `keyspace_name text partition_key
view_name text clustering
additional_write_policy text regular
allow_auto_snapshot boolean regular
base_table_id uuid regular
base_table_name text regular
bloom_filter_fp_chance double regular
caching frozen<map<text, text>> regular
cdc boolean regular
comment text regular
compaction frozen<map<text, text>> regular
compression frozen<map<text, text>> regular
crc_check_chance double regular
dclocal_read_repair_chance double regular
default_time_to_live int regular
extensions frozen<map<text, blob>> regular
gc_grace_seconds int regular
id uuid regular
include_all_columns boolean regular
incremental_backups boolean regular
max_index_interval int regular
memtable text regular
memtable_flush_period_in_ms int regular
min_index_interval int regular
read_repair text regular
read_repair_chance double regular
speculative_retry text regular
where_clause text regular`},
		{"system_schema", "types", `keyspace_name text partition_key
type_name text clustering
field_names frozen<list<text>> regular
field_types frozen<list<text>> regular`},
		{"system_schema", "functions", `keyspace_name text partition_key
function_name text clustering
argument_types frozen<list<text>> clustering
argument_names frozen<list<text>> regular
body text regular
called_on_null_input boolean regular
language text regular
return_type text regular`},
		{"system_schema", "aggregates", `keyspace_name text partition_key
aggregate_name text clustering
argument_types frozen<list<text>> clustering
final_func text regular
initcond text regular
return_type text regular
state_func text regular
state_type text regular`},
		{"system_schema", "indexes", `keyspace_name text partition_key
table_name text clustering
index_name text clustering
kind text regular
options frozen<map<text, text>> regular`},
		{"system_virtual_schema", "keyspaces", `keyspace_name text partition_key`},
		{"system_virtual_schema", "tables", `keyspace_name text partition_key
table_name text clustering
comment text regular`},
		{"system_virtual_schema", "columns", `keyspace_name text partition_key
table_name text clustering
column_name text clustering
clustering_order text regular
column_name_bytes blob regular
kind text regular
position int regular
type text regular`},
		{"system_partita", "splits", `keyspace_name text partition_key
table_name text partition_key
partition_key text clustering
bytes bigint regular
bytes_moved bigint regular
children list<text> regular
cursor text regular
epoch bigint regular
reason text regular
rows bigint regular
rows_moved bigint regular
started_at timestamp regular
state text regular
strategy text regular`},
		{"system_partita", "split_history", `keyspace_name text partition_key
table_name text partition_key
at timestamp clustering
partition_key text clustering
bytes_moved bigint regular
checksum_before bigint regular
children bigint regular
epoch bigint regular
event text regular
purpose text regular
reason text regular
rows_before bigint regular
rows_moved bigint regular
strategy text regular
who text regular`},
		{"system_partita", "large_partitions", `keyspace_name text partition_key
table_name text partition_key
partition_size bigint clustering desc
partition_key text clustering
bytes_read bigint regular
bytes_written bigint regular
max_child_bytes bigint regular
max_child_rows bigint regular
mean_read_latency_us bigint regular
reads bigint regular
rows bigint regular
rows_read bigint regular
rows_written bigint regular
split text regular
tombstones bigint regular`},
		{"system_partita", "statements", `keyspace_name text partition_key
statement text clustering
count bigint regular
errors bigint regular
filtered bigint regular
index_reads bigint regular
kind text regular
last_seen timestamp regular
max_latency_us bigint regular
mean_latency_us bigint regular
p50_latency_us bigint regular
p99_latency_us bigint regular
partitions_read bigint regular
range_scans bigint regular
rows_read bigint regular
rows_returned bigint regular
tombstones bigint regular`},
		// tracing/TraceKeyspace.java, as Cassandra 5.0.6 describes them.
		{"system_traces", "sessions", `session_id uuid partition_key
client inet regular
command text regular
coordinator inet regular
coordinator_port int regular
duration int regular
parameters map<text, text> regular
request text regular
started_at timestamp regular`},
		{"system_traces", "events", `session_id uuid partition_key
event_id timeuuid clustering
activity text regular
source inet regular
source_elapsed int regular
source_port int regular
thread text regular`},
		// auth/AuthKeyspace.java.
		{"system_auth", "roles", `role text partition_key
can_login boolean regular
is_superuser boolean regular
member_of set<text> regular
salted_hash text regular`},
		{"system_auth", "role_members", `role text partition_key
member text clustering`},
		{"system_auth", "role_permissions", `role text partition_key
resource text clustering
permissions set<text> regular`},
		{"system_auth", "resource_role_permissons_index", `resource text partition_key
role text clustering`},
		{"system_auth", "network_permissions", `role text partition_key
dcs frozen<set<text>> regular`},
		{"system_auth", "cidr_groups", `cidr_group text partition_key
cidrs frozen<set<frozen<tuple<inet, smallint>>>> regular`},
		{"system_auth", "cidr_permissions", `role text partition_key
cidr_groups frozen<set<text>> regular`},
		{"system_auth", "identity_to_role", `identity text partition_key
role text regular`},
	}
	seen := map[string]bool{}
	for _, tc := range tests {
		seen[tc.keyspace+"."+tc.table] = true
		t.Run(tc.keyspace+"."+tc.table, func(t *testing.T) {
			if got := describe(builtinTableByName(t, tc.keyspace, tc.table)); got != tc.want {
				t.Errorf("columns:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
	for _, ks := range Keyspaces() {
		for _, name := range ks.TableNames() {
			if !seen[ks.Name+"."+name] {
				t.Errorf("built-in table %s.%s has no expected schema here", ks.Name, name)
			}
		}
	}
}

// TestDriverColumnTypes checks the columns whose CQL types drivers assert
// or parse at connect (cql-native-protocol.md §3.1): a wrong type there is
// fatal in gocql ("Assertion failed for <col>") or breaks Python's and
// Node's metadata.
func TestDriverColumnTypes(t *testing.T) {
	want := map[string]map[string]string{
		"system.local": {
			"key": "text", "cluster_name": "text", "data_center": "text", "rack": "text",
			"release_version": "text", "partitioner": "text", "cql_version": "text",
			"native_protocol_version": "text", "bootstrapped": "text",
			"host_id": "uuid", "schema_version": "uuid",
			"broadcast_address": "inet", "listen_address": "inet", "rpc_address": "inet",
			"rpc_port": "int", "gossip_generation": "int",
			"tokens": "set<text>", "truncated_at": "map<uuid, blob>",
		},
		"system.peers": {
			"peer": "inet", "preferred_ip": "inet", "rpc_address": "inet",
			"data_center": "text", "rack": "text", "release_version": "text",
			"host_id": "uuid", "schema_version": "uuid", "tokens": "set<text>",
		},
		"system.peers_v2": {
			"peer": "inet", "peer_port": "int", "native_address": "inet", "native_port": "int",
			"preferred_ip": "inet", "preferred_port": "int",
			"data_center": "text", "rack": "text", "release_version": "text",
			"host_id": "uuid", "schema_version": "uuid", "tokens": "set<text>",
		},
		"system_schema.keyspaces": {"durable_writes": "boolean", "replication": "frozen<map<text, text>>"},
		"system_schema.tables": {
			"flags": "frozen<set<text>>", "id": "uuid", "caching": "frozen<map<text, text>>",
			"compaction": "frozen<map<text, text>>", "extensions": "frozen<map<text, blob>>",
			"bloom_filter_fp_chance": "double", "default_time_to_live": "int",
		},
		"system_schema.columns": {"position": "int", "column_name_bytes": "blob", "clustering_order": "text", "kind": "text"},
		"system_schema.types":   {"field_names": "frozen<list<text>>", "field_types": "frozen<list<text>>"},
		"system_schema.indexes": {"options": "frozen<map<text, text>>", "kind": "text"},
	}
	for name, cols := range want {
		keyspace, table, _ := strings.Cut(name, ".")
		tbl := builtinTableByName(t, keyspace, table)
		for col, typ := range cols {
			t.Run(name+"."+col, func(t *testing.T) {
				c := tbl.Column(col)
				if c == nil {
					t.Fatalf("missing column")
				}
				if got := c.Type.String(); got != typ {
					t.Errorf("type %s, want %s", got, typ)
				}
			})
		}
	}
}

// TestSystemTableIDs checks TableId.forSystemTable against ids Cassandra
// gives these tables (their data directories are named table-<id>).
func TestSystemTableIDs(t *testing.T) {
	tests := []struct{ keyspace, table, id string }{
		{"system", "local", "7ad54392bcdd35a684174e047860b377"},
		{"system", "peers", "37f71aca7dc2383ba70672528af04d4f"},
		{"system", "peers_v2", "c4325fbb8e5e3bafbd070f9250ed818e"},
		{"system_schema", "keyspaces", "abac5682dea631c5b535b3d6cffd0fb6"},
		{"system_schema", "tables", "afddfb9dbc1e30688056eed6c302ba09"},
		{"system_schema", "columns", "24101c25a2ae3af787c1b40ee1aca33f"},
	}
	for _, tc := range tests {
		t.Run(tc.keyspace+"."+tc.table, func(t *testing.T) {
			id := builtinTableByName(t, tc.keyspace, tc.table).ID
			if got := hex.EncodeToString(id[:]); got != tc.id {
				t.Errorf("id %s, want %s", got, tc.id)
			}
		})
	}
}

func TestKeyspaces(t *testing.T) {
	tests := []struct {
		name    string
		virtual bool
		class   string
		rf      string
	}{
		{"system", false, localStrategy, ""},
		{"system_schema", false, localStrategy, ""},
		{"system_auth", false, simpleStrategy, "1"},
		{"system_distributed", false, simpleStrategy, "3"},
		{"system_traces", false, simpleStrategy, "2"},
		{"system_views", true, localStrategy, ""},
		{"system_virtual_schema", true, localStrategy, ""},
		{"system_partita", true, localStrategy, ""},
	}
	got := map[string]*catalog.Keyspace{}
	for _, ks := range Keyspaces() {
		got[ks.Name] = ks
	}
	if len(got) != len(tests) {
		t.Errorf("%d keyspaces, want %d", len(got), len(tests))
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ks := got[tc.name]
			if ks == nil {
				t.Fatal("missing")
			}
			if ks.Virtual != tc.virtual || !ks.DurableWrites {
				t.Errorf("virtual=%v durable_writes=%v", ks.Virtual, ks.DurableWrites)
			}
			if ks.Replication["class"] != tc.class || ks.Replication["replication_factor"] != tc.rf {
				t.Errorf("replication %v", ks.Replication)
			}
			if !catalog.IsSystemKeyspace(tc.name) {
				t.Errorf("catalog does not treat %s as a system keyspace", tc.name)
			}
		})
	}
}
