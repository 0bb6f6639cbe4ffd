package split

import (
	"bytes"
	"context"
	"hash/maphash"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/partita-db/partita/internal/backend"
)

// Layer is the logical-partition view of a backend.
type Layer struct {
	backend backend.Backend
	reg     registry
	seed    maphash.Seed
	// routing stripes: every read and write of a logical partition holds
	// its stripe shared while it routes and reaches storage; a migration
	// step holds it exclusively (invariant 2).
	routing [4096]sync.RWMutex
	// rmw stripes serialise read-modify-write statements (LWT, counters).
	rmw [4096]sync.Mutex
	// steps stripes serialise the changes of a partition's split state
	// (start, step, revert, finish); fences hold the clustering range a step
	// is moving, which reads and writes wait for (invariant 2).
	steps  [4096]sync.Mutex
	fences [4096]atomic.Pointer[fence]

	stats  *statsTable
	policy PolicyFunc
	// active counts migrations under way (for Policy.MaxConcurrent).
	mu     sync.Mutex
	paused map[string]time.Time
	// pauseAfterError is how long a migration whose step failed waits
	// before it is tried again.
	pauseAfterError time.Duration
	log             Logger
	// shared is set over a backend whose split states several gateways
	// share (shared.go).
	shared *sharedMode
}

// Logger receives the layer's operational messages.
type Logger interface {
	Printf(format string, args ...any)
}

// New returns the layer over b, loading the split states b holds.
func New(ctx context.Context, b backend.Backend) (*Layer, error) {
	l := &Layer{backend: b, seed: maphash.MakeSeed(), stats: newStatsTable(100_000), paused: map[string]time.Time{},
		pauseAfterError: 10 * time.Second,
		policy:          func(backend.TableID) Policy { return Policy{} }}
	if ss, ok := b.(backend.SharedStates); ok {
		if _, _, shared := ss.StateLeases(); shared {
			l.shared = newSharedMode(ss)
		}
	}
	if err := l.loadStates(ctx); err != nil {
		return nil, err
	}
	if err := l.stats.loadMeasures(ctx, b); err != nil {
		return nil, err
	}
	return l, nil
}

// Backend returns the backend below the layer.
func (l *Layer) Backend() backend.Backend { return l.backend }

func (l *Layer) stripe(p backend.LogicalPartition) int {
	var h maphash.Hash
	h.SetSeed(l.seed)
	h.Write(p.Key)
	return int((h.Sum64() ^ uint64(p.Table) ^ uint64(p.Token)) % uint64(len(l.routing)))
}

// stripes returns the sorted distinct stripes of ps.
func (l *Layer) stripes(ps []backend.LogicalPartition) []int {
	out := make([]int, 0, len(ps))
	for _, p := range ps {
		out = append(out, l.stripe(p))
	}
	sort.Ints(out)
	uniq := out[:0]
	for i, s := range out {
		if i == 0 || s != out[i-1] {
			uniq = append(uniq, s)
		}
	}
	return uniq
}

func (l *Layer) rlock(ps []backend.LogicalPartition) func() {
	held := l.stripes(ps)
	for _, s := range held {
		l.routing[s].RLock()
	}
	return func() {
		for _, s := range held {
			l.routing[s].RUnlock()
		}
	}
}

// LockPartitions takes the read-modify-write locks of logical partitions
// (invariant 2): the in-process stripes, in a fixed order so that
// concurrent callers cannot deadlock, then, when the backend is shared by
// several processes (backend.PartitionLocker), the partitions' cluster-wide
// leases, sorted by (table, token, key) so that processes cannot deadlock
// either. The caller stamps its write through the lock's Timestamp and ends
// with Release (reporting whether it wrote), or Unlock on error paths.
func (l *Layer) LockPartitions(ctx context.Context, ps []backend.LogicalPartition, levels backend.RequestLevels) (*PartitionLock, error) {
	held := l.stripes(ps)
	for _, s := range held {
		l.rmw[s].Lock()
	}
	lock := &PartitionLock{layer: l, stripes: held}
	if locker, ok := l.backend.(backend.PartitionLocker); ok && len(ps) > 0 {
		lease, err := locker.LeasePartitions(ctx, sortedDistinct(ps), levels)
		if err != nil {
			lock.Unlock()
			return nil, err
		}
		lock.lease = lease
	}
	return lock, nil
}

// Apply routes each mutation to the physical partitions that own its
// rows and applies the batch atomically. A write into the range a
// migration step is moving waits until the step has committed and then
// routes by the new state.
func (l *Layer) Apply(ctx context.Context, b *backend.WriteBatch) error {
	logical := make([]backend.LogicalPartition, len(b.Mutations))
	for i := range b.Mutations {
		logical[i] = b.Mutations[i].Partition.LogicalPartition
	}
	if l.shared != nil {
		return l.applyShared(ctx, b, logical)
	}
	for {
		unlock := l.rlock(logical)
		if f := l.blockingFence(b); f != nil {
			unlock()
			if err := f.wait(ctx); err != nil {
				return err
			}
			continue
		}
		err := l.applyRouted(ctx, b)
		unlock()
		return err
	}
}

