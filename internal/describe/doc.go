// Package describe answers DESCRIBE statements from a schema snapshot, with
// the rows and CQL text Cassandra 4.1 returns for them
// (cql3/statements/DescribeStatement.java). cqlsh 4.0+ and drivers send
// DESCRIBE to the server and print what comes back, so the text must be
// Cassandra's to the character.
//
// A listing (DESCRIBE KEYSPACES, TABLES, TYPES, FUNCTIONS, AGGREGATES) has
// the columns keyspace_name, type, name; a description (DESCRIBE KEYSPACE,
// TABLE, TYPE, INDEX, [FULL] SCHEMA or a bare name) adds create_statement;
// DESCRIBE CLUSTER has cluster, partitioner, snitch and, for a session in a
// non-system keyspace, range_ownership. The result set is named
// system.describe.
//
// The CQL text is built as Cassandra's CqlBuilder builds it
// (schema/KeyspaceMetadata, TableMetadata, TableParams, IndexMetadata,
// db/marshal/UserType toCqlString).
//
// Invariants:
//  1. Elements come in Cassandra's order: keyspaces by name, ignoring case;
//     within a keyspace, the keyspace itself, then its types (dependencies
//     first), then its tables by name, each followed by its indexes by name.
//  2. Identifiers are quoted exactly where Cassandra quotes them
//     (ColumnIdentifier.maybeQuote, types.QuoteIdent), in the rows' names as
//     in the CQL text.
//  3. Table options are printed in TableParams.appendCqlTo's order for 4.1,
//     maps with their keys sorted, numbers as Java prints them.
//  4. A table's columns are printed in Cassandra's create order: partition
//     key and clustering columns by position, then static, then regular
//     columns, each group with single-cell columns before multi-cell ones
//     and by Cassandra's column comparator within them.
//  5. Describe never changes the schema it is given and never panics on
//     any statement the parser produces; what cannot be described is an
//     Invalid error with Cassandra's message.
package describe
