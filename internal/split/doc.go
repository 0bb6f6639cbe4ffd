// Package split maps LOGICAL partitions (what CQL sees) onto PHYSICAL
// partitions (what a backend stores). Every layer above it speaks of logical
// partitions only; this package routes writes to the physical partitions
// that own them and reads from every physical partition that may hold a
// row, so that splitting a partition is invisible to clients.
//
// Invariants:
//  1. Callers pass logical partitions (Shard is ignored on the way in).
//  2. LockPartitions serialises read-modify-write operations (LWT, counters,
//     list index updates) on one logical partition: in this process, and
//     across processes when the backend is a backend.PartitionLocker.
//  3. Until a partition is split it lives whole in backend.HomeShard and
//     every operation goes there unchanged.
//  4. Over a backend with backend.SharedStates (several gateways), a state
//     changes only by compare-and-set on its row's epoch, every read and
//     write routes under a lease on the states it read and ends by the
//     lease's end plus a drain, and a step moves only a range it announced
//     a lease plus a drain earlier (shared.go S1–S4).
//
// Lock order. A goroutine holding one of these takes only those listed
// after it; the backend's locks (internal/storage doc.go) come after all of
// them, and the backend never calls back into the layer.
//
//   - R1 the read-modify-write stripes (LockPartitions), sorted and
//     deduplicated, then the backend's leases of the same partitions
//     (backend.PartitionLocker, sorted by table, token and key; the backend
//     takes no lock of the layer meanwhile); exec holds them across a read
//     and the write it computes. No split-state change takes them.
//   - R2 a partition's steps stripe (lockSteps): one split-state change at a
//     time (Start, Step with its finish, Revert).
//   - R3 the routing stripes. Reads and writes hold them shared only while
//     they route and reach the backend, sorted and deduplicated, each at
//     most once per goroutine: a second RLock of a stripe that a migration
//     waits to lock queues behind it, and the migration waits for the
//     first. A split-state change holds its partition's one stripe
//     exclusively, and never reads or writes through the layer meanwhile
//     (that would RLock the stripe it holds).
//   - R4 a step's fence: installed under the routing stripe held
//     exclusively, kept after that stripe is released until the step's move
//     has committed. A read or write that meets a fence releases its routing
//     stripes before it waits, so a fence is waited for with at most R1
//     held, which no step takes.
//   - R5 leaves, under which nothing of the layer or the backend is called:
//     registry.mu, the statistics table's mutex (under which only the
//     policy function runs, which must not call the layer), Layer.mu and
//     sharedMode.mu. A shared state's pending range is waited for like a
//     fence: with the routing stripes released, at most R1 held.
package split
