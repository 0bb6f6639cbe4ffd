package engine

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"strings"
	"sync/atomic"
	"time"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/token"
	"github.com/partita-db/partita/internal/types"
)

// writeRate is Partita's per-partition write-rate guard
// (partition_write_rate_warn_threshold, partition_write_rate_fail_threshold;
// Cassandra has none). It counts the writes to each logical partition in
// the current second with the storage layer's hot-key scheme
// (storage/hotkeys.go): a fixed table of slots, each holding a fingerprint
// of the last partition hashed to it, the second it counts and the count.
// A partition that shares a slot with another busy one restarts its count,
// so a count may run low but never high: a partition is never refused for
// another's writes.
type writeRate struct {
	warn, fail int64
	seed       maphash.Seed
	slots      [1 << 14]atomic.Uint64
}

// newWriteRate returns the guard, or nil when both thresholds are off.
func newWriteRate(warn, fail int64) *writeRate {
	if warn <= 0 && fail <= 0 {
		return nil
	}
	return &writeRate{warn: warn, fail: fail, seed: maphash.MakeSeed()}
}

// Slot layout: fingerprint (24 bits), second (16 bits), count (24 bits).
const (
	rateCountBits  = 24
	rateSecondBits = 16
	rateCountMax   = 1<<rateCountBits - 1
)

// note counts one write to p at now and returns the partition's writes in
// this second, this one included.
func (w *writeRate) note(p backend.LogicalPartition, now time.Time) int64 {
	var h maphash.Hash
	h.SetSeed(w.seed)
	var fixed [16]byte
	binary.BigEndian.PutUint64(fixed[0:], uint64(p.Table))
	binary.BigEndian.PutUint64(fixed[8:], uint64(p.Token))
	h.Write(fixed[:])
	h.Write(p.Key)
	sum := h.Sum64()
	slot := &w.slots[sum%uint64(len(w.slots))]
	fp := sum >> (64 - 24)
	second := uint64(now.Unix()) & (1<<rateSecondBits - 1)
	head := fp<<rateSecondBits | second
	for {
		old := slot.Load()
		n := uint64(1)
		if old>>rateCountBits == head {
			n = min(old&rateCountMax+1, rateCountMax)
		}
		if slot.CompareAndSwap(old, head<<rateCountBits|n) {
			return int64(n)
		}
	}
}

// check counts the writes of muts, once per logical partition, and
// refuses them when a partition is past the failure threshold: nothing of
// the statement is applied. A partition past the warning threshold adds a
// client warning.
func (w *writeRate) check(schema *catalog.Schema, muts []backend.Mutation, now time.Time) ([]string, error) {
	var warnings []string
	seen := make(map[string]bool, len(muts))
	for i := range muts {
		p := muts[i].Partition.LogicalPartition
		id := fmt.Sprintf("%d/%x", p.Table, p.Key)
		if seen[id] {
			continue
		}
		seen[id] = true
		n := w.note(p, now)
		switch {
		case w.fail > 0 && n > w.fail:
			table, key := describePartition(schema, p)
			return nil, cqlerr.NewOverloaded("Too many writes to partition %s of table %s: %d in the last second, more than partition_write_rate_fail_threshold (%d)",
				key, table, n, w.fail)
		case w.warn > 0 && n == w.warn+1:
			// Once a second per partition, not on every write past it.
			table, key := describePartition(schema, p)
			warnings = append(warnings, fmt.Sprintf("Partition %s of table %s took more than %d writes in the last second (partition_write_rate_warn_threshold)",
				key, table, w.warn))
		}
	}
	return warnings, nil
}

// describePartition names a partition's table and key as CQL literals
// (several components joined by ':', as Cassandra prints a composite key).
func describePartition(schema *catalog.Schema, p backend.LogicalPartition) (table, key string) {
	t := schema.TableByStorageID(p.Table)
	if t == nil {
		return fmt.Sprint(p.Table), fmt.Sprintf("0x%x", p.Key)
	}
	comps, err := token.SplitKey(p.Key, len(t.PartitionKey))
	if err != nil || len(comps) != len(t.PartitionKey) {
		return t.Keyspace + "." + t.Name, fmt.Sprintf("0x%x", p.Key)
	}
	parts := make([]string, len(comps))
	for i, c := range comps {
		parts[i] = types.FormatLiteral(t.PartitionKey[i].Type, c)
	}
	return t.Keyspace + "." + t.Name, strings.Join(parts, ":")
}
