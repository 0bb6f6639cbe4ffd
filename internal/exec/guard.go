package exec

import (
	"context"
	"errors"
	"time"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/plan"
	"github.com/partita-db/partita/internal/split"
	"github.com/partita-db/partita/internal/types"
)

// WriteCheck inspects the mutations a statement (or batch) is about to
// apply, built from the statements ms, and may refuse them: guardrails on
// the values written and the per-partition write rate. It runs before
// anything is applied, so a refused write writes nothing.
type WriteCheck func(ms []*plan.Modify, muts []backend.Mutation) error

type writeCheckKey struct{}

// WithWriteCheck returns a context whose writes are checked by f.
func WithWriteCheck(ctx context.Context, f WriteCheck) context.Context {
	return context.WithValue(ctx, writeCheckKey{}, f)
}

// checkWrite runs the context's WriteCheck, if any.
func checkWrite(ctx context.Context, ms []*plan.Modify, muts []backend.Mutation) error {
	if f, _ := ctx.Value(writeCheckKey{}).(WriteCheck); f != nil {
		return f(ms, muts)
	}
	return nil
}

// ErrLockTimeout is returned, wrapping context.DeadlineExceeded, by a
// read-modify-write that waited for its partitions' locks longer than the
// context's lock timeout (cas_contention_timeout for a conditional write).
var ErrLockTimeout = errors.New("timed out waiting for the partition lock")

type lockTimeoutKey struct{}

// WithLockTimeout bounds how long a read-modify-write of this context
// waits for its partitions' locks.
func WithLockTimeout(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, lockTimeoutKey{}, d)
}

// lockPartitions takes the read-modify-write locks of ps (with, over a
// shared backend, their cluster-wide leases: split.Layer.LockPartitions),
// waiting no longer than the context's lock timeout or deadline. A waiter
// that gives up leaves a goroutine behind that releases the locks as soon
// as it gets them, so the locks stay consistent and nothing is written
// under them.
func (x *Executor) lockPartitions(ctx context.Context, ps []backend.LogicalPartition) (*split.PartitionLock, error) {
	levels := backend.LevelsFrom(ctx)
	d, bounded := ctx.Value(lockTimeoutKey{}).(time.Duration)
	if !bounded && ctx.Done() == nil {
		return x.store.LockPartitions(ctx, ps, levels)
	}
	type taken struct {
		lock *split.PartitionLock
		err  error
	}
	wait, stop := context.WithCancel(ctx)
	defer stop()
	got := make(chan taken, 1)
	go func() {
		lock, err := x.store.LockPartitions(wait, ps, levels)
		got <- taken{lock, err}
	}()
	giveUp := func() {
		stop()
		go func() {
			if t := <-got; t.lock != nil {
				t.lock.Unlock()
			}
		}()
	}
	var expired <-chan time.Time
	if bounded {
		t := time.NewTimer(d)
		defer t.Stop()
		expired = t.C
	}
	select {
	case t := <-got:
		return t.lock, t.err
	case <-expired:
		giveUp()
		return nil, errors.Join(ErrLockTimeout, context.DeadlineExceeded)
	case <-ctx.Done():
		giveUp()
		return nil, ctx.Err()
	}
}

// deadlineCheckRows is how many rows a read visits between two looks at
// its context, so that a read past its timeout stops soon after it.
const deadlineCheckRows = 128

// CellPathSize is a cell path's size as Cassandra counts it (pathSize).
func CellPathSize(t *types.Type, path []byte) int { return pathSize(t, path) }
