// Package split maps LOGICAL partitions (what CQL sees) onto PHYSICAL
// partitions (what a backend stores). Every layer above it speaks of logical
// partitions only; this package routes writes to the physical partitions
// that own them and reads from every physical partition that may hold a
// row, so that splitting a partition is invisible to clients.
//
// Invariants:
//  1. Callers pass logical partitions (Shard is ignored on the way in).
//  2. LockPartition serialises read-modify-write operations (LWT, counters,
//     list index updates) on one logical partition.
//  3. Until a partition is split it lives whole in backend.HomeShard and
//     every operation goes there unchanged.
package split
