package storage

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/partita-db/partita/internal/backend"
)

// Garbage collection is what Cassandra does while compacting sstables
// (src/java/org/apache/cassandra/db/partitions/PurgeFunction.java,
// db/rows/AbstractCell.java purge, db/DeletionPurger.java): drop what
// deletions shadow, turn expired cells into tombstones and drop tombstones
// once gc_grace_seconds have passed. Here it is a walk over physical
// partitions that rewrites each one under its exclusive stripe lock (doc.go,
// invariants 7 to 11).

// DefaultGCGraceSeconds is Cassandra's default gc_grace_seconds, used for
// every table when Options.GCGrace is nil.
const DefaultGCGraceSeconds = 864000

// defaultCompactBytes is GCLimits.CompactBytes when it is zero.
const defaultCompactBytes = 1 << 20

// gcBatchBytes bounds the batch of row rewrites kept in memory for one huge
// partition; rewrites are committed in pieces of this size, tombstones only
// in the last piece (invariant 10).
const gcBatchBytes = 4 << 20

// GCLimits bounds the work of one CollectGarbage call. The caller paces the
// calls; each resumes where the previous one stopped.
type GCLimits struct {
	// MaxPartitions stops the call after this many physical partitions
	// (0: no limit).
	MaxPartitions int
	// MaxBytes stops the call, between partitions, once this many key and
	// value bytes were read (0: no limit).
	MaxBytes int64
	// CompactBytes is how many bytes a call must remove before it asks
	// Pebble to compact the key range it rewrote, so that the space returns
	// to the file system. 0 means 1 MiB; a negative value never compacts.
	CompactBytes int64
}

// GCStats reports what one CollectGarbage call did.
type GCStats struct {
	PartitionsScanned int64
	// CellsPurged counts data removed: cells and row markers that a
	// deletion shadowed, and expired cells whose value was dropped.
	CellsPurged int64
	// TombstonesPurged counts deletions dropped: cell tombstones (expired
	// cells included), expired row markers, and row, collection, range and
	// partition deletions, either older than gc_grace or outlived by a
	// deletion that covers them (invariant 9).
	TombstonesPurged int64
	// TablesDropped counts tables whose data was removed because GCGrace no
	// longer knows them.
	TablesDropped int64
	// BytesBefore and BytesAfter are the key and value bytes of the visited
	// partitions before and after the call (logical sizes, not disk usage).
	BytesBefore, BytesAfter int64
	// Compacted reports that the rewritten key range was compacted.
	Compacted bool
	// Done reports that the walk reached the end of the data; the next call
	// starts again from the first partition.
	Done bool
}

// gcState is the collector's position between calls (in memory only: after
// a restart the walk starts from the beginning).
type gcState struct {
	mu     sync.Mutex
	cursor []byte // the first key of the next partition to visit; nil: the start
}

// CollectGarbage visits physical partitions from where the previous call
// stopped, within limit, and purges each as Cassandra's compaction would at
// now: shadowed data, expired cells, and tombstones older than the table's
// gc_grace_seconds. Calls are serialised; writes proceed concurrently and
// only wait while their own partition is rewritten. It must not run
// concurrently with Close.
func (s *Store) CollectGarbage(ctx context.Context, now time.Time, limit GCLimits) (GCStats, error) {
	s.gc.mu.Lock()
	defer s.gc.mu.Unlock()
	w := &gcWalk{s: s, now: now.Unix(), limit: limit}
	lo := s.gc.cursor
	if lo == nil {
		lo = []byte{prefixData}
	}
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: []byte{prefixData + 1}})
	if err != nil {
		return w.stats, err
	}
	next, err := w.walk(ctx, it)
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	s.gc.cursor = next
	if err != nil {
		return w.stats, err
	}
	w.stats.Done = next == nil
	return w.stats, w.compact(ctx)
}

// gcWalk is one CollectGarbage call.
type gcWalk struct {
	s         *Store
	now       int64
	limit     GCLimits
	stats     GCStats
	bytesRead int64
	// [spanLo, spanHi) covers every partition rewritten and table dropped;
	// removed estimates the bytes that left it.
	spanLo, spanHi []byte
	removed        int64
}

