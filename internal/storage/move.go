package storage

import (
	"context"

	"github.com/cockroachdb/pebble/v2"

	"github.com/partita-db/partita/internal/backend"
)

var _ backend.Mover = (*Store)(nil)

// Move implements backend.Mover: it copies each row's merged value (every
// cell with its timestamp, TTL and tombstone) to the shard Route names,
// removes it from its source, carries the range tombstones and the
// partition deletion along, and commits that with cmd.Meta in one batch.
func (s *Store) Move(ctx context.Context, cmd backend.MoveCommand) (backend.MoveStats, error) {
	var st backend.MoveStats
	if err := ctx.Err(); err != nil {
		return st, err
	}
	// A move reads then writes, like a rewriting deletion: neither a write
	// to the partition nor a table drop may run between the two.
	unlock := s.lockRewrite(cmd.Partition)
	defer unlock()
	batch := s.db.NewBatch()
	defer batch.Close()
	deletion := backend.LiveDeletion
	var maxTS int64 = backend.NoTimestamp
	for _, from := range cmd.From {
		src := cmd.Partition.Physical(from)
		prefix := appendPhysical(nil, src)
		h, err := s.readHeader(prefix)
		if err != nil {
			return st, err
		}
		deletion = deletion.Max(h.deletion)
		maxTS = max(maxTS, h.maxTimestamp)
		if err := s.moveRows(batch, cmd, from, prefix, &st); err != nil {
			return st, err
		}
		if err := s.copyRangeTombstones(batch, cmd, src); err != nil {
			return st, err
		}
	}
	for _, to := range cmd.Targets {
		// A target needs the sources' deletion and a bound covering what
		// it receives; one whose header holds both already gets no new
		// operand (a migration makes thousands of steps, and every operand
		// is merged by each read until a compaction folds them).
		prefix := appendPhysical(nil, cmd.Partition.Physical(to))
		cur, err := s.readHeader(prefix)
		if err != nil {
			return st, err
		}
		if cur.deletion.Max(deletion) == cur.deletion && cur.maxTimestamp >= maxTS {
			continue
		}
		h := newHeader()
		h.deletion, h.maxTimestamp = deletion, maxTS
		if err := batch.Merge(append(prefix, kindHeader), h.encode(nil), nil); err != nil {
			return st, err
		}
	}
	for _, m := range cmd.Meta {
		var err error
		if m.Value == nil {
			err = batch.Delete(metaKey(m.Key), nil)
		} else {
			err = batch.Set(metaKey(m.Key), m.Value, nil)
		}
		if err != nil {
			return st, err
		}
	}
	if err := s.disk.admit(batch.Len()); err != nil {
		return st, err
	}
	return st, batch.Commit(s.sync)
}

// moveRows copies the rows of one source shard inside cmd.Slice to their
// destinations and removes them from the source: with one DeleteRange when
// every row left, otherwise one delete per moved row.
func (s *Store) moveRows(batch *pebble.Batch, cmd backend.MoveCommand, from backend.Shard, prefix []byte, st *backend.MoveStats) error {
	lo := rowKey(prefix, cmd.Slice.Start)
	hi := append(append([]byte(nil), prefix...), kindEnd)
	if cmd.Slice.End != nil {
		hi = rowKey(prefix, cmd.Slice.End)
	}
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return err
	}
	defer it.Close()
	allMoved := true
	var moved [][]byte
	dests := map[backend.Shard][]byte{}
	for ok := it.First(); ok; ok = it.Next() {
		key := it.Key()
		ck := key[len(prefix)+1:]
		to := cmd.Route(ck)
		if to == from {
			allMoved = false
			continue
		}
		v, err := it.ValueAndErr()
		if err != nil {
			return err
		}
		dp, ok := dests[to]
		if !ok {
			dp = appendPhysical(nil, cmd.Partition.Physical(to))
			dests[to] = dp
		}
		if err := batch.Merge(rowKey(dp, ck), v, nil); err != nil {
			return err
		}
		st.Rows++
		st.Bytes += int64(len(key) + len(v))
		moved = append(moved, append([]byte(nil), key...))
	}
	if err := it.Error(); err != nil {
		return err
	}
	if len(moved) == 0 {
		return nil
	}
	// A source that is also a target may have received rows earlier in
	// this batch: only a source that receives nothing may be cleared by
	// range.
	if allMoved && !containsShard(cmd.Targets, from) {
		return batch.DeleteRange(lo, hi, nil)
	}
	for _, k := range moved {
		if err := batch.Delete(k, nil); err != nil {
			return err
		}
	}
	return nil
}

func containsShard(shards []backend.Shard, s backend.Shard) bool {
	for _, x := range shards {
		if x == s {
			return true
		}
	}
	return false
}

// copyRangeTombstones gives every target the source's range tombstones,
// clipped to the moved slice, so moved rows stay shadowed.
func (s *Store) copyRangeTombstones(batch *pebble.Batch, cmd backend.MoveCommand, src backend.PhysicalPartition) error {
	prefix := partitionKindKey(src, kindRangeTS)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: backend.PrefixSuccessor(prefix)})
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		sl, err := decodeRangeTombstoneSuffix(it.Key()[len(prefix):])
		if err != nil {
			return err
		}
		clipped := sl.Intersect(cmd.Slice)
		if clipped.IsEmpty() {
			continue
		}
		v, err := it.ValueAndErr()
		if err != nil {
			return err
		}
		for _, to := range cmd.Targets {
			if to == src.Shard {
				continue
			}
			if err := batch.Merge(rangeTombstoneKey(cmd.Partition.Physical(to), clipped), v, nil); err != nil {
				return err
			}
		}
	}
	return it.Error()
}

// EstimateSize implements backend.Mover.
func (s *Store) EstimateSize(_ context.Context, p backend.PhysicalPartition) (int64, error) {
	prefix := appendPhysical(nil, p)
	n, err := s.db.EstimateDiskUsage(append(append([]byte(nil), prefix...), kindHeader), append(prefix, kindEnd))
	return int64(n), err
}
