package storage

import (
	"encoding/binary"
	"hash/maphash"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"

	"github.com/partita-db/partita/internal/backend"
)

// foldAfter is the number of merge operands a row key may gain before a
// write folds them into one value (invariant 13).
const foldAfter = 16

// hotKeys counts the writes to each row key, approximately: a fixed table
// of slots, each holding a fingerprint of the last key hashed to it and that
// key's count. A key that shares a slot with another busy key may be counted
// low (it then folds later); a count never runs high, so cold keys never
// fold.
type hotKeys struct {
	seed  maphash.Seed
	after uint64
	slots [1 << 16]atomic.Uint64
}

// newHotKeys counts writes to fold every after-th (foldAfter when 0).
func newHotKeys(after int) *hotKeys {
	if after <= 0 {
		after = foldAfter
	}
	return &hotKeys{seed: maphash.MakeSeed(), after: uint64(after)}
}

// note counts one write of the row (clustering nil: the static row) and
// reports whether it is the after-th since the key was last folded, in
// which case the count restarts.
func (h *hotKeys) note(p backend.PhysicalPartition, clustering []byte) bool {
	var mh maphash.Hash
	mh.SetSeed(h.seed)
	var fixed [21]byte
	binary.BigEndian.PutUint64(fixed[0:], uint64(p.Table))
	binary.BigEndian.PutUint64(fixed[8:], uint64(p.Token))
	binary.BigEndian.PutUint32(fixed[16:], uint32(p.Shard))
	if clustering == nil {
		fixed[20] = kindStatic
	} else {
		fixed[20] = kindRow
	}
	mh.Write(fixed[:])
	mh.Write(p.Key)
	mh.WriteByte(0)
	mh.Write(clustering)
	sum := mh.Sum64()
	slot := &h.slots[sum%uint64(len(h.slots))]
	fp := sum >> 32
	for {
		old := slot.Load()
		n := uint64(1)
		if old>>32 == fp {
			n = old&0xFFFFFFFF + 1
		}
		fold := n >= h.after
		if fold {
			n = 0
		}
		if slot.CompareAndSwap(old, fp<<32|n) {
			return fold
		}
	}
}

// planFolds notes every row and static row of muts and returns, per
// mutation, whether one of its rows is to be folded. Only a mutation that
// writes each key once and deletes no range is folded: its batch then holds
// no earlier operand of the key that the folded value would hide.
func (s *Store) planFolds(muts []backend.Mutation) []bool {
	var folds []bool
	for i := range muts {
		m := &muts[i]
		fold := false
		if m.Static != nil && s.hot.note(m.Partition, nil) {
			fold = true
		}
		for j := range m.Rows {
			if s.hot.note(m.Partition, m.Rows[j].Clustering) {
				fold = true
			}
		}
		if !fold || needsRewrite(m) || len(m.Rows) > 1 {
			continue
		}
		if folds == nil {
			folds = make([]bool, len(muts))
		}
		folds[i] = true
	}
	return folds
}

// writeFolded adds the row value v at key to batch as one Set of the row's
// stored value merged with v, so the key's earlier operands are never read
// again. It runs under the partition's stripe held exclusively. A key with
// nothing stored gets v as a merge operand, as any write.
func (s *Store) writeFolded(batch *pebble.Batch, key []byte, v *backend.Row, encoded []byte) error {
	stored, closer, err := s.db.Get(key)
	if err == pebble.ErrNotFound {
		return batch.Merge(key, encoded, nil)
	}
	if err != nil {
		return err
	}
	defer closer.Close()
	var row backend.Row
	if err := decodeRow(stored, &row, false); err != nil {
		return err
	}
	backend.MergeInto(&row, v, nil)
	return batch.Set(key, encodeRow(nil, &row), nil)
}
