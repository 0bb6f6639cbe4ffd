// Package backend is the seam between the logical layers (engine, plan, exec,
// split) and the stores that hold data. It defines Cassandra's data model as
// plain values — cells with write timestamps and TTLs, row liveness, row,
// range and partition deletions, mutations — the reconciliation rules that
// decide which of two versions wins, and the Backend interface that a store
// implements on PHYSICAL partitions.
//
// A logical partition is (table, partition key). A physical partition adds a
// shard number: shard 0 holds every unsplit partition, a split adds shards.
// Everything above this package is store-agnostic; the embedded Pebble store
// (package storage) is one implementation, a Cassandra-cluster gateway is
// meant to be another.
//
// Invariants:
//  1. Reconcile is Cassandra's Cells.reconcile for regular cells: the higher
//     timestamp wins; on a tie an expiring cell or tombstone beats a regular
//     cell, a tombstone beats an expiring cell, then the later local deletion
//     time wins, then the greater value (unsigned bytes). It is commutative
//     and associative, so the order in which versions meet never matters.
//  2. A deletion with timestamp T shadows every cell and liveness with
//     timestamp <= T; the larger deletion wins (ties: later local deletion time).
//  3. A row is live at `now` when its liveness is live or one of its cells is
//     live; a row that only UPDATE wrote disappears when its last cell goes.
//  4. Clustering keys at this level are the order-preserving encodings of
//     package types: bytes.Compare on them is clustering order.
//  5. Apply is atomic: every mutation and metadata write of one WriteBatch is
//     visible together or not at all, before and after a crash; it returns
//     only once the batch is durable.
package backend
