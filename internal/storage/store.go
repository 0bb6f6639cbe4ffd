package storage

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"log"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/partita-db/partita/internal/backend"
)

// Options configure a Store.
type Options struct {
	// Dir is the data directory; it is created if missing.
	Dir string
	// CacheBytes sizes Pebble's block cache (default 32 MiB); the memory
	// of the memtables comes on top of it.
	CacheBytes int64
	// NoSync acknowledges writes before the WAL is synced. Only tests and
	// benchmarks that measure the difference may set it.
	NoSync bool
	// Logger receives Pebble's log lines; nil discards them.
	Logger pebble.Logger
	// MinFreeBytes is the free space kept on Dir's file system: commits
	// that would leave less are refused with a WriteFailure (diskspace.go).
	// Zero means DefaultMinFreeBytes, a negative value no reserve.
	MinFreeBytes int64
	// GCGrace returns a table's gc_grace_seconds for CollectGarbage. ok
	// false means the table is unknown (dropped), so its data may be removed
	// entirely; it must be true for every table that can still be written.
	// Nil gives every table Cassandra's default of 864000 seconds.
	GCGrace func(backend.TableID) (seconds int64, ok bool)

	// CrashableFS, when set, holds the store in memory instead of Dir's
	// disk (crash tests).
	CrashableFS *CrashableFS

	// fs replaces the file system (tests run on an in-memory one).
	fs vfs.FS
	// memTableSize replaces memTableSize (tests fill memtables quickly).
	memTableSize uint64
	// foldAfter replaces foldAfter (tests fold often to exercise it).
	foldAfter int
	// deletionChunkKeys, when positive, also ends a chunk of a deletion's
	// rewrite once it keeps this many keys (tests cut a rewrite into many
	// chunks).
	deletionChunkKeys int
	// afterDeletionChunk, when set, runs after each chunk of a deletion's
	// rewrite commits (crash tests crash there).
	afterDeletionChunk func()
	// merger replaces the merge operator (tests count its operands); it
	// must reconcile as merger does.
	merger *pebble.Merger
}

// Store is the embedded Pebble implementation of backend.Backend.
type Store struct {
	db      *pebble.DB
	cache   *pebble.Cache
	sync    *pebble.WriteOptions
	gcGrace atomic.Pointer[func(backend.TableID) (int64, bool)]
	headers headerBounds
	locks   partitionLocks
	hot     *hotKeys
	// dropMu orders table drops against every read-then-rewrite (rewriting
	// deletions, folding writes, moves, garbage collection): a drop holds it
	// exclusively, a rewrite shared, so a rewrite never writes back rows
	// read before the drop (invariant 6). Taken before any stripe (lock
	// order, doc.go), through lockForApply and lockRewrite.
	dropMu sync.RWMutex
	gc     gcState
	closed atomic.Bool
	// disk keeps the free-space reserve that commits check (diskspace.go).
	disk *diskGuard
	// fs and dir are the file system and directory the store lives in.
	fs  vfs.FS
	dir string
	// popts are the options the store opened Pebble with (bulk loads
	// write their sstables with them).
	popts *pebble.Options
	// deleteFlush is set while a flush requested after a deletion runs.
	deleteFlush atomic.Bool
	// deletionChunkKeys and afterDeletionChunk are Options'.
	deletionChunkKeys  int
	afterDeletionChunk func()
}

var _ backend.Backend = (*Store)(nil)

// memTableSize is the size of a Pebble memtable; memTablesCharged of them
// are counted against the block cache while one is written and the other
// flushed.
const (
	memTableSize     = 32 << 20
	memTablesCharged = 2
)

