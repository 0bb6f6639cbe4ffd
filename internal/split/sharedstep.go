package split

import (
	"context"
	"fmt"
	"time"

	"github.com/partita-db/partita/internal/backend"
)

// stepShared is Step over shared states (shared.go S1–S4): one stage of
// the migration, from the state the store holds.
//
//	MOVING(cursor c)      ──announce──▶ PENDING(c, [c, n))   (no key changes place)
//	PENDING(c, [c, n))    ──wait Lease + Drain, move [c, n)──▶ MOVING(n), or COMPLETE when n is the end
//	COMPLETE              ──verify placement──▶ ACTIVE on the target map (no key changes place)
//
// and the same downwards for a revert. The caller holds the step stripe.
func (l *Layer) stepShared(ctx context.Context, p backend.LogicalPartition, maxRows int) (StepResult, error) {
	if _, err := l.leased(ctx); err != nil {
		return StepResult{}, err
	}
	cur := l.reg.get(p)
	if cur == nil || cur.Migration == nil {
		return StepResult{Done: true}, nil
	}
	s := cur.clone()
	m := s.Migration
	key := logicalKey(p)
	if m.Owner != l.shared.opts.Gateway {
		seen, ok := l.shared.seenAt(key, s.rowEpoch)
		if !ok || time.Since(seen) < l.shared.opts.OwnerLease {
			return StepResult{Busy: true}, nil
		}
		// The owner has not changed the row for a whole owner lease: take
		// the migration over (S4), from its persisted cursor.
		previous := m.Owner
		m.Owner = l.shared.opts.Gateway
		if err := l.commitShared(ctx, s); err != nil {
			return StepResult{}, err
		}
		l.logf("split: gateway %s took over the %s of partition %x from %s", m.Owner, m.Purpose, p.Key, previous)
	}
	if m.Pending == nil {
		if m.Complete && !m.Reverting {
			if err := l.finishShared(ctx, s); err != nil {
				return StepResult{}, err
			}
			l.historyOf(ctx, s, m, "finish", "auto")
			metrics.finished.Inc()
			return StepResult{Done: true}, nil
		}
		if err := l.announce(ctx, s, maxRows); err != nil {
			return StepResult{}, err
		}
	}
	return l.movePending(ctx, s)
}

// announce records the range the next step moves (the PENDING stage).
func (l *Layer) announce(ctx context.Context, s *State, maxRows int) error {
	m := s.Migration
	var pending backend.Slice
	if m.Reverting {
		upper := m.Cursor
		if m.Complete {
			upper = nil // everything had moved: start from the end
		}
		start, _, err := l.chunkStartBelow(ctx, s, upper, maxRows)
		if err != nil {
			return err
		}
		pending = backend.Slice{Start: start, End: upper}
	} else {
		next, _, err := l.chunkEnd(ctx, s, m.Cursor, maxRows)
		if err != nil {
			return err
		}
		pending = backend.Slice{Start: m.Cursor, End: next}
	}
	m.Pending, m.PendingBack = &pending, m.Reverting
	return l.commitShared(ctx, s)
}

// movePending waits until no gateway can route the pending range by a
// state older than the announcement, and no read or write routed so is
// still running (Lease + Drain since this gateway first saw it, S3), then
// moves the range and commits the state that follows.
func (l *Layer) movePending(ctx context.Context, s *State) (StepResult, error) {
	m := s.Migration
	key := logicalKey(s.Partition)
	seen, ok := l.shared.seenAt(key, s.rowEpoch)
	if !ok {
		seen = time.Now()
		l.shared.noteSeen(key, s.rowEpoch)
	}
	wait := time.Until(seen.Add(l.shared.opts.Lease + l.shared.opts.Drain))
	if wait > 0 {
		select {
		case <-ctx.Done():
			return StepResult{}, ctx.Err()
		case <-time.After(wait):
		}
	}
	// Still ours? A gateway that took over meanwhile moves the range
	// itself; moving it twice is harmless (the second move finds the
	// sources empty) but the commit must be one.
	row, err := l.shared.store.GetState(ctx, stateKey(s.Partition))
	if err != nil {
		return StepResult{}, err
	}
	if row.Epoch != s.rowEpoch {
		if err := l.adopt(row); err != nil {
			return StepResult{}, err
		}
		return StepResult{}, errStateChanged
	}
	mv, err := l.mover()
	if err != nil {
		return StepResult{}, err
	}
	pending := *m.Pending
	cmd := backend.MoveCommand{Partition: s.Partition, Slice: pending}
	if m.PendingBack {
		cmd.From, cmd.Route, cmd.Targets = m.Target.AllShards(), s.Current.ShardOf, s.Current.AllShards()
	} else {
		cmd.From, cmd.Route, cmd.Targets = s.Current.AllShards(), m.Target.ShardOf, m.Target.AllShards()
	}
	// The state is not in the move's batch: it is committed by a
	// compare-and-set once the move is acknowledged, so no gateway reads
	// the rows' new places before they are there.
	st, err := mv.Move(ctx, cmd)
	if err != nil {
		return StepResult{}, err
	}
	m.RowsMoved += st.Rows
	m.BytesMoved += st.Bytes
	back := m.PendingBack
	m.Pending, m.PendingBack = nil, false
	done := false
	switch {
	case !back && pending.End == nil:
		m.Complete = true
	case !back:
		m.Cursor = pending.End
	default:
		m.Complete, m.Cursor = false, pending.Start
		if len(pending.Start) == 0 {
			s.Migration, done = nil, true
			s.Epoch++
		}
	}
	if err := l.commitShared(ctx, s); err != nil {
		return StepResult{}, err
	}
	if done {
		l.historyOf(ctx, s, m, "reverted", "auto")
		metrics.reverted.Inc()
	}
	return StepResult{Rows: st.Rows, Bytes: st.Bytes, Done: done}, nil
}

// finishShared switches a complete migration to its target map after
// checking that no row was left where the target map does not route it.
// Writes of other gateways go on meanwhile and follow the target map
// already, so the check cannot be upset by them (where comparing two
// checksums would be).
func (l *Layer) finishShared(ctx context.Context, s *State) error {
	m := s.Migration
	for _, sh := range s.shards() {
		it, err := l.openShards(ctx, l.backend, []backend.Shard{sh}, s.Partition, backend.FullSlice, false)
		if err != nil {
			return err
		}
		for it.Next() {
			if ck := it.Row().Clustering; ck != nil && m.Target.ShardOf(ck) != sh {
				it.Close()
				return fmt.Errorf("split: verification failed for %x: shard %d holds a row of shard %d (key %x)", s.Partition.Key, sh, m.Target.ShardOf(ck), ck)
			}
		}
		err = it.Err()
		it.Close()
		if err != nil {
			return err
		}
	}
	s.Current, s.Migration, s.Epoch = m.Target, nil, s.Epoch+1
	return l.commitShared(ctx, s)
}
