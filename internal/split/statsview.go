package split

import (
	"bytes"

	"github.com/partita-db/partita/internal/backend"
)

// WriteOrder counts the rows written to the partition since its entry was
// made by where their clustering keys fell: above every key seen before,
// below every key seen, or in between. An append-only partition (a time
// series) has almost only the first or the second.
func (s PartitionStats) WriteOrder() (ascending, descending, interior int64) {
	return s.ascending, s.descending, s.interior
}

// KeyRange returns copies of the lowest and highest clustering keys
// written to p since its statistics entry was made; ok is false when no
// row with a clustering key was recorded.
func (l *Layer) KeyRange(p backend.LogicalPartition) (lo, hi []byte, ok bool) {
	var buf [statsKeyStackLength]byte
	k := appendStatsKey(buf[:0], p)
	s := l.stats.lock(k)
	defer s.mu.Unlock()
	e := s.getLocked(k)
	if e == nil || !e.keysSeen {
		return nil, nil, false
	}
	return bytes.Clone(e.minKey), bytes.Clone(e.maxKey), true
}

// ShardsRead lists the physical partitions a read of these slices opens,
// in clustering order, each once.
func (s *State) ShardsRead(slices []backend.Slice) []backend.Shard {
	var out []backend.Shard
	seen := map[backend.Shard]bool{}
	for _, sl := range slices {
		for _, pc := range s.readPieces(sl) {
			for _, sh := range pc.Shards {
				if !seen[sh] {
					seen[sh] = true
					out = append(out, sh)
				}
			}
		}
	}
	return out
}