// walk visits partitions from it's lower bound and returns the key the next
// call resumes at (nil once the end is reached).
func (w *gcWalk) walk(ctx context.Context, it *pebble.Iterator) ([]byte, error) {
	for ok := it.First(); ok; {
		key := it.Key()
		if err := ctx.Err(); err != nil {
			return clone(key), err
		}
		if w.limitReached() {
			return clone(key), nil
		}
		d, err := decodeDataKey(key)
		if err != nil {
			// Step over the bad key so that later calls make progress.
			return append(clone(key), 0), fmt.Errorf("collect garbage at key %x: %w", key, err)
		}
		table := d.partition.Table
		grace, known := w.s.tableGCGrace(table)
		if !known {
			if err := w.dropTable(table); err != nil {
				return clone(key), err
			}
			_, hi := tableRange(table)
			ok = it.SeekGE(hi)
			continue
		}
		prefix := clone(key[:d.prefixLen])
		if err := w.partition(ctx, d.partition, prefix, gcBefore(w.now, grace)); err != nil {
			return prefix, err
		}
		ok = it.SeekGE(rowKeyKind(prefix, kindEnd, nil))
	}
	return nil, it.Error()
}

func (w *gcWalk) limitReached() bool {
	return (w.limit.MaxPartitions > 0 && w.stats.PartitionsScanned >= int64(w.limit.MaxPartitions)) ||
		(w.limit.MaxBytes > 0 && w.bytesRead >= w.limit.MaxBytes)
}

func (s *Store) tableGCGrace(t backend.TableID) (int64, bool) {
	f := s.gcGrace.Load()
	if f == nil {
		return DefaultGCGraceSeconds, true
	}
	return (*f)(t)
}

var _ backend.Maintainer = (*Store)(nil)

// SetGCGrace implements backend.Maintainer.
func (s *Store) SetGCGrace(f func(backend.TableID) (int64, bool)) { s.gcGrace.Store(&f) }

// gcStepBytes bounds what one background step reads, so the walk costs a
// small, steady share of the machine however large the partitions are (a
// partition is never cut: a step ends between partitions).
const gcStepBytes = 8 << 20

// CollectGarbageStep implements backend.Maintainer.
func (s *Store) CollectGarbageStep(ctx context.Context, now time.Time, maxPartitions int) (bool, error) {
	st, err := s.CollectGarbage(ctx, now, GCLimits{MaxPartitions: maxPartitions, MaxBytes: gcStepBytes})
	return st.Done, err
}

// gcBefore is Cassandra's gcBefore: a tombstone whose local deletion time
// is before it may be dropped. It saturates instead of overflowing.
func gcBefore(now, grace int64) int64 {
	switch {
	case grace <= 0:
		return now
	case now < math.MinInt64+grace:
		return math.MinInt64
	}
	return now - grace
}

// dropTable removes the data of a table that no longer exists. It holds
// dropMu like a DROP TABLE does, with only gc.mu held (lock order, doc.go).
func (w *gcWalk) dropTable(t backend.TableID) error {
	lo, hi := tableRange(t)
	size, err := w.s.db.EstimateDiskUsage(lo, hi)
	if err != nil {
		return err
	}
	w.s.dropMu.Lock()
	defer w.s.dropMu.Unlock()
	b := w.s.db.NewBatch()
	defer b.Close()
	if err := b.DeleteRange(lo, hi, nil); err != nil {
		return err
	}
	if err := w.s.disk.admit(b.Len()); err != nil {
		return err
	}
	// Losing this on a crash is harmless: the next walk drops the table again.
	if err := b.Commit(pebble.NoSync); err != nil {
		return err
	}
	w.stats.TablesDropped++
	w.touched(lo, hi, int64(min(size, math.MaxInt64)))
	return nil
}

// touched widens the range to compact and records the bytes removed in it.
func (w *gcWalk) touched(lo, hi []byte, removed int64) {
	if w.spanLo == nil || bytes.Compare(lo, w.spanLo) < 0 {
		w.spanLo = clone(lo)
	}
	if w.spanHi == nil || bytes.Compare(hi, w.spanHi) > 0 {
		w.spanHi = clone(hi)
	}
	w.removed += removed
}

