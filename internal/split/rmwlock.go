package split

import (
	"bytes"
	"context"
	"sort"

	"github.com/partita-db/partita/internal/backend"
)

// PartitionLock is a statement's hold on its partitions' read-modify-write
// locks (LockPartitions): the in-process stripes and, over a shared
// backend, the cluster-wide leases.
type PartitionLock struct {
	layer   *Layer
	stripes []int
	lease   backend.PartitionLease
	done    bool
}

// Timestamp returns the timestamp to write at instead of ts: over a shared
// backend it is raised above what earlier holders of the leases may have
// written (backend.PartitionLease.Fence).
func (k *PartitionLock) Timestamp(ctx context.Context, ts int64) (int64, error) {
	if k.lease == nil {
		return ts, nil
	}
	return k.lease.Fence(ctx, ts)
}

// Release ends the hold after the statement's write (wrote) or after it
// decided not to write. A write is only reported done when Release
// returns nil: over a shared backend the lease must have been held until
// the write was acknowledged.
func (k *PartitionLock) Release(ctx context.Context, wrote bool) error {
	if k.done {
		return nil
	}
	var err error
	if k.lease != nil {
		err = k.lease.Release(ctx, wrote)
	}
	k.unlockStripes()
	return err
}

// Unlock ends the hold on an error path (nothing more is reported to the
// client as done); it does nothing after Release.
func (k *PartitionLock) Unlock() {
	if k.done {
		return
	}
	if k.lease != nil {
		_ = k.lease.Release(context.Background(), false)
	}
	k.unlockStripes()
}

func (k *PartitionLock) unlockStripes() {
	k.done = true
	for _, s := range k.stripes {
		k.layer.rmw[s].Unlock()
	}
}

// sortedDistinct returns ps sorted by (table, token, key) without
// duplicates: the order every process takes leases in.
func sortedDistinct(ps []backend.LogicalPartition) []backend.LogicalPartition {
	out := append([]backend.LogicalPartition(nil), ps...)
	sort.Slice(out, func(i, j int) bool { return comparePartitions(out[i], out[j]) < 0 })
	uniq := out[:0]
	for i, p := range out {
		if i == 0 || comparePartitions(p, out[i-1]) != 0 {
			uniq = append(uniq, p)
		}
	}
	return uniq
}

func comparePartitions(a, b backend.LogicalPartition) int {
	switch {
	case a.Table != b.Table:
		if a.Table < b.Table {
			return -1
		}
		return 1
	case a.Token != b.Token:
		if a.Token < b.Token {
			return -1
		}
		return 1
	}
	return bytes.Compare(a.Key, b.Key)
}
