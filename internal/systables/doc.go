// Package systables answers the built-in tables that drivers read when they
// connect and when they load schema metadata: system.local, system.peers,
// system.peers_v2, the ten system_schema tables and the three
// system_virtual_schema tables. Rows are rendered on every read from the
// catalog snapshot and the node description the caller passes in an Env;
// nothing is stored.
//
// Keyspaces declares the built-in keyspaces and their tables for the
// catalog; Rows renders every row of one of those tables, with one
// serialized value per column in the table's column order, sorted as a full
// scan of the table returns them in Cassandra. Filtering, ordering clauses
// and paging belong to the caller.
//
// Invariants:
//  1. The schemas are Cassandra 4.1's: the same tables with the same column
//     names, kinds, clustering orders and CQL types
//     (db/SystemKeyspace.java, schema/SchemaKeyspace.java,
//     db/virtual/VirtualSchemaKeyspace.java), so every driver's type
//     assertions hold (tokens is set<text>, host_id is uuid, ...).
//  2. Rows derives everything from the Env it is given: the catalog
//     snapshot in it is the current one, so every DDL is visible in the next
//     read, and system.local.schema_version is that snapshot's Version.
//  3. Rows come in Cassandra's full-scan order: partitions by Murmur3 token
//     of the serialized partition key (ties by key bytes) for tables of
//     ordinary keyspaces, by the partition key's own comparator for tables of
//     virtual keyspaces (which use LocalPartitioner); rows within a partition
//     by clustering order, DESC columns reversed.
//  4. system_schema.* describes the user keyspaces and the built-in
//     non-virtual ones (system, system_schema, system_auth,
//     system_distributed, system_traces); system_virtual_schema.* describes
//     the virtual ones. No keyspace appears in both.
//  5. Values are written as Cassandra writes them: sets sorted and
//     deduplicated, maps sorted by key, the empty string as an empty
//     (non-null) value, absent values as null.
package systables