// Open opens (or creates) a store in opts.Dir.
func Open(opts Options) (*Store, error) {
	if opts.CacheBytes == 0 {
		opts.CacheBytes = 32 << 20
	}
	if opts.memTableSize == 0 {
		opts.memTableSize = memTableSize
	}
	// Pebble charges its memtables to the block cache (Cache.Reserve): the
	// memtable being written and the one being flushed. Without room for
	// them a 64 MiB cache beside two 32 MiB memtables holds no block at
	// all, and every read goes to the file system.
	cache := pebble.NewCache(opts.CacheBytes + memTablesCharged*int64(opts.memTableSize))
	popts := &pebble.Options{
		Cache:                      cache,
		Merger:                     merger,
		MemTableSize:               opts.memTableSize,
		L0CompactionThreshold:      4,
		L0StopWritesThreshold:      1000,
		LBaseMaxBytes:              64 << 20,
		CompactionConcurrencyRange: func() (int, int) { return 1, 2 },
	}
	if opts.fs != nil {
		popts.FS = opts.fs
	}
	if opts.merger != nil {
		popts.Merger = opts.merger
	}
	if opts.CrashableFS != nil {
		popts.FS = opts.CrashableFS.fs
	}
	if opts.Logger != nil {
		popts.Logger = opts.Logger
	} else {
		popts.Logger = quietLogger{}
	}
	st := &Store{cache: cache, hot: newHotKeys(opts.foldAfter),
		deletionChunkKeys: opts.deletionChunkKeys, afterDeletionChunk: opts.afterDeletionChunk}
	reserve := opts.MinFreeBytes
	if reserve == 0 {
		reserve = DefaultMinFreeBytes
	}
	// The flush of a full memtable writes about its size without going
	// through admit; a smaller reserve would let that flush leave the WAL
	// no room, which Pebble cannot survive (diskspace.go).
	if floor := int64(opts.memTableSize) + 4<<20; reserve > 0 && reserve < floor {
		reserve = floor
	}
	if popts.FS == nil {
		popts.FS = vfs.Default
	}
	if err := popts.FS.MkdirAll(opts.Dir, 0o755); err != nil {
		cache.Unref()
		return nil, fmt.Errorf("open store in %s: %w", opts.Dir, err)
	}
	st.fs, st.dir = popts.FS, opts.Dir
	st.disk = newDiskGuard(popts.FS, opts.Dir, reserve)
	popts.FS = noSpaceFS{FS: popts.FS, guard: st.disk}
	var bgLog rateLimitedLog
	popts.EventListener = &pebble.EventListener{
		FlushEnd: func(pebble.FlushInfo) { st.flushed() },
		// Pebble retries failed background work at once: one line per
		// diskLogInterval is enough (noSpaceFS paces the retries).
		BackgroundError: func(err error) { bgLog.printf("background", "storage: background error: %v", err) },
		// Pebble's default ends the process on a checksum mismatch; the
		// read that met it fails instead (ReadFailure, or a start error
		// naming the file), and the node serves the rest.
		DataCorruption: func(info pebble.DataCorruptionInfo) {
			bgLog.printf("corruption", "storage: %s is corrupt (%v): reads of the keys it holds fail; %s", info.Path, info.Details, damagedHelp)
		},
	}
	walBytes, err := verifyFiles(st.fs, opts.Dir, popts)
	if err != nil {
		st.disk.close()
		cache.Unref()
		return nil, err
	}
	if st.disk.tooFullToReplay(walBytes) {
		popts.ReadOnly = true
	}
	gate := newOpenGate()
	popts.Experimental.CompactionScheduler = gate
	db, err := pebble.Open(opts.Dir, popts)
	if err != nil {
		gate.end()
		st.disk.close()
		cache.Unref()
		return nil, openError(opts.Dir, err)
	}
	wo := pebble.Sync
	if opts.NoSync {
		wo = pebble.NoSync
	}
	st.db, st.sync, st.popts = db, wo, popts
	gate.opened()
	if opts.GCGrace != nil {
		st.SetGCGrace(opts.GCGrace)
	}
	return st, nil
}

// Close flushes nothing extra: every acknowledged write is already in the
// synced WAL. A second Close does nothing.
func (s *Store) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return nil
	}
	err := s.db.Close()
	s.disk.close()
	s.cache.Unref()
	return err
}

// GetMeta implements backend.Backend.
func (s *Store) GetMeta(_ context.Context, key []byte) ([]byte, error) {
	v, closer, err := s.db.Get(metaKey(key))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, s.metaError(err)
	}
	defer closer.Close()
	return append([]byte(nil), v...), nil
}

// ScanMeta implements backend.Backend.
func (s *Store) ScanMeta(_ context.Context, prefix []byte) ([]backend.MetaWrite, error) {
	lo := metaKey(prefix)
	hi := backend.PrefixSuccessor(lo)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return nil, s.metaError(err)
	}
	var out []backend.MetaWrite
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			it.Close()
			return nil, s.metaError(err)
		}
		out = append(out, backend.MetaWrite{
			Key:   append([]byte(nil), it.Key()[1:]...),
			Value: append([]byte(nil), v...),
		})
	}
	if err := it.Close(); err != nil {
		return nil, s.metaError(err)
	}
	return out, nil
}

