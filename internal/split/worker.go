package split

import (
	"context"
	"errors"
	"time"
)

// Run drives splitting until ctx ends: every tick it runs the detector,
// then moves every migration under way by one step, sleeping between steps
// to keep data movement under the policy's rate. A migration whose step
// fails (a full disk, say) pauses and is retried later; reads and writes of
// the partition go on meanwhile.
func (l *Layer) Run(ctx context.Context, tick time.Duration) {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, err := l.Evaluate(ctx, time.Now()); err != nil {
			l.logf("split: detector: %v", err)
		}
		l.stepAll(ctx, tick)
	}
}

// stepAll advances each migration under way for about one tick.
func (l *Layer) stepAll(ctx context.Context, budget time.Duration) {
	defer l.countPaused()
	deadline := time.Now().Add(budget)
	for _, s := range l.reg.all() {
		if s.Migration == nil || ctx.Err() != nil {
			continue
		}
		key := logicalKey(s.Partition)
		l.mu.Lock()
		until := l.paused[key]
		l.mu.Unlock()
		if time.Now().Before(until) {
			continue
		}
		pol := l.policy(s.Partition.Table)
		chunk := pol.ChunkRows
		if chunk <= 0 {
			chunk = 1000
		}
		for time.Now().Before(deadline) && ctx.Err() == nil {
			res, err := l.Step(ctx, s.Partition, chunk)
			if err != nil && ctx.Err() != nil {
				return // shutting down
			}
			if errors.Is(err, errStateChanged) || err == nil && res.Busy {
				break // another gateway changed or drives it: look again next tick
			}
			if err != nil {
				l.logf("split: %s of partition %x paused for %v after a failed step (reads and writes go on): %v",
					s.Migration.Purpose, s.Partition.Key, l.pauseAfterError, err)
				metrics.stepErrors.Inc()
				l.mu.Lock()
				l.paused[key] = time.Now().Add(l.pauseAfterError)
				l.mu.Unlock()
				break
			}
			metrics.rowsMoved.Add(float64(res.Rows))
			metrics.bytesMoved.Add(float64(res.Bytes))
			if res.Done {
				break
			}
			if pol.BytesPerSecond > 0 && res.Bytes > 0 {
				sleep := time.Duration(float64(res.Bytes) / float64(pol.BytesPerSecond) * float64(time.Second))
				select {
				case <-ctx.Done():
					return
				case <-time.After(sleep):
				}
			}
		}
	}
}

// countPaused publishes the number of migrations waiting after an error.
func (l *Layer) countPaused() {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, now := 0, time.Now()
	for key, until := range l.paused {
		if now.Before(until) {
			n++
		} else {
			delete(l.paused, key)
		}
	}
	metrics.paused.Set(float64(n))
}

// Finish runs a partition's migration to its end (used by operators and
// tests that do not wait for the background loop).
func (l *Layer) Finish(ctx context.Context, s *State, chunkRows int) error {
	for {
		res, err := l.Step(ctx, s.Partition, chunkRows)
		if errors.Is(err, errStateChanged) || err == nil && res.Busy {
			// Another gateway changed or drives the migration: follow it.
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
			continue
		}
		if err != nil {
			return err
		}
		if res.Done {
			return nil
		}
	}
}
