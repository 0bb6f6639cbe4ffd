package split

import (
	"context"
	"hash/maphash"
	"sort"
	"sync"

	"github.com/partita-db/partita/internal/backend"
)

// Layer is the logical-partition view of a backend.
type Layer struct {
	backend backend.Backend
	seed    maphash.Seed
	locks   [4096]sync.Mutex
}

// New returns the layer over b.
func New(b backend.Backend) *Layer {
	return &Layer{backend: b, seed: maphash.MakeSeed()}
}

// Backend returns the backend below the layer (for metadata).
func (l *Layer) Backend() backend.Backend { return l.backend }

// Apply routes each mutation to the physical partition that owns it and
// applies the batch atomically.
func (l *Layer) Apply(ctx context.Context, b *backend.WriteBatch) error {
	for i := range b.Mutations {
		b.Mutations[i].Partition.Shard = backend.HomeShard
	}
	return l.backend.Apply(ctx, b)
}

// Read reads one logical partition.
func (l *Layer) Read(ctx context.Context, cmd backend.ReadCommand) (backend.RowIterator, error) {
	cmd.Partition.Shard = backend.HomeShard
	return l.backend.Read(ctx, cmd)
}

// Scan reads a token range of logical partitions.
func (l *Layer) Scan(ctx context.Context, cmd backend.ScanCommand) (backend.RowIterator, error) {
	return l.backend.Scan(ctx, cmd)
}

// LockPartitions takes the read-modify-write locks of logical partitions
// (invariant 2), in a fixed order so that concurrent callers cannot
// deadlock, and returns their release.
func (l *Layer) LockPartitions(ps []backend.LogicalPartition) func() {
	stripes := make([]int, 0, len(ps))
	for _, p := range ps {
		var h maphash.Hash
		h.SetSeed(l.seed)
		h.Write(p.Key)
		stripes = append(stripes, int((h.Sum64()^uint64(p.Table))%uint64(len(l.locks))))
	}
	sort.Ints(stripes)
	held := stripes[:0]
	for i, s := range stripes {
		if i > 0 && s == stripes[i-1] {
			continue
		}
		l.locks[s].Lock()
		held = append(held, s)
	}
	return func() {
		for _, s := range held {
			l.locks[s].Unlock()
		}
	}
}
