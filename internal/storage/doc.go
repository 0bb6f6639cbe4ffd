// Package storage is the embedded store: it implements backend.Backend on
// Pebble and is the only package that imports Pebble.
//
// Invariants:
//  1. Keys sort as Cassandra reads: table, then Murmur3 token (signed order),
//     then partition key bytes, then shard, then kind (header, static row,
//     range tombstones, rows), then the order-preserving clustering key. A
//     clustering slice in either direction is one seek plus a scan.
//  2. Writes are blind: rows, static rows, range tombstones and partition
//     headers are written as Pebble merge operands and the merge operator
//     reconciles them with backend.Reconcile / MergeInto, so the result never
//     depends on the order in which operands meet.
//  3. Every write to a physical partition merges a header recording the
//     newest timestamp written; a partition or range deletion newer than it
//     removes the rows it covers with one DeleteRange and reads nothing.
//     Otherwise the covered rows are read and whatever in them is newer than
//     the deletion is written back, so data written "in the future" survives.
//  4. Deletions are also kept as records (header deletion, range tombstone
//     keys) and applied on every read, so a later write carrying an older
//     timestamp stays shadowed.
//  5. Apply commits one Pebble batch with Sync (unless NoSync): a batch is
//     atomic, and acknowledged only once it is in the synced WAL. Concurrent
//     commits share one fsync (Pebble's group commit).
//  6. A deletion that rewrites a partition holds that partition's stripe
//     exclusively, plain writes hold it shared, so no write can slip between
//     the read and the DeleteRange.
package storage
