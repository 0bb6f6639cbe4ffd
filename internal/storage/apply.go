package storage

import (
	"context"
	"errors"

	"github.com/cockroachdb/pebble/v2"

	"github.com/partita-db/partita/internal/backend"
)

// Apply implements backend.Backend. Mutations of one physical partition are
// coalesced first, so a batch behaves like one mutation per partition, as in
// Cassandra. Partition and range deletions also remove the rows they shadow
// physically (DeleteRange), so that reading past them costs one seek; rows
// that carry newer data than the deletion are rewritten with only that data,
// in chunks committed after the batch (deletion_rewrite.go, invariant 14).
func (s *Store) Apply(ctx context.Context, b *backend.WriteBatch) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	muts := coalesce(b.Mutations)
	folds := s.planFolds(muts)
	unlock := s.lockForApply(muts, folds, len(b.DropTables) > 0)
	defer unlock()
	batch := s.db.NewBatch()
	defer batch.Close()
	var bounds []headerBound
	var rewrites []shadowedRange
	large := false
	for i := range muts {
		b, many, err := s.writeMutation(batch, &muts[i], folds != nil && folds[i], &rewrites)
		if err != nil {
			return err
		}
		if b.bound != 0 {
			bounds = append(bounds, b)
		}
		large = large || many
	}
	for _, t := range b.DropTables {
		lo, hi := tableRange(t)
		if err := batch.DeleteRange(lo, hi, nil); err != nil {
			return err
		}
	}
	for _, m := range b.Meta {
		var err error
		if m.Value == nil {
			err = batch.Delete(metaKey(m.Key), nil)
		} else {
			err = batch.Set(metaKey(m.Key), m.Value, nil)
		}
		if err != nil {
			return err
		}
	}
	if batch.Empty() {
		return nil
	}
	if err := s.disk.admit(batch.Len()); err != nil {
		return err
	}
	if err := batch.Commit(s.sync); err != nil {
		return err
	}
	// Only a committed header may let later writes skip theirs.
	for _, b := range bounds {
		s.headers.record(b)
	}
	// Only once the deletions are recorded (invariant 14).
	if err := s.rewriteShadowed(rewrites); err != nil {
		return err
	}
	if large {
		s.flushAfterDeletion()
	}
	return nil
}

// largeDeletion is the number of stored keys from which a range deletion
// flushes the memtable.
const largeDeletion = 1000

// flushAfterDeletion starts a flush after a deletion removed many rows.
// Pebble seeks over the rows a newer level's range deletion covers, but
// steps over those in the same memtable one by one; the flush drops them,
// so reads past a large deletion cost O(log n) again within moments
// (invariant 3). One such flush runs at a time.
func (s *Store) flushAfterDeletion() {
	if !s.deleteFlush.CompareAndSwap(false, true) {
		return
	}
	if _, err := s.db.AsyncFlush(); err != nil {
		s.deleteFlush.Store(false)
	}
}

// flushed is Pebble's notice that a flush ended.
func (s *Store) flushed() { s.deleteFlush.Store(false) }

// holdsMany reports whether [lo, hi) holds at least largeDeletion keys
// (it reads no further).
func (s *Store) holdsMany(lo, hi []byte) bool {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi, KeyTypes: pebble.IterKeyTypePointsOnly})
	if err != nil {
		return false
	}
	defer it.Close()
	n := 0
	for ok := it.First(); ok && n < largeDeletion; ok = it.Next() {
		n++
	}
	return n >= largeDeletion
}

func anyRewrite(muts []backend.Mutation) bool {
	for i := range muts {
		if needsRewrite(&muts[i]) {
			return true
		}
	}
	return false
}

func needsRewrite(m *backend.Mutation) bool {
	return !m.PartitionDeletion.IsLive() || len(m.RangeTombstones) > 0
}

// coalesce merges mutations of the same physical partition, keeping the
// order in which partitions first appear.
func coalesce(muts []backend.Mutation) []backend.Mutation {
	if len(muts) <= 1 {
		return muts
	}
	out := make([]backend.Mutation, 0, len(muts))
	index := map[string]int{}
	for _, m := range muts {
		k := string(appendPhysical(nil, m.Partition))
		i, ok := index[k]
		if !ok {
			index[k] = len(out)
			out = append(out, m)
			continue
		}
		dst := &out[i]
		dst.PartitionDeletion = dst.PartitionDeletion.Max(m.PartitionDeletion)
		// Full slice expressions: appending must copy, never write into
		// the caller's arrays.
		dst.RangeTombstones = append(dst.RangeTombstones[:len(dst.RangeTombstones):len(dst.RangeTombstones)], m.RangeTombstones...)
		if m.Static != nil {
			if dst.Static == nil {
				st := *m.Static
				dst.Static = &st
			} else {
				merged := *dst.Static
				backend.MergeInto(&merged, m.Static, nil)
				dst.Static = &merged
			}
		}
		dst.Rows = append(dst.Rows[:len(dst.Rows):len(dst.Rows)], m.Rows...)
	}
	return out
}

