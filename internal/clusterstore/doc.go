// Package clusterstore implements backend.Backend (and Mover, Maintainer)
// over an Apache Cassandra (or ScyllaDB) cluster, so that the whole engine
// — planner, executor, split layer — runs unchanged with the cluster
// keeping, replicating and repairing the data. docs/design/gateway.md is
// the layout and its costs.
//
// The driver is gocql rather than the Apache Cassandra Go driver v2: gocql
// v1.7.0 is already the project's client (benchmarks, end-to-end and
// reference tests), so one driver, one set of behaviours and one
// dependency tree serve both the tests and the store; it gives what this
// package needs — prepared statements cached per session, token-aware
// routing for prepared statements and batches, logged batches with
// per-statement timestamps and TTLs, automatic paging — and v2's changes
// (new import path, a reworked API) buy nothing here yet.
//
// Invariants:
//  1. A logical cell is one backing row (partition, kind, clustering,
//     column, path, generation) whose only cell v carries the logical
//     cell's write timestamp and TTL, so the cluster reconciles versions
//     exactly as backend invariant 1 says (the rules are Cassandra's own).
//  2. The home shard of a logical partition is the backing partition whose
//     key is the serialized logical key, so its Murmur3 token is the
//     logical token and a token-range query over the home table returns
//     partitions in backend.Backend's scan order (token, then key bytes).
//     Other shards live in a second table keyed by (key, shard) and are
//     listed, for scans, in the shard registry.
//  3. Every deletion is written twice: as the cluster's own tombstone
//     (so reads never see shadowed data) and as a marker row the store can
//     read back (the cluster never returns tombstones), so Move can carry
//     deletions to the shards that receive the rows (splitting invariant
//     3). Markers are written at a reserved timestamp that no client
//     deletion reaches, with the newest deletion encoded first in the
//     value, so two markers of one position reconcile to the newer.
//  4. Data moved into a shard is written at a fresh generation, and the
//     copies it leaves are removed with tombstones at exactly their own
//     position and timestamp, so data that moves back later is never
//     shadowed by the removal of its earlier copy.
//  5. An Apply of one physical partition is one single-partition batch
//     (atomic and isolated in the cluster); an Apply of several, or with
//     metadata, and every Move, is all or nothing, eventually: one logged
//     batch, or, past the cluster's batch size limit, an entry of the
//     store's own batch log applied partition by partition and replayed
//     by the next Open if the gateway stopped half-way (batchlog.go).
//
// Several gateways may share a keyspace. Read-modify-writes of a logical
// partition are serialised across them by leases on the cluster's Paxos
// (lease.go, backend.PartitionLocker: a holder writes only timestamps up
// to the ceiling it announced, a later holder only above it, and a write
// is reported done only once the lease is known to have outlived it); the
// client's consistency is set on every query (levels.go); each gateway
// announces itself for system.peers (peers.go). docs/design/gateway.md
// says why the leases are safe and what they cost.
//
// Split states are shared too (states.go, backend.SharedStates): one row
// per state in splitstates, changed only by a conditional update on its
// epoch and read at SERIAL; the split layer caches them under a lease
// (internal/split shared.go, docs/design/splitting.md "Several
// gateways"). With Options.SingleGateway they stay metadata, as for one
// process.
package clusterstore