// tableRange is the key range of every row of a table.
func tableRange(table backend.TableID) (lo, hi []byte) {
	lo = appendTablePrefix(nil, table)
	if table == ^backend.TableID(0) {
		return lo, []byte{prefixData + 1}
	}
	return lo, appendTablePrefix(nil, table+1)
}

// partitionLocks serialises deletions that rewrite a partition against the
// writes to it: plain writes share a stripe, deletions take it exclusively.
type partitionLocks struct {
	seed    maphash.Seed
	once    sync.Once
	stripes [1024]sync.RWMutex
}

func (l *partitionLocks) stripe(p backend.LogicalPartition) int {
	l.once.Do(func() { l.seed = maphash.MakeSeed() })
	var h maphash.Hash
	h.SetSeed(l.seed)
	h.Write(p.Key)
	return int((h.Sum64() ^ uint64(p.Token) ^ uint64(p.Table)) % uint64(len(l.stripes)))
}

type heldLock struct {
	stripe    int
	exclusive bool
}

// lock takes the stripes of every partition in muts, in stripe order so that
// concurrent batches cannot deadlock, and returns the unlock function. A
// stripe is taken exclusively for a mutation that rewrites its partition or
// (folds[i]) folds a row.
func (l *partitionLocks) lock(muts []backend.Mutation, folds []bool) func() {
	want := map[int]bool{}
	for i := range muts {
		st := l.stripe(muts[i].Partition.LogicalPartition)
		want[st] = want[st] || needsRewrite(&muts[i]) || (folds != nil && folds[i])
	}
	held := make([]heldLock, 0, len(want))
	for st, ex := range want {
		held = append(held, heldLock{st, ex})
	}
	sort.Slice(held, func(i, j int) bool { return held[i].stripe < held[j].stripe })
	for _, h := range held {
		if h.exclusive {
			l.stripes[h.stripe].Lock()
		} else {
			l.stripes[h.stripe].RLock()
		}
	}
	return func() {
		for _, h := range held {
			if h.exclusive {
				l.stripes[h.stripe].Unlock()
			} else {
				l.stripes[h.stripe].RUnlock()
			}
		}
	}
}

// lockExclusive takes the stripe of one partition exclusively.
func (l *partitionLocks) lockExclusive(p backend.LogicalPartition) func() {
	mu := &l.stripes[l.stripe(p)]
	mu.Lock()
	return mu.Unlock
}

// lockForApply takes what Apply holds, in the lock order (doc.go): dropMu
// first — exclusively for a batch that drops tables, shared for one that
// rewrites or folds a partition (invariant 6) — then the stripes of muts.
// It returns the release.
func (s *Store) lockForApply(muts []backend.Mutation, folds []bool, drops bool) func() {
	var unlockDrop func()
	switch {
	case drops:
		s.dropMu.Lock()
		unlockDrop = s.dropMu.Unlock
	case anyRewrite(muts) || folds != nil:
		s.dropMu.RLock()
		unlockDrop = s.dropMu.RUnlock
	}
	unlockStripes := s.locks.lock(muts, folds)
	return func() {
		unlockStripes()
		if unlockDrop != nil {
			unlockDrop()
		}
	}
}

// lockRewrite takes what a read-then-rewrite of one partition (a move, a
// garbage collection pass) holds, in the lock order (doc.go): dropMu
// shared, so that no table drop runs between the read and the write, then
// the partition's stripe exclusively, so that no write does. It returns the
// release.
func (s *Store) lockRewrite(p backend.LogicalPartition) func() {
	s.dropMu.RLock()
	unlockStripe := s.locks.lockExclusive(p)
	return func() {
		unlockStripe()
		s.dropMu.RUnlock()
	}
}

// quietLogger drops Pebble's informational lines and keeps its errors.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any) {}
func (quietLogger) Errorf(format string, args ...any) {
	log.Printf("storage: "+format, args...)
}
func (quietLogger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if strings.Contains(msg, "no space left on device") {
		// Only a disk filled by something else than this store's commits
		// gets here (the reserve, diskspace.go, keeps ours off the WAL).
		msg += "; the disk filled up beyond the free-space reserve (min_free_space_per_drive): free space and start the node again, every acknowledged write is in the synced WAL"
	}
	log.Fatal("storage: " + msg)
}