// writeMutation adds m to batch; it returns the header bound to record once
// the batch commits, and whether m deletes many stored rows, and appends to
// rewrites the ranges its deletions cover that must be rewritten once the
// batch commits. With fold set (and the stripe held exclusively) its rows
// are folded (invariant 13).
func (s *Store) writeMutation(batch *pebble.Batch, m *backend.Mutation, fold bool, rewrites *[]shadowedRange) (headerBound, bool, error) {
	p := m.Partition
	prefix := appendPhysical(nil, p)
	h := newHeader()
	h.deletion = m.PartitionDeletion
	var large bool
	if needsRewrite(m) {
		ranges, many, err := s.removeShadowed(batch, m, prefix)
		if err != nil {
			return headerBound{}, false, err
		}
		*rewrites = append(*rewrites, ranges...)
		large = many
	}
	if !m.PartitionDeletion.IsLive() {
		h.maxTimestamp = m.PartitionDeletion.MarkedForDeleteAt
		h.tombstonesWritten++
	}
	var buf []byte
	for _, rt := range m.RangeTombstones {
		buf = encodeDeletion(buf[:0], rt.Deletion)
		if err := batch.Merge(rangeTombstoneKey(p, rt.Slice), buf, nil); err != nil {
			return headerBound{}, false, err
		}
		h.maxTimestamp = max(h.maxTimestamp, rt.Deletion.MarkedForDeleteAt)
		h.tombstonesWritten++
	}
	if m.Static != nil {
		buf = encodeRow(buf[:0], m.Static)
		if err := s.writeRow(batch, append(append([]byte(nil), prefix...), kindStatic), m.Static, buf, fold); err != nil {
			return headerBound{}, false, err
		}
		h.maxTimestamp = max(h.maxTimestamp, m.Static.MaxTimestamp())
		h.bytesWritten += int64(len(buf))
	}
	for i := range m.Rows {
		r := &m.Rows[i]
		buf = encodeRow(buf[:0], r)
		if err := s.writeRow(batch, rowKey(prefix, r.Clustering), r, buf, fold); err != nil {
			return headerBound{}, false, err
		}
		h.maxTimestamp = max(h.maxTimestamp, r.MaxTimestamp())
		h.rowsWritten++
		h.bytesWritten += int64(len(buf) + len(r.Clustering))
		if !r.Deletion.IsLive() {
			h.tombstonesWritten++
		}
	}
	// The header is merged only when it carries a deletion or when this
	// write is newer than the bound the partition's header already holds
	// (invariant 3): a hot partition then adds one header operand per
	// headerSlack, not one per write, so reads do not merge thousands.
	if h.deletion.IsLive() && s.headers.covers(prefix, h.maxTimestamp) {
		return headerBound{}, large, nil
	}
	bound := headerBound{prefix: string(prefix), bound: h.maxTimestamp}
	if h.maxTimestamp != backend.NoTimestamp {
		h.maxTimestamp += headerSlack
		bound.bound = h.maxTimestamp
	}
	return bound, large, batch.Merge(append(append([]byte(nil), prefix...), kindHeader), h.encode(buf[:0]), nil)
}

// writeRow adds one row (or static row) value to batch: a merge operand, or
// with fold the key's stored value merged with it.
func (s *Store) writeRow(batch *pebble.Batch, key []byte, r *backend.Row, encoded []byte, fold bool) error {
	if fold {
		return s.writeFolded(batch, key, r, encoded)
	}
	return batch.Merge(key, encoded, nil)
}

func (s *Store) readHeader(prefix []byte) (header, error) {
	v, closer, err := s.db.Get(append(append([]byte(nil), prefix...), kindHeader))
	if errors.Is(err, pebble.ErrNotFound) {
		return newHeader(), nil
	}
	if err != nil {
		return header{}, err
	}
	defer closer.Close()
	return decodeHeader(v)
}
