package split

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/cqlerr"
)

// Shared split states: several gateways over one store (a backend with
// backend.SharedStates). docs/design/splitting.md, "Several gateways", is
// the stage table and why each invariant holds; in short:
//
//   - S1 a state row changes only by a compare-and-set on its epoch, from
//     the state the change was decided on;
//   - S2 a gateway routes by the states it read only until its lease (read
//     time + Lease) ends, and a read or write routed under a lease must
//     end by the lease's end + Drain, or fail;
//   - S3 the only state changes that move where a key lives are the moves
//     of a step's pending range, and those are announced first (the pending
//     state, under which reads and writes of the range wait), and made only
//     Lease + Drain after this gateway saw the announcement: by then no
//     gateway routes the range by an older state, and no read or write
//     routed so is still running;
//   - S4 one gateway drives a migration (Migration.Owner); another takes it
//     over (by a compare-and-set) once the row has stayed unchanged for
//     OwnerLease, and continues from the persisted cursor and pending range.

// SharedOptions configure the leases of shared split states.
type SharedOptions struct {
	// Lease is how long a gateway routes by the states it read (default
	// 10 s).
	Lease time.Duration
	// Drain bounds a read or write routed under a lease past the lease's
	// end (default 10 s, the store's request timeout).
	Drain time.Duration
	// OwnerLease is how long a migration's row may stay unchanged before
	// another gateway takes the migration over (default 3 × (Lease +
	// Drain): a step writes the row at least every Lease + Drain + its move).
	OwnerLease time.Duration
	// Gateway names this gateway in the states it owns (default random).
	Gateway string
}

func (o SharedOptions) withDefaults() SharedOptions {
	if o.Lease <= 0 {
		o.Lease = 10 * time.Second
	}
	if o.Drain <= 0 {
		o.Drain = 10 * time.Second
	}
	if o.OwnerLease <= 0 {
		o.OwnerLease = 3 * (o.Lease + o.Drain)
	}
	if o.Gateway == "" {
		var b [6]byte
		_, _ = rand.Read(b[:])
		o.Gateway = "gw-" + hex.EncodeToString(b[:])
	}
	return o
}

// sharedMode is the layer's view of shared states.
type sharedMode struct {
	store backend.SharedStates
	opts  SharedOptions
	mu    struct {
		sync.Mutex
		// validUntil is the end of the lease of the states read last.
		validUntil time.Time
		// refreshing is closed when the refresh under way ends.
		refreshing chan struct{}
		// seen is when this gateway first saw each row's current epoch:
		// the start of a pending range's wait (S3) and of an owner's
		// silence (S4).
		seen map[string]seenEpoch
	}
}

type seenEpoch struct {
	epoch uint64
	at    time.Time
}

// errStateChanged: the state a change was decided on changed first (another
// gateway changed it, or an earlier change of this one that timed out
// applied); the registry now holds the newer state.
var errStateChanged = errors.New("split: the split state changed under this gateway (another gateway changed it); try again")

// errOwnChangeApplied is errStateChanged when the newer state is a migration
// this gateway owns: most likely its own earlier change, which the cluster
// applied though the gateway saw it fail (a compare-and-set that timed out).
var errOwnChangeApplied = &ownChangeApplied{}

type ownChangeApplied struct{}

func (*ownChangeApplied) Error() string {
	return "split: the split state changed under this gateway to a migration this gateway owns: an earlier change of " +
		"this gateway that failed (a timeout) was applied by the cluster; look at the split's status before trying again"
}

func (*ownChangeApplied) Is(target error) bool { return target == errStateChanged }

// SetShared sets the lease options of a layer over shared states (tests
// shorten the leases), before the layer serves traffic; it has no effect
// over other backends. The states are read again before the next request.
func (l *Layer) SetShared(opts SharedOptions) {
	if l.shared != nil {
		l.shared.opts = opts.withDefaults()
		// A lease taken under the old options may be longer than the
		// new Lease allows (every other gateway waits only that long).
		l.shared.mu.Lock()
		l.shared.mu.validUntil = time.Time{}
		l.shared.mu.Unlock()
	}
}