// applyRouted applies b by the current split states; the caller holds the
// routing stripes of b's partitions shared and has checked the fences.
func (l *Layer) applyRouted(ctx context.Context, b *backend.WriteBatch) error {
	now := time.Now()
	for i := range b.Mutations {
		l.stats.recordWrite(&b.Mutations[i], now)
	}
	if l.reg.empty() {
		for i := range b.Mutations {
			b.Mutations[i].Partition.Shard = backend.HomeShard
		}
		return l.backend.Apply(ctx, b)
	}
	routed := *b
	routed.Mutations = nil
	for i := range b.Mutations {
		m := &b.Mutations[i]
		s := l.reg.get(m.Partition.LogicalPartition)
		if s == nil {
			m.Partition.Shard = backend.HomeShard
			routed.Mutations = append(routed.Mutations, *m)
			continue
		}
		routed.Mutations = append(routed.Mutations, routeMutation(s, m)...)
	}
	l.stats.recordChildWrites(routed.Mutations)
	return l.backend.Apply(ctx, &routed)
}

// fence marks the clustering range of a partition that a migration step is
// moving. It is installed while the partition's routing stripe is held
// exclusively (so no read or write is in flight) and removed after the
// step's new state is published.
type fence struct {
	p     backend.LogicalPartition
	slice backend.Slice
	done  chan struct{}
}

func (f *fence) wait(ctx context.Context) error {
	select {
	case <-f.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (f *fence) covers(p backend.LogicalPartition) bool {
	return p.Table == f.p.Table && p.Token == f.p.Token && bytes.Equal(p.Key, f.p.Key)
}

func (f *fence) overlaps(sl backend.Slice) bool { return !f.slice.Intersect(sl).IsEmpty() }

// blocks says whether a mutation must wait for the step: it writes a row
// or a range deletion inside the moving range, or deletes the partition.
func (f *fence) blocks(m *backend.Mutation) bool {
	if !f.covers(m.Partition.LogicalPartition) {
		return false
	}
	if !m.PartitionDeletion.IsLive() {
		return true
	}
	for _, rt := range m.RangeTombstones {
		if f.overlaps(rt.Slice) {
			return true
		}
	}
	for _, r := range m.Rows {
		if f.slice.Contains(r.Clustering) {
			return true
		}
	}
	return false
}

// blockingFence returns a fence one of b's mutations must wait for. The
// fences are read before the split states, so a write that finds no fence
// sees the state the last step published.
func (l *Layer) blockingFence(b *backend.WriteBatch) *fence {
	for i := range b.Mutations {
		m := &b.Mutations[i]
		if f := l.fences[l.stripe(m.Partition.LogicalPartition)].Load(); f != nil && f.blocks(m) {
			return f
		}
	}
	return nil
}

// routeMutation splits a logical mutation into physical ones (invariant
// 5): rows go to the shard that owns them, the static row to the home
// shard, partition deletions to every shard, range deletions to every
// shard whose range they overlap.
func routeMutation(s *State, m *backend.Mutation) []backend.Mutation {
	byShard := map[backend.Shard]*backend.Mutation{}
	var order []backend.Shard
	get := func(sh backend.Shard) *backend.Mutation {
		if out, ok := byShard[sh]; ok {
			return out
		}
		out := backend.NewMutation(m.Partition.LogicalPartition.Physical(sh))
		byShard[sh] = &out
		order = append(order, sh)
		return &out
	}
	if !m.PartitionDeletion.IsLive() {
		for _, sh := range s.shards() {
			get(sh).PartitionDeletion = m.PartitionDeletion
		}
	}
	for _, rt := range m.RangeTombstones {
		for _, p := range s.readPieces(rt.Slice) {
			for _, sh := range p.Shards {
				mut := get(sh)
				mut.RangeTombstones = append(mut.RangeTombstones, backend.RangeTombstone{Slice: p.Range, Deletion: rt.Deletion})
			}
		}
	}
	if m.Static != nil {
		get(backend.HomeShard).Static = m.Static
	}
	for _, r := range m.Rows {
		mut := get(s.route(r.Clustering))
		mut.Rows = append(mut.Rows, r)
	}
	out := make([]backend.Mutation, 0, len(order))
	for _, sh := range order {
		out = append(out, *byShard[sh])
	}
	return out
}

// State returns a copy of a logical partition's split state, or nil when
// it is not split.
func (l *Layer) State(p backend.LogicalPartition) *State {
	if s := l.reg.get(p); s != nil {
		return s.clone()
	}
	return nil
}

// States returns copies of every split state.
func (l *Layer) States() []*State {
	var out []*State
	for _, s := range l.reg.all() {
		out = append(out, s.clone())
	}
	return out
}

func (f *fence) overlapsAny(sls []backend.Slice) bool {
	for _, sl := range sls {
		if f.overlaps(sl) {
			return true
		}
	}
	return false
}
