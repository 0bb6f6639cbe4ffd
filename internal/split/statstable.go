package split

import (
	"encoding/binary"
	"hash/maphash"
	"sort"
	"sync"

	"github.com/partita-db/partita/internal/backend"
)

// statsTable holds the partition statistics in a bounded number of
// entries, spread over shards by a hash of the partition, each shard with
// its own lock. Invariants:
//  1. At most limit entries are kept (each shard holds at most its
//     capacity), so memory stays bounded however many partitions pass.
//  2. Each shard keeps its heavyCap highest-ranked entries in a protected
//     tier (a min-heap by rank) that eviction never takes from: an entry is
//     evicted only when the tier is full and the entry ranks no higher than
//     every protected entry of its shard. Rank (outranks) is a split or
//     merge decision waiting out its window first, then size (weight). So
//     the large partitions, which the detector, large_partitions and the
//     metrics are about, are never forgotten for the many small ones.
//  3. The other entries sit in a CLOCK ring: eviction sweeps a hand over
//     it, and an entry read or written since the hand last passed it is
//     unmarked and skipped instead of evicted, so the partitions in use
//     stay. A new entry starts unmarked: a partition seen only once goes
//     when the hand next reaches it.
//  4. An operation locks one shard and costs O(1) amortised (a sweep step
//     either clears a mark an earlier operation set or evicts), plus
//     O(log heavyCap) to re-place a protected entry whose rank changed;
//     only snapshots visit every shard.
type statsTable struct {
	seed   maphash.Seed
	shards []*statsShard
	mask   uint64
}

type statsShard struct {
	mu       sync.Mutex
	entries  map[string]*PartitionStats
	ring     []*PartitionStats
	hand     int
	heavy    []*PartitionStats // min-heap: heavy[0] ranks lowest
	capacity int
	heavyCap int
}

// statsPlace is where an entry sits in its shard.
type statsPlace struct {
	key    string // the entries map key
	slot   int    // index in ring or heavy
	heavy  bool
	marked bool // read or written since the hand last passed
}

// Shards of at least 256 entries, up to 64 shards (two cores' writers
// then rarely meet on one lock); a protected tier of an eighth of each. A
// key (16 bytes and the partition key) of up to statsKeyStackLength bytes
// is built without an allocation.
const (
	maxStatsShards      = 64
	minStatsShardSize   = 256
	statsHeavyFraction  = 8
	statsKeyStackLength = 96
)

func newStatsTable(limit int) *statsTable {
	shards := 1
	for shards < maxStatsShards && limit/(2*shards) >= minStatsShardSize {
		shards *= 2
	}
	return newStatsTableShards(limit, shards)
}

// newStatsTableShards returns a table of limit entries in shards shards (a
// power of two).
func newStatsTableShards(limit, shards int) *statsTable {
	t := &statsTable{seed: maphash.MakeSeed(), mask: uint64(shards - 1)}
	for i := range shards {
		capacity := limit / shards
		if i < limit%shards {
			capacity++ // the shards' capacities add up to limit
		}
		capacity = max(capacity, 1)
		t.shards = append(t.shards, &statsShard{entries: map[string]*PartitionStats{},
			capacity: capacity, heavyCap: capacity / statsHeavyFraction})
	}
	return t
}

// appendStatsKey appends the identity of p to dst.
func appendStatsKey(dst []byte, p backend.LogicalPartition) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(p.Table))
	dst = binary.BigEndian.AppendUint64(dst, uint64(p.Token))
	return append(dst, p.Key...)
}

// lock locks the shard of the partition whose key is k.
func (t *statsTable) lock(k []byte) *statsShard {
	s := t.shards[maphash.Bytes(t.seed, k)&t.mask]
	s.mu.Lock()
	return s
}

// weight is the size an entry is ranked (and large_partitions sorted) by.
func (e *PartitionStats) weight() int64 { return max(e.Bytes, e.BytesWritten) }

// outranks: a pending split or merge first (losing it would restart its
// window), then the larger.
func outranks(a, b *PartitionStats) bool {
	pa := !a.candidateSince.IsZero() || !a.mergeSince.IsZero()
	pb := !b.candidateSince.IsZero() || !b.mergeSince.IsZero()
	if pa != pb {
		return pa
	}
	return a.weight() > b.weight()
}

// getLocked returns the entry of key k, or nil.
func (s *statsShard) getLocked(k []byte) *PartitionStats { return s.entries[string(k)] }

// getOrAddLocked returns the entry of p (key k), adding it, unmarked, if
// it is missing.
func (s *statsShard) getOrAddLocked(k []byte, p backend.LogicalPartition) *PartitionStats {
	if e := s.entries[string(k)]; e != nil {
		return e
	}
	var e *PartitionStats
	switch {
	case len(s.heavy) < s.heavyCap:
		e = &PartitionStats{}
		s.pushHeavyLocked(e)
	case len(s.entries) >= s.capacity:
		// The new entry takes the victim's slot, and its memory; the hand
		// moves past it, so it is examined after a whole turn.
		slot := s.evictLocked()
		e = s.ring[slot].recycled()
		e.place.slot = slot
		s.hand = slot + 1
	default:
		e = &PartitionStats{}
		e.place.slot = len(s.ring)
		s.ring = append(s.ring, e)
	}
	// Partition.Key is never reused: copies handed out share it.
	e.Partition = backend.LogicalPartition{Table: p.Table, Token: p.Token, Key: append([]byte(nil), p.Key...)}
	e.place.key = string(k)
	s.entries[e.place.key] = e
	return e
}

// recycled clears an evicted entry for a new partition, keeping the
// buffers no copy shares (copyOut leaves them out).
func (e *PartitionStats) recycled() *PartitionStats {
	*e = PartitionStats{minKey: e.minKey[:0], maxKey: e.maxKey[:0]}
	return e
}

// useLocked returns the entry of p (key k) for a read or a write of p:
// an entry there already is marked used, a new one is added unmarked.
func (s *statsShard) useLocked(k []byte, p backend.LogicalPartition) *PartitionStats {
	if e := s.entries[string(k)]; e != nil {
		e.place.marked = true
		return e
	}
	return s.getOrAddLocked(k, p)
}

// rankChangedLocked restores the heap order after e's rank changed.
func (s *statsShard) rankChangedLocked(e *PartitionStats) {
	if e.place.heavy {
		s.downLocked(s.upLocked(e.place.slot))
	}
}

// evictLocked removes one ring entry (invariants 2 and 3) and returns its
// slot, which the caller fills. The shard is full, and its ring is not
// empty since heavyCap < capacity.
func (s *statsShard) evictLocked() int {
	for {
		if s.hand >= len(s.ring) {
			s.hand = 0
		}
		c := s.ring[s.hand]
		if len(s.heavy) > 0 && outranks(c, s.heavy[0]) {
			// c takes the place of the lowest protected entry, which takes
			// c's slot in the ring and is the candidate now.
			low := s.heavy[0]
			c.place.heavy, c.place.slot = true, 0
			s.heavy[0] = c
			s.downLocked(0)
			low.place.heavy, low.place.slot = false, s.hand
			s.ring[s.hand] = low
			c = low
		}
		if c.place.marked {
			c.place.marked = false
			s.hand++
			continue
		}
		delete(s.entries, c.place.key)
		return s.hand
	}
}

func (s *statsShard) pushHeavyLocked(e *PartitionStats) {
	e.place.heavy, e.place.slot = true, len(s.heavy)
	s.heavy = append(s.heavy, e)
	s.upLocked(e.place.slot)
}

func (s *statsShard) swapHeavyLocked(i, j int) {
	s.heavy[i], s.heavy[j] = s.heavy[j], s.heavy[i]
	s.heavy[i].place.slot, s.heavy[j].place.slot = i, j
}

// upLocked moves heavy[i] towards the root while it ranks below its
// parent, and returns where it ends.
func (s *statsShard) upLocked(i int) int {
	for i > 0 {
		parent := (i - 1) / 2
		if !outranks(s.heavy[parent], s.heavy[i]) {
			break
		}
		s.swapHeavyLocked(i, parent)
		i = parent
	}
	return i
}

// downLocked moves heavy[i] away from the root while a child ranks below
// it.
func (s *statsShard) downLocked(i int) {
	for {
		low := i
		if c := 2*i + 1; c < len(s.heavy) && outranks(s.heavy[low], s.heavy[c]) {
			low = c
		}
		if c := 2*i + 2; c < len(s.heavy) && outranks(s.heavy[low], s.heavy[c]) {
			low = c
		}
		if low == i {
			return
		}
		s.swapHeavyLocked(i, low)
		i = low
	}
}

// copyOut is a copy of e for a reader outside the lock, without the
// buffers the recording reuses.
func (e *PartitionStats) copyOut() PartitionStats {
	c := *e
	c.minKey, c.maxKey, c.children, c.place = nil, nil, nil, statsPlace{}
	return c
}

// get returns a copy of p's entry.
func (t *statsTable) get(p backend.LogicalPartition) (PartitionStats, bool) {
	var buf [statsKeyStackLength]byte
	k := appendStatsKey(buf[:0], p)
	s := t.lock(k)
	defer s.mu.Unlock()
	if e := s.getLocked(k); e != nil {
		return e.copyOut(), true
	}
	return PartitionStats{}, false
}

// update applies f to p's entry (added if missing) and returns a copy.
func (t *statsTable) update(p backend.LogicalPartition, f func(*PartitionStats)) PartitionStats {
	var buf [statsKeyStackLength]byte
	k := appendStatsKey(buf[:0], p)
	s := t.lock(k)
	defer s.mu.Unlock()
	e := s.getOrAddLocked(k, p)
	f(e)
	s.rankChangedLocked(e)
	return e.copyOut()
}

// collect copies the entries keep accepts (keep runs under a shard's lock
// and is given the entry's key, appendStatsKey's), largest first.
func (t *statsTable) collect(keep func(key string, e *PartitionStats) bool) []PartitionStats {
	var out []PartitionStats
	for _, s := range t.shards {
		s.mu.Lock()
		// The slices rather than the map: every entry is in one of them,
		// and they are cheaper to walk.
		for _, part := range [2][]*PartitionStats{s.heavy, s.ring} {
			for _, e := range part {
				if keep == nil || keep(e.place.key, e) {
					out = append(out, e.copyOut())
				}
			}
		}
		s.mu.Unlock()
	}
	sort.Slice(out, func(i, j int) bool { return out[i].weight() > out[j].weight() })
	return out
}

// snapshot copies every entry, largest first.
func (t *statsTable) snapshot() []PartitionStats { return t.collect(nil) }

// top copies the n largest entries, largest first, copying only entries
// that may be among them.
func (t *statsTable) top(n int) []PartitionStats {
	if n <= 0 {
		return nil
	}
	var best []PartitionStats // min-heap by weight once it holds n
	lighter := func(i, j int) bool { return best[i].weight() < best[j].weight() }
	for _, s := range t.shards {
		s.mu.Lock()
		for _, e := range s.entries {
			switch {
			case len(best) < n:
				best = append(best, e.copyOut())
				for i := len(best) - 1; i > 0 && lighter(i, (i-1)/2); i = (i - 1) / 2 {
					best[i], best[(i-1)/2] = best[(i-1)/2], best[i]
				}
			case e.weight() > best[0].weight():
				best[0] = e.copyOut()
				siftDownLighter(best, lighter)
			}
		}
		s.mu.Unlock()
	}
	sort.Slice(best, func(i, j int) bool { return best[i].weight() > best[j].weight() })
	return best
}

// siftDownLighter restores a min-heap whose root changed.
func siftDownLighter(h []PartitionStats, lighter func(i, j int) bool) {
	for i := 0; ; {
		low := i
		if c := 2*i + 1; c < len(h) && lighter(c, low) {
			low = c
		}
		if c := 2*i + 2; c < len(h) && lighter(c, low) {
			low = c
		}
		if low == i {
			return
		}
		h[i], h[low] = h[low], h[i]
		i = low
	}
}

// len is the number of entries (tests).
func (t *statsTable) len() int {
	n := 0
	for _, s := range t.shards {
		s.mu.Lock()
		n += len(s.entries)
		s.mu.Unlock()
	}
	return n
}
