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
//  3. A physical partition's header holds a bound (maxTimestamp) at least as
//     new as every timestamp written to it. A write newer than the bound its
//     committed header holds merges a new header with a bound one second
//     (headerSlack) past its own timestamp, so a hot partition adds about
//     one header operand per second and reads never merge thousands. A
//     partition or range deletion newer than the bound removes the rows it
//     covers with one DeleteRange and reads nothing; otherwise the covered
//     rows are read and whatever in them is newer than the deletion is
//     written back, so data written "in the future" survives (in chunks,
//     invariant 14). A deletion that removes many stored keys also starts
//     a memtable flush: Pebble steps over covered keys that share the
//     memtable with the DeleteRange, and the flush drops them, so reading
//     past the deletion soon costs one seek again.
//  4. Deletions are also kept as records (header deletion, range tombstone
//     keys) and applied on every read, so a later write carrying an older
//     timestamp stays shadowed.
//  5. Apply commits one Pebble batch with Sync (unless NoSync): a batch is
//     atomic, and acknowledged only once it is in the synced WAL. Concurrent
//     commits share one fsync (Pebble's group commit).
//  6. A deletion that rewrites a partition holds that partition's stripe
//     exclusively, plain writes hold it shared, so no write can slip between
//     the read and the DeleteRange. Every read-then-rewrite (such a deletion,
//     a folding write, a Move, garbage collection) also holds dropMu shared
//     and a table drop (DropTables, the collector's purge of a dropped
//     table) holds it exclusively, so rows read before a drop are never
//     written back after it. dropMu is taken before any stripe (lock order
//     L2, L3 below).
//
// Garbage collection (CollectGarbage; Cassandra's purge during compaction,
// with gcBefore = now - gc_grace_seconds):
//
//  7. A partition is collected under its stripe held exclusively: it is read
//     whole (header, static row, range tombstones, rows, in key order, so each
//     deletion is known before what it covers) and written back with Sets of
//     purged values and Deletes of emptied keys. A blind write therefore
//     lands before the read or after the rewrite, never hidden by a Set.
//  8. The partition deletion, every covering range tombstone and the row's
//     own row and collection deletions are applied to each row: live data
//     they shadow is always dropped, so it stays invisible once they are
//     purged. An expired cell becomes a tombstone whose local deletion time
//     is its expiry minus its TTL (Cassandra's AbstractCell.purge); an
//     expired row marker is kept until its expiry is before gcBefore
//     (DeletionPurger.shouldPurge(LivenessInfo)).
//  9. A tombstone — cell (expired cells included), row, collection, range or
//     partition deletion — is dropped when its local deletion time is before
//     gcBefore, or earlier only when another deletion that is kept shadows
//     everything it shadows and has a local deletion time no earlier than
//     its own (so it outlives it: repeated deletions of a growing prefix
//     leave one range tombstone). Until then it keeps shadowing writes that
//     arrive later with older timestamps; after, such writes are visible
//     again, as in Cassandra.
//  10. Range tombstones and the partition deletion are dropped in the same
//     pass that applied them to every row they cover, in the last batch of
//     that pass. A partition whose rewrite outgrows one batch commits its row
//     rewrites in pieces first; a crash in between leaves every deletion in
//     place, which reads the same.
//  11. The header is rewritten keeping maxTimestamp (never lowered) and the
//     write counters. A partition left with no key but its header loses the
//     header too, unless it still holds an unpurgeable partition deletion:
//     maxTimestamp only lets a later deletion skip reading stored rows, and
//     with none stored a missing header ("never written") is exact; the next
//     write merges a new header carrying its own timestamp. The write
//     counters of such a partition are lost with it.
//  12. The walk is resumable and bounded per call (GCLimits); its position is
//     kept in memory. A table GCGrace does not know is removed with one
//     DeleteRange. Key ranges that lost enough bytes are compacted
//     (DB.Compact) so the space is returned to the file system.
//
// Hot rows:
//
//  13. A hot row does not pile up operands: the store counts writes per row
//     key (hotKeys, approximately, never high), and every foldAfter-th write
//     of a key reads the key's merged value and writes it, merged with the
//     new row, as one Set under the stripe held exclusively and dropMu
//     shared (as in 6), so no concurrent write lands between the read and
//     the Set. Reads of the key then merge at most foldAfter operands,
//     however often the row was updated since the last flush (a memtable
//     keeps every operand of a key). Only a mutation writing one row and no
//     deletion range folds, so its batch holds no other operand of the key.
//
// Deletions under newer data:
//
//  14. The rewrite of invariant 3 holds at most one chunk in memory (about
//     deletionChunkBytes of the keys and values it keeps), however large
//     the range. Apply first commits the request's batch, which records the
//     deletion (header or range tombstone key), as invariant 5 says; then,
//     still under the exclusive stripe, each chunk is one atomic batch: a
//     DeleteRange over exactly the keys the chunk read, then Sets of what in
//     them is newer than the deletion; the next chunk starts at the first
//     key not read. Every state in between reads the same: reads apply the
//     recorded deletion (invariant 4), so a key before the chunk boundary
//     (rewritten: only what the deletion does not shadow) and a key after
//     it (as stored) give the same result. A crash between chunks, or a
//     failure that ends Apply with an error, leaves such a state; garbage
//     collection removes the shadowed data that remains (invariant 8).
//     Chunks commit without Sync: losing one changes no read, and the WAL
//     is replayed as a prefix. Keys dropped cost no memory and do not end
//     a chunk, so a range with nothing newer to keep is removed by one
//     DeleteRange, as reads past it need (invariant 3).
//
// Faults (diskspace.go, startcheck.go):
//
//  15. Every commit passes diskGuard.admit first: it fails with WriteFailure
//     once the free space last read, less what was committed since, would
//     drop below the reserve (min_free_space_per_drive, never below one
//     memtable flush). Pebble's WAL, whose failed write ends the process,
//     so never meets ENOSPC from our writes; only flushes and compactions
//     can, and noSpaceFS paces their retries.
//  16. Before Open serves, every sstable the MANIFEST lists is opened once
//     on its own, the MANIFEST is read strictly and the newest WAL scanned
//     for synced records after a bad chunk; damage stops Open with an
//     error naming the file (ErrDamaged), never a panic. A torn tail, all
//     a crash can leave, is not damage. A start whose WAL
//     replay cannot be flushed in the free space opens read-only, as
//     Pebble's Open would otherwise wait for the flush.
//  17. A row read that fails in the store (I/O error, checksum mismatch)
//     reaches the client as ReadFailure; a metadata read names the damaged
//     file. Pebble's corruption events are logged, not fatal.
//
// Lock order. A goroutine holding one of these locks takes only locks listed
// after it, so no two paths wait for each other. The split layer's locks
// (internal/split doc.go) all come before these: storage never calls up.
//
//   - L1 gc.mu: one CollectGarbage at a time, held for the whole call (the
//     GCGrace function runs under it, before any lock below).
//   - L2 dropMu: exclusively by a table drop (Apply with DropTables; the
//     collector's purge of a table GCGrace no longer knows, taken with only
//     gc.mu held), shared by every read-then-rewrite (invariant 6). A
//     goroutine takes it at most once: a second RLock while a drop waits
//     queues behind the drop, which waits for the first.
//   - L3 the partition stripes, in increasing stripe order, each at most once
//     per goroutine: Apply takes a batch's stripes sorted and deduplicated
//     (partitions hashed to one stripe share it; one mutation that rewrites
//     or folds makes it exclusive); a Move or the collection of a partition
//     takes its logical partition's one stripe, for every shard. Apply takes
//     L2 and L3 through Store.lockForApply, a Move and the collector through
//     Store.lockRewrite; nothing else takes a stripe.
//   - L4 leaves, under which nothing is taken: headerBounds.mu,
//     partitionLocks.once.
//   - L5 Pebble. Commits, reads, snapshots and AsyncFlush run with any of the
//     above held, Compact (which waits for its compaction) with gc.mu only.
//     A commit may wait for other commits in Pebble's pipeline (publication
//     in sequence order, the group fsync) and, in a write stall, for a
//     flush or compaction; none of these waits for a lock of ours, because
//     nothing Pebble runs in the background or calls back (the merge
//     operator, EventListener.FlushEnd, the logger) takes one. A callback
//     that did would deadlock against every commit made under that lock.
//
// Beyond those calls into Pebble, no code of this package waits on a
// channel, a condition or another goroutine while it holds a lock.
package storage