// compact asks Pebble to rewrite the key range the call changed once enough
// garbage left it: the purge writes Sets, Deletes and DeleteRanges that only
// free space when a compaction meets what they cover.
func (w *gcWalk) compact(ctx context.Context) error {
	threshold := w.limit.CompactBytes
	if threshold == 0 {
		threshold = defaultCompactBytes
	}
	if threshold < 0 || w.spanLo == nil || w.removed < threshold {
		return nil
	}
	if err := w.s.db.Compact(ctx, w.spanLo, w.spanHi, false); err != nil {
		return err
	}
	w.stats.Compacted = true
	return nil
}

// partition purges one physical partition under its exclusive stripe lock,
// so that no blind write lands between the read and the rewrite that would
// hide it, and dropMu shared, so that no table drop does (invariant 6).
func (w *gcWalk) partition(ctx context.Context, p backend.PhysicalPartition, prefix []byte, before int64) error {
	s := w.s
	unlock := s.lockRewrite(p.LogicalPartition)
	defer unlock()
	it, err := s.db.NewIter(&pebble.IterOptions{
		LowerBound: rowKeyKind(prefix, kindHeader, nil),
		UpperBound: rowKeyKind(prefix, kindEnd, nil),
	})
	if err != nil {
		return err
	}
	defer it.Close()
	g := partitionGC{
		store:  s,
		prefix: prefix,
		batch:  s.db.NewBatch(),
		purger: rowPurger{now: w.now, gcBefore: before},
		header: newHeader(),
		maxTS:  backend.NoTimestamp,
	}
	defer func() { g.batch.Close() }()
	if err := g.run(ctx, it); err != nil {
		return err
	}
	w.stats.PartitionsScanned++
	w.stats.CellsPurged += g.purger.cells
	w.stats.TombstonesPurged += g.purger.tombstones
	w.stats.BytesBefore += g.before
	w.stats.BytesAfter += g.after
	w.bytesRead += g.before
	if g.rewrote {
		w.touched(rowKeyKind(prefix, kindHeader, nil), rowKeyKind(prefix, kindEnd, nil), g.before-g.after)
	}
	return nil
}

// storedTomb is a range tombstone read from its key.
type storedTomb struct {
	key  []byte
	tomb backend.RangeTombstone
	size int64
}

// partitionGC is the purge of one physical partition.
type partitionGC struct {
	store  *Store
	prefix []byte
	batch  *pebble.Batch
	purger rowPurger

	header    header
	hasHeader bool
	tombs     []storedTomb
	cover     shadowers
	// kept counts the non-header keys that remain; maxTS is the newest
	// timestamp they carry.
	kept  int
	maxTS int64

	before, after int64
	rewrote       bool
	row           backend.Row
	buf           []byte
}

// run reads the partition in key order — header, static row, range
// tombstones, rows — so every deletion is known before what it covers.
func (g *partitionGC) run(ctx context.Context, it *pebble.Iterator) error {
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		if n++; n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		key := it.Key()
		v, err := it.ValueAndErr()
		if err != nil {
			return err
		}
		g.before += int64(len(key) + len(v))
		if len(key) <= len(g.prefix) {
			return errBadKey
		}
		if err := g.visit(key, key[len(g.prefix)], v); err != nil {
			return err
		}
		if g.batch.Len() >= gcBatchBytes {
			if err := g.commit(); err != nil {
				return err
			}
		}
	}
	if err := it.Error(); err != nil {
		return err
	}
	if err := g.finish(); err != nil {
		return err
	}
	return g.commit()
}

func (g *partitionGC) visit(key []byte, kind byte, v []byte) error {
	switch kind {
	case kindHeader:
		h, err := decodeHeader(v)
		if err != nil {
			return err
		}
		g.header, g.hasHeader = h, true
	case kindStatic:
		g.cover = append(g.cover[:0], g.header.deletion)
		return g.collectRow(key, v, g.cover)
	case kindRangeTS:
		sl, err := decodeRangeTombstoneSuffix(key[len(g.prefix)+1:])
		if err != nil {
			return err
		}
		d, err := decodeDeletion(v)
		if err != nil {
			return err
		}
		g.tombs = append(g.tombs, storedTomb{
			key:  clone(key),
			tomb: backend.RangeTombstone{Slice: sl, Deletion: d},
			size: int64(len(key) + len(v)),
		})
	case kindRow:
		return g.collectRow(key, v, g.covering(key[len(g.prefix)+1:]))
	default:
		return errBadKey
	}
	return nil
}

