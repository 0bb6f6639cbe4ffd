package storage

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"

	"github.com/partita-db/partita/internal/backend"
)

// A partition or range deletion also removes the rows it covers physically
// (invariant 3). When the partition may hold data newer than the deletion,
// the covered rows are read and what in them is newer written back. A range
// may hold millions of rows, so that rewrite runs after the batch recording
// the deletion has committed, in chunks that each commit on their own
// (invariant 14): its memory does not grow with the range.

// shadowedRange is a key range a deletion covers whose rows may carry data
// newer than the deletion, to be rewritten once the deletion is committed.
type shadowedRange struct {
	lo, hi   []byte
	deletion backend.DeletionTime
}

// deletionChunkBytes bounds a chunk of a rewrite: it ends once the keys and
// values it keeps reach this size. Keys it drops cost no memory, so they do
// not end a chunk: a range whose rows are all older than the deletion is
// removed by one DeleteRange, and reading past it costs one seek, where
// chunks cut by rows read would leave one range deletion per chunk for
// every later read to seek past.
const deletionChunkBytes = 1 << 20

// removeShadowed deletes, inside batch, the key ranges that m's partition
// and range deletions cover when nothing stored there can be newer than the
// deletion; it returns the ranges that may hold newer data (for
// rewriteShadowed, once batch has committed) and whether the ranges hold
// many keys. It runs under the partition's exclusive stripe.
func (s *Store) removeShadowed(batch *pebble.Batch, m *backend.Mutation, prefix []byte) ([]shadowedRange, bool, error) {
	stored, err := s.readHeader(prefix)
	if err != nil {
		return nil, false, err
	}
	if stored.maxTimestamp == backend.NoTimestamp {
		return nil, false, nil // nothing was ever written here
	}
	var rewrite []shadowedRange
	large := false
	remove := func(lo, hi []byte, d backend.DeletionTime) error {
		large = large || s.holdsMany(lo, hi)
		if stored.maxTimestamp <= d.MarkedForDeleteAt {
			// The common case (the deletion uses the current time): nothing
			// stored is newer, so nothing is read.
			return batch.DeleteRange(lo, hi, nil)
		}
		rewrite = append(rewrite, shadowedRange{lo: lo, hi: hi, deletion: d})
		return nil
	}
	if !m.PartitionDeletion.IsLive() {
		lo := append(append([]byte(nil), prefix...), kindStatic)
		hi := append(append([]byte(nil), prefix...), kindEnd)
		if err := remove(lo, hi, m.PartitionDeletion); err != nil {
			return nil, false, err
		}
	}
	for _, rt := range m.RangeTombstones {
		if !m.PartitionDeletion.IsLive() && m.PartitionDeletion.MarkedForDeleteAt >= rt.Deletion.MarkedForDeleteAt {
			continue // the partition deletion already removes more
		}
		lo := rowKey(prefix, rt.Slice.Start)
		hi := append(append([]byte(nil), prefix...), kindEnd)
		if rt.Slice.End != nil {
			hi = rowKey(prefix, rt.Slice.End)
		}
		if err := remove(lo, hi, rt.Deletion); err != nil {
			return nil, false, err
		}
	}
	return rewrite, large, nil
}

// rewriteShadowed rewrites each range chunk by chunk. It runs after the
// batch that records the ranges' deletions has committed, under the same
// exclusive stripes, so no other write lands in a range meanwhile. The
// request's context is not consulted: the deletion is committed already,
// and stopping early would only leave shadowed rows behind for garbage
// collection.
func (s *Store) rewriteShadowed(ranges []shadowedRange) error {
	for _, r := range ranges {
		for cursor := r.lo; cursor != nil; {
			next, err := s.rewriteChunk(cursor, r.hi, r.deletion)
			if err != nil {
				return fmt.Errorf("deletion recorded; rewriting the rows it covers: %w", err)
			}
			cursor = next
		}
	}
	return nil
}

// survivor is a key, and the value it keeps, in a rewritten chunk.
type survivor struct{ key, value []byte }

// rewriteChunk reads [lo, hi) up to the chunk bounds and commits one batch
// that removes the keys read with one DeleteRange and sets what in them is
// newer than d. It returns the key where the next chunk starts, or nil when
// the chunk reached hi.
//
// NoSync is enough: the batch that recorded the deletion is committed as
// Apply commits (invariant 5), a chunk changes no read (invariant 14), and
// the WAL is replayed as a prefix, so a crash keeps the rewrite up to some
// chunk boundary.
func (s *Store) rewriteChunk(lo, hi []byte, d backend.DeletionTime) ([]byte, error) {
	keep, end, next, err := s.readChunk(lo, hi, d)
	if err != nil || end == nil {
		return nil, err
	}
	batch := s.db.NewBatch()
	defer batch.Close()
	// The DeleteRange first: a later operation in a batch shadows an earlier
	// one, so the Sets survive it.
	if err := batch.DeleteRange(lo, end, nil); err != nil {
		return nil, err
	}
	for _, sv := range keep {
		if err := batch.Set(sv.key, sv.value, nil); err != nil {
			return nil, err
		}
	}
	if err := s.disk.admit(batch.Len()); err != nil {
		return nil, err
	}
	if err := batch.Commit(pebble.NoSync); err != nil {
		return nil, err
	}
	if s.afterDeletionChunk != nil {
		s.afterDeletionChunk()
	}
	return next, nil
}

// readChunk reads the keys of one chunk from lo and returns what in them
// survives d, the end of the chunk (exclusive; nil when [lo, hi) holds no
// key) and where the next chunk starts (nil when this one reaches hi).
func (s *Store) readChunk(lo, hi []byte, d backend.DeletionTime) (keep []survivor, end, next []byte, err error) {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return nil, nil, nil, err
	}
	defer it.Close()
	var (
		row       backend.Row
		read      bool
		keptBytes int
	)
	for ok := it.First(); ok; ok = it.Next() {
		if keptBytes >= deletionChunkBytes || (s.deletionChunkKeys > 0 && len(keep) >= s.deletionChunkKeys) {
			next = clone(it.Key())
			return keep, next, next, nil
		}
		read = true
		v, err := it.ValueAndErr()
		if err != nil {
			return nil, nil, nil, err
		}
		value, err := survivingValue(it.Key(), v, d, &row)
		if err != nil {
			return nil, nil, nil, err
		}
		if value != nil {
			keep = append(keep, survivor{key: clone(it.Key()), value: value})
			keptBytes += len(it.Key()) + len(value)
		}
	}
	if err := it.Error(); err != nil {
		return nil, nil, nil, err
	}
	if !read {
		return nil, nil, nil, nil
	}
	return keep, hi, nil, nil
}

// survivingValue returns what of one stored key's value d does not shadow,
// as a new slice, or nil when nothing is left: a range tombstone newer than
// d whole, a row without the cells, marker and deletions d covers.
func survivingValue(key, v []byte, d backend.DeletionTime, row *backend.Row) ([]byte, error) {
	if dk, err := decodeDataKey(key); err == nil && dk.kind == kindRangeTS {
		rtDel, err := decodeDeletion(v)
		if err != nil {
			return nil, err
		}
		if rtDel.MarkedForDeleteAt > d.MarkedForDeleteAt {
			return clone(v), nil
		}
		return nil, nil
	}
	if err := decodeRow(v, row, false); err != nil {
		return nil, err
	}
	row.Purge(d)
	if row.MaxTimestamp() > d.MarkedForDeleteAt {
		return encodeRow(nil, row), nil
	}
	return nil, nil
}
