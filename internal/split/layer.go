package split

import (
	"context"
	"hash/maphash"
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

// LockPartition takes the read-modify-write lock of a logical partition
// (invariant 2) and returns its release.
func (l *Layer) LockPartition(p backend.LogicalPartition) func() {
	var h maphash.Hash
	h.SetSeed(l.seed)
	h.Write(p.Key)
	m := &l.locks[(h.Sum64()^uint64(p.Table))%uint64(len(l.locks))]
	m.Lock()
	return m.Unlock
}