// Gateway names this layer in the migrations it owns ("" without shared
// states).
func (l *Layer) Gateway() string {
	if l.shared == nil {
		return ""
	}
	return l.shared.opts.Gateway
}

func newSharedMode(store backend.SharedStates) *sharedMode {
	lease, drain, _ := store.StateLeases()
	m := &sharedMode{store: store, opts: SharedOptions{Lease: lease, Drain: drain}.withDefaults()}
	m.mu.seen = map[string]seenEpoch{}
	return m
}

// loadStates fills the registry: from the shared rows, or from metadata.
func (l *Layer) loadStates(ctx context.Context) error {
	if l.shared == nil {
		return l.reg.load(ctx, l.backend)
	}
	l.reg.states = map[string]*State{}
	if err := l.refresh(ctx); err != nil {
		return err
	}
	return l.importMetaStates(ctx)
}

// importMetaStates copies into the shared rows the states a one-gateway
// store kept as metadata, for partitions that have no shared row yet.
func (l *Layer) importMetaStates(ctx context.Context) error {
	kvs, err := l.backend.ScanMeta(ctx, []byte(metaPrefix))
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		p, ok := partitionOfStateKey(kv.Key)
		if !ok {
			continue
		}
		if _, epoch := l.reg.getWithEpoch(p); epoch != 0 {
			continue
		}
		ok, row, err := l.shared.store.CompareAndSetState(ctx, kv.Key, 0, kv.Value)
		if err != nil {
			return err
		}
		if !ok {
			if err := l.adopt(row); err != nil {
				return err
			}
			continue
		}
		if err := l.adopt(backend.StateRow{Key: kv.Key, Epoch: 1, Value: kv.Value}); err != nil {
			return err
		}
	}
	return nil
}

// refresh reads every shared state row and renews the lease from the
// moment the read was sent.
func (l *Layer) refresh(ctx context.Context) error {
	sent := time.Now()
	rows, err := l.shared.store.LoadStates(ctx, []byte(metaPrefix))
	if err != nil {
		return err
	}
	for _, row := range rows {
		if err := l.adopt(row); err != nil {
			return err
		}
	}
	sh := l.shared
	sh.mu.Lock()
	if until := sent.Add(sh.opts.Lease); until.After(sh.mu.validUntil) {
		sh.mu.validUntil = until
	}
	sh.mu.Unlock()
	return nil
}

// adopt installs a state row read from the store unless a newer one is
// held, and notes when its epoch was first seen.
func (l *Layer) adopt(row backend.StateRow) error {
	p, ok := partitionOfStateKey(row.Key)
	if !ok {
		return fmt.Errorf("split: malformed state key %x", row.Key)
	}
	var s *State
	if len(row.Value) > 0 {
		s = &State{}
		if err := json.Unmarshal(row.Value, s); err != nil {
			return fmt.Errorf("split: state of %x: %w", row.Key, err)
		}
	}
	if l.reg.putShared(p, s, row.Epoch) {
		l.shared.noteSeen(logicalKey(p), row.Epoch)
	}
	return nil
}

func (sh *sharedMode) noteSeen(key string, epoch uint64) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.mu.seen[key].epoch != epoch {
		sh.mu.seen[key] = seenEpoch{epoch: epoch, at: time.Now()}
	}
}

func (sh *sharedMode) seenAt(key string, epoch uint64) (time.Time, bool) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	s, ok := sh.mu.seen[key]
	return s.at, ok && s.epoch == epoch
}