// covering lists the partition and range deletions over a clustering key.
func (g *partitionGC) covering(clustering []byte) shadowers {
	g.cover = append(g.cover[:0], g.header.deletion)
	for i := range g.tombs {
		if g.tombs[i].tomb.Slice.Contains(clustering) {
			g.cover = append(g.cover, g.tombs[i].tomb.Deletion)
		}
	}
	return g.cover
}

// collectRow purges one row value and queues its rewrite or removal.
func (g *partitionGC) collectRow(key, value []byte, d shadowers) error {
	if err := decodeRow(value, &g.row, false); err != nil {
		return err
	}
	if !g.purger.purge(&g.row, d) && !rowIsEmpty(&g.row) {
		g.kept++
		g.maxTS = max(g.maxTS, g.row.MaxTimestamp())
		g.after += int64(len(key) + len(value))
		return nil
	}
	g.rewrote = true
	if rowIsEmpty(&g.row) {
		return g.batch.Delete(key, nil)
	}
	g.kept++
	g.maxTS = max(g.maxTS, g.row.MaxTimestamp())
	g.buf = encodeRow(g.buf[:0], &g.row)
	g.after += int64(len(key) + len(g.buf))
	return g.batch.Set(key, g.buf, nil)
}

// finish drops the range and partition deletions that gc_grace allows —
// every row they cover has been purged above — and rewrites or removes the
// header.
func (g *partitionGC) finish() error {
	before := g.purger.gcBefore
	drop := redundantTombstones(g.tombs, g.header.deletion, before)
	for i, t := range g.tombs {
		if drop[i] {
			if err := g.batch.Delete(t.key, nil); err != nil {
				return err
			}
			g.purger.tombstones++
			g.rewrote = true
			continue
		}
		g.kept++
		g.maxTS = max(g.maxTS, t.tomb.Deletion.MarkedForDeleteAt)
		g.after += t.size
	}
	headerKey := rowKeyKind(g.prefix, kindHeader, nil)
	changed := !g.hasHeader && g.kept > 0
	if d := g.header.deletion; !d.IsLive() && d.LocalDeletionTime < before {
		g.header.deletion = backend.LiveDeletion
		g.purger.tombstones++
		changed = true
	}
	if g.kept == 0 && g.header.deletion.IsLive() {
		// Nothing is left: the header goes too (invariant 11).
		if g.hasHeader {
			g.rewrote = true
			g.store.headers.forget(g.prefix)
			return g.batch.Delete(headerKey, nil)
		}
		return nil
	}
	g.header.maxTimestamp = max(g.header.maxTimestamp, g.maxTS, g.header.deletion.MarkedForDeleteAt)
	g.buf = g.header.encode(g.buf[:0])
	g.after += int64(len(headerKey) + len(g.buf))
	if !changed {
		return nil
	}
	g.rewrote = true
	return g.batch.Set(headerKey, g.buf, nil)
}

// commit writes the queued rewrites. NoSync is enough: the purged state
// reads the same as the state it replaces, and the WAL is replayed as a
// prefix, so a later write that depends on a purge is never kept without it.
func (g *partitionGC) commit() error {
	if g.batch.Empty() {
		return nil
	}
	if err := g.store.disk.admit(g.batch.Len()); err != nil {
		return err
	}
	if err := g.batch.Commit(pebble.NoSync); err != nil {
		return err
	}
	g.batch.Close()
	g.batch = g.store.db.NewBatch()
	return nil
}

func rowIsEmpty(r *backend.Row) bool {
	return r.Liveness.IsEmpty() && len(r.Cells) == 0 && r.Deletion.IsLive() && len(r.ComplexDeletions) == 0
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }
