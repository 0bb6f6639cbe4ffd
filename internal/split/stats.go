package split

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/partita-db/partita/internal/backend"
)

// PartitionStats are what the layer observes of one logical partition
// since the server started, or since the partition came back into the
// bounded table (statsTable) after it was evicted (approximate: overwrites
// count as new rows), and what it last measured exactly.
type PartitionStats struct {
	Partition    backend.LogicalPartition
	RowsWritten  int64
	BytesWritten int64
	Tombstones   int64
	Reads        int64
	RowsRead     int64
	BytesRead    int64
	// ReadMicros is the total time spent in reads.
	ReadMicros int64
	LastWrite  time.Time
	// FirstWrite is the first write recorded since the entry was made.
	FirstWrite time.Time
	// Measured: exact rows and estimated bytes of the largest physical
	// partition, and of the whole logical partition, when last measured.
	MeasuredAt     time.Time
	Rows, Bytes    int64
	MaxChildRows   int64
	MaxChildBytes  int64
	candidateSince time.Time
	mergeSince     time.Time
	ascending      int64 // writes above every key seen
	descending     int64 // writes below every key seen
	interior       int64
	minKey, maxKey []byte // the clustering keys seen, once keysSeen
	keysSeen       bool
	// children caches the last exact measure of each physical partition
	// of a split partition, for the placement of epoch; a child written
	// since is dirty and measured again.
	children map[backend.Shard]*childMeasure
	epoch    uint64
	place    statsPlace
}

type childMeasure struct {
	rows, bytes int64
	dirty       bool
}

// recordWrite notes one logical mutation.
func (t *statsTable) recordWrite(m *backend.Mutation, now time.Time) {
	var buf [statsKeyStackLength]byte
	k := appendStatsKey(buf[:0], m.Partition.LogicalPartition)
	s := t.lock(k)
	defer s.mu.Unlock()
	e := s.useLocked(k, m.Partition.LogicalPartition)
	defer s.rankChangedLocked(e) // its weight grows
	e.LastWrite = now
	if e.FirstWrite.IsZero() {
		e.FirstWrite = now
	}
	if !m.PartitionDeletion.IsLive() {
		e.Tombstones++
	}
	e.Tombstones += int64(len(m.RangeTombstones))
	for i := range m.Rows {
		r := &m.Rows[i]
		e.RowsWritten++
		e.BytesWritten += int64(len(r.Clustering))
		for j := range r.Cells {
			e.BytesWritten += int64(len(r.Cells[j].Value) + len(r.Cells[j].Path) + 8)
		}
		if !r.Deletion.IsLive() {
			e.Tombstones++
		}
		switch {
		case !e.keysSeen:
			e.keysSeen = true
			e.minKey = append(e.minKey[:0], r.Clustering...)
			e.maxKey = append(e.maxKey[:0], r.Clustering...)
		case bytes.Compare(r.Clustering, e.maxKey) > 0:
			e.ascending++
			e.maxKey = append(e.maxKey[:0], r.Clustering...)
		case bytes.Compare(r.Clustering, e.minKey) < 0:
			e.descending++
			e.minKey = append(e.minKey[:0], r.Clustering...)
		default:
			e.interior++
		}
	}
}

// recordChildWrites marks the physical partitions a routed batch wrote as
// changed since their last measure.
func (t *statsTable) recordChildWrites(ms []backend.Mutation) {
	var buf [statsKeyStackLength]byte
	for i := range ms {
		k := appendStatsKey(buf[:0], ms[i].Partition.LogicalPartition)
		s := t.lock(k)
		if e := s.getLocked(k); e != nil && e.children != nil {
			if c := e.children[ms[i].Partition.Shard]; c != nil {
				c.dirty = true
			}
		}
		s.mu.Unlock()
	}
}

// cachedChild returns the last measure of a clean child of placement epoch.
func (t *statsTable) cachedChild(p backend.LogicalPartition, epoch uint64, sh backend.Shard) (rows, bytes int64, ok bool) {
	var buf [statsKeyStackLength]byte
	k := appendStatsKey(buf[:0], p)
	s := t.lock(k)
	defer s.mu.Unlock()
	e := s.getLocked(k)
	if e == nil || e.epoch != epoch || e.children == nil {
		return 0, 0, false
	}
	c := e.children[sh]
	if c == nil || c.dirty {
		return 0, 0, false
	}
	return c.rows, c.bytes, true
}

// recordChild caches a child's exact measure for placement epoch.
func (t *statsTable) recordChild(p backend.LogicalPartition, epoch uint64, sh backend.Shard, rows, bytes int64) {
	t.update(p, func(e *PartitionStats) {
		if e.children == nil || e.epoch != epoch {
			e.children, e.epoch = map[backend.Shard]*childMeasure{}, epoch
		}
		e.children[sh] = &childMeasure{rows: rows, bytes: bytes}
	})
}

// recordRead notes one logical read.
func (t *statsTable) recordRead(p backend.LogicalPartition, rows, bytes int64, d time.Duration) {
	var buf [statsKeyStackLength]byte
	k := appendStatsKey(buf[:0], p)
	s := t.lock(k)
	defer s.mu.Unlock()
	e := s.useLocked(k, p) // a read leaves the rank as it is
	e.Reads++
	e.RowsRead += rows
	e.BytesRead += bytes
	e.ReadMicros += d.Microseconds()
}

// Measurements are persisted as metadata, so that after a restart the
// detector knows which partitions are large before they take many writes.
const measurePrefix = "splitmeasure/"

type savedMeasure struct {
	At            int64 `json:"at"` // µs since the epoch
	Rows          int64 `json:"rows"`
	Bytes         int64 `json:"bytes"`
	MaxChildRows  int64 `json:"max_child_rows"`
	MaxChildBytes int64 `json:"max_child_bytes"`
}

func measureKey(p backend.LogicalPartition) []byte {
	return append([]byte(measurePrefix), stateKey(p)[len(metaPrefix):]...)
}

func (e *PartitionStats) saved() backend.MetaWrite {
	v, _ := json.Marshal(savedMeasure{At: e.MeasuredAt.UnixMicro(), Rows: e.Rows, Bytes: e.Bytes,
		MaxChildRows: e.MaxChildRows, MaxChildBytes: e.MaxChildBytes})
	return backend.MetaWrite{Key: measureKey(e.Partition), Value: v}
}

// loadMeasures restores the persisted measurements.
func (t *statsTable) loadMeasures(ctx context.Context, b backend.Backend) error {
	kvs, err := b.ScanMeta(ctx, []byte(measurePrefix))
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		p, ok := partitionOfStateKey(append([]byte(metaPrefix), kv.Key[len(measurePrefix):]...))
		var m savedMeasure
		if !ok || json.Unmarshal(kv.Value, &m) != nil {
			continue // unreadable: the next measure rewrites it
		}
		t.update(p, func(e *PartitionStats) {
			e.MeasuredAt, e.Rows, e.Bytes = time.UnixMicro(m.At), m.Rows, m.Bytes
			e.MaxChildRows, e.MaxChildBytes = m.MaxChildRows, m.MaxChildBytes
		})
	}
	return nil
}