// leased returns the end of a valid lease on the states, reading them
// again first when the lease has ended (S2), and in the background when
// half of it is gone, so that traffic seldom waits for a read. It fails
// with Unavailable when the states cannot be read.
func (l *Layer) leased(ctx context.Context) (time.Time, error) {
	sh := l.shared
	for {
		sh.mu.Lock()
		until, now := sh.mu.validUntil, time.Now()
		if now.Before(until) {
			if until.Sub(now) < sh.opts.Lease/2 && sh.mu.refreshing == nil {
				done := make(chan struct{})
				sh.mu.refreshing = done
				go l.refreshOnce(context.Background(), done)
			}
			sh.mu.Unlock()
			return until, nil
		}
		done := sh.mu.refreshing
		if done == nil {
			done = make(chan struct{})
			sh.mu.refreshing = done
			sh.mu.Unlock()
			if err := l.refreshOnce(ctx, done); err != nil {
				return time.Time{}, cqlerr.New(cqlerr.Unavailable,
					"the gateway cannot read the split states of the cluster, so it cannot route the request: %v", err)
			}
			continue
		}
		sh.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		}
		sh.mu.Lock()
		ok := time.Now().Before(sh.mu.validUntil)
		sh.mu.Unlock()
		if !ok {
			// The refresh we waited for failed: try ourselves.
			continue
		}
	}
}

// refreshOnce runs one refresh and closes done.
func (l *Layer) refreshOnce(ctx context.Context, done chan struct{}) error {
	// A refresh that ends after its lease gives none, but still brings
	// newer states to the requests waiting for a pending range.
	ctx, cancel := context.WithTimeout(ctx, max(l.shared.opts.Lease, 2*time.Second))
	defer cancel()
	err := l.refresh(ctx)
	if err != nil {
		l.logf("split: reading the shared split states: %v", err)
	}
	l.shared.mu.Lock()
	l.shared.mu.refreshing = nil
	l.shared.mu.Unlock()
	close(done)
	return err
}

// pendingFence is the fence a shared state's pending range puts on reads
// and writes (nil: none).
func pendingFence(s *State) *fence {
	if s == nil || s.Migration == nil || s.Migration.Pending == nil {
		return nil
	}
	return &fence{p: s.Partition, slice: *s.Migration.Pending}
}

// applyShared is Apply over shared states: under a valid lease, after the
// pending ranges the batch writes into have moved, and bounded by the
// lease's end + Drain (S2).
func (l *Layer) applyShared(ctx context.Context, b *backend.WriteBatch, logical []backend.LogicalPartition) error {
	attempts := 0
	for {
		until, err := l.leased(ctx)
		if err != nil {
			return err
		}
		unlock := l.rlock(logical)
		var blocked *State
		for i := range b.Mutations {
			m := &b.Mutations[i]
			if f := pendingFence(l.reg.get(m.Partition.LogicalPartition)); f != nil && f.blocks(m) {
				blocked = l.reg.get(m.Partition.LogicalPartition)
				break
			}
		}
		if blocked != nil {
			unlock()
			if err := l.waitPending(ctx, blocked); err != nil {
				return err
			}
			continue
		}
		bounded, cancel := context.WithDeadline(ctx, until.Add(l.shared.opts.Drain))
		err = l.applyRouted(bounded, b)
		// Read before cancel, after which Err is never nil: only a write
		// stopped by the lease's deadline is retried or reported as such.
		outlived := bounded.Err() != nil
		cancel()
		unlock()
		if err != nil && outlived && ctx.Err() == nil {
			if attempts++; attempts < 3 {
				continue // again, routed under a fresh lease (writes are idempotent)
			}
			return cqlerr.New(cqlerr.ServerError, "the write outlived the gateway's lease on the split states: %v", err)
		}
		return err
	}
}

// readShared is read over shared states: under a valid lease, after a
// pending range the read overlaps has moved; the rows must all be read
// by the lease's end + Drain (S2).
func (l *Layer) readShared(ctx context.Context, cmd backend.ReadCommand) (backend.RowIterator, error) {
	p := cmd.Partition.LogicalPartition
	stripe := l.stripe(p)
	for {
		until, err := l.leased(ctx)
		if err != nil {
			return nil, err
		}
		l.routing[stripe].RLock()
		s, epoch := l.reg.getWithEpoch(p)
		if f := pendingFence(s); f != nil && f.overlapsAny(cmd.Slices) {
			l.routing[stripe].RUnlock()
			if err := l.waitPending(ctx, s); err != nil {
				return nil, err
			}
			continue
		}
		var it backend.RowIterator
		if s != nil {
			it, err = l.readSplit(ctx, l.backend, s, cmd)
		} else {
			cmd.Partition.Shard = backend.HomeShard
			it, err = l.backend.Read(ctx, cmd)
		}
		l.routing[stripe].RUnlock()
		if err != nil {
			return nil, err
		}
		return &leaseIter{RowIterator: it, l: l, ctx: ctx, p: p, stripe: stripe, epoch: epoch,
			deadline: until.Add(l.shared.opts.Drain)}, nil
	}
}

