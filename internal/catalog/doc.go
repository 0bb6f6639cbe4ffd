// Package catalog holds the schema: keyspaces, tables with their columns and
// options, user-defined types and secondary indexes. A Schema is an
// immutable snapshot; every DDL statement builds a new one, persists it
// through a Store and then publishes it, so a reader always sees one whole,
// consistent version.
//
// Invariants:
//  1. A published Schema is never mutated; readers hold it without locks.
//  2. DDL is serialised: one change is validated against the current
//     snapshot, persisted, then published. A change that fails validation or
//     persistence leaves the published snapshot as it was.
//  3. Every change that alters the schema gives the new snapshot a fresh
//     random Version (system.local.schema_version), so drivers see schema
//     agreement change on every DDL.
//  4. Storage identifiers (TableID, ColumnID) are allocated once and never
//     reused, so data written under a dropped table or column can never be
//     read as another's. The one exception is Cassandra's: a column re-added
//     under a dropped column's name takes back its ColumnID, and its cells
//     written at or before the drop stay hidden (Column.HiddenUpTo).
//  5. Validation errors carry Cassandra's messages and codes
//     (cql3/statements/schema/*.java).
package catalog