// leaseIter fails a read that outlives the lease it was routed under (S2):
// past it, a step may have moved rows away from the shards it reads. It
// goes on instead when a fresh lease shows the partition's state row at
// the epoch the read was routed by: every change of the row (a pending
// range first of all) takes a new epoch, so no step has begun to move the
// partition's rows since.
type leaseIter struct {
	backend.RowIterator
	l        *Layer
	ctx      context.Context
	p        backend.LogicalPartition
	stripe   int
	epoch    uint64
	deadline time.Time
	err      error
}

func (it *leaseIter) Next() bool {
	if it.err != nil {
		return false
	}
	// The deadline is checked once the backend has answered, not before
	// asking it: a request held up in the network reaches the cluster late,
	// and a row, or the end of the rows, that arrives past the deadline may
	// have been read after a step moved rows away from the shards the read
	// was routed to (the end then hides them). What arrived by the deadline
	// was read before any such move (S3).
	more := it.RowIterator.Next()
	if time.Now().After(it.deadline) && !it.renew() {
		it.err = cqlerr.New(cqlerr.ServerError, "the read outlived the gateway's lease on the split states; retry it")
		return false
	}
	return more
}

// renew extends the read's deadline under a fresh lease when the
// partition's state row is unchanged.
func (it *leaseIter) renew() bool {
	until, err := it.l.leased(it.ctx)
	if err != nil {
		return false
	}
	it.l.routing[it.stripe].RLock()
	_, epoch := it.l.reg.getWithEpoch(it.p)
	it.l.routing[it.stripe].RUnlock()
	if epoch != it.epoch {
		return false
	}
	it.deadline = until.Add(it.l.shared.opts.Drain)
	return true
}

func (it *leaseIter) Err() error {
	if it.err != nil {
		return it.err
	}
	return it.RowIterator.Err()
}

// waitPending waits until the state s (with a pending range) has been
// replaced, reading the states again every 100 ms: one read per gateway
// however many requests wait.
func (l *Layer) waitPending(ctx context.Context, s *State) error {
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
		if _, epoch := l.reg.getWithEpoch(s.Partition); epoch != s.rowEpoch {
			return nil
		}
		if i%4 == 3 {
			l.refreshSoon()
		}
	}
}

// refreshSoon starts a refresh in the background unless one is under way.
func (l *Layer) refreshSoon() {
	sh := l.shared
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.mu.refreshing == nil {
		done := make(chan struct{})
		sh.mu.refreshing = done
		go l.refreshOnce(context.Background(), done)
	}
}

// commitShared writes s by a compare-and-set from the epoch it was read
// at (S1) and installs it; errStateChanged when another gateway changed the
// row first (the registry then holds that change).
func (l *Layer) commitShared(ctx context.Context, s *State) error {
	var v []byte
	if s.Migration != nil || !s.Current.IsUnsplit() {
		var err error
		if v, err = json.Marshal(s); err != nil {
			return err
		}
	}
	ok, row, err := l.shared.store.CompareAndSetState(ctx, stateKey(s.Partition), s.rowEpoch, v)
	if err != nil {
		return err
	}
	if !ok {
		if err := l.adopt(row); err != nil {
			return err
		}
		if now := l.reg.get(s.Partition); now != nil && now.Migration != nil && now.Migration.Owner == l.shared.opts.Gateway {
			return errOwnChangeApplied
		}
		return errStateChanged
	}
	s.rowEpoch++
	l.reg.putShared(s.Partition, s.clone(), s.rowEpoch)
	l.shared.noteSeen(logicalKey(s.Partition), s.rowEpoch)
	return nil
}
