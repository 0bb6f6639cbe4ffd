package split

import (
	"context"
	"fmt"
	"time"

	"github.com/partita-db/partita/internal/backend"
)

// SetPolicy installs the policy function the detector uses.
func (l *Layer) SetPolicy(f PolicyFunc) { l.policy = f }

// SetLogger installs the logger for operational messages.
func (l *Layer) SetLogger(lg Logger) { l.log = lg }

func (l *Layer) logf(format string, args ...any) {
	if l.log != nil {
		l.log.Printf(format, args...)
	}
}

// Stats returns every tracked partition, the largest first (it copies the
// whole table: TopStats and StatsOf are cheaper).
func (l *Layer) Stats() []PartitionStats { return l.stats.snapshot() }

// TopStats returns the n largest tracked partitions, the largest first.
func (l *Layer) TopStats(n int) []PartitionStats { return l.stats.top(n) }

// StatsOf returns the statistics of one logical partition, if tracked.
func (l *Layer) StatsOf(p backend.LogicalPartition) (PartitionStats, bool) { return l.stats.get(p) }

// measurement is an exact measure of one physical partition.
type measurement struct {
	shard     backend.Shard
	rows      int64
	bytes     int64
	keys      keySample // clustering keys, in order, for split points
	largest   int64     // bytes of the largest row
	rowsBytes int64     // bytes of all rows as read
}

// measure counts a physical partition's live rows under one snapshot and
// estimates its bytes (SPLITTING.md invariant 7: the decision to split is
// confirmed by an exact measurement).
func (l *Layer) measure(ctx context.Context, p backend.LogicalPartition, sh backend.Shard, keepKeys bool) (measurement, error) {
	m := measurement{shard: sh}
	it, err := l.backend.Read(ctx, backend.ReadCommand{Partition: p.Physical(sh), Slices: []backend.Slice{backend.FullSlice}, Now: time.Now().Unix()})
	if err != nil {
		return m, err
	}
	defer it.Close()
	var prev int64
	for it.Next() {
		r := it.Row()
		m.rows++
		if keepKeys {
			m.keys.add(r.Clustering)
		}
		b := it.Stats().Bytes
		if size := b - prev; size > m.largest {
			m.largest = size
		}
		prev = b
	}
	m.rowsBytes = it.Stats().Bytes
	if mv, ok := l.backend.(backend.Mover); ok {
		if est, err := mv.EstimateSize(ctx, p.Physical(sh)); err == nil {
			m.bytes = est
		}
	}
	m.bytes = max(m.bytes, m.rowsBytes)
	return m, it.Err()
}

// Evaluate runs the detector once: it measures the partitions whose
// observed writes make them candidates, and starts splits (or merges back)
// whose condition has held for the policy's window. It returns the
// migrations it started.
func (l *Layer) Evaluate(ctx context.Context, now time.Time) ([]*State, error) {
	var started []*State
	for _, st := range l.candidates() {
		s, err := l.evaluateOne(ctx, st, l.policy(st.Partition.Table), now)
		if err != nil {
			l.logf("split: evaluating partition %x: %v", st.Partition.Key, err)
			continue
		}
		if s != nil {
			started = append(started, s)
		}
	}
	return started, nil
}

// candidates copies the tracked partitions evaluateOne may act on, the
// largest first (the first to start when MaxConcurrent bounds the
// migrations): under an enabled policy, every split partition (it may merge
// back) and the unsplit ones whose writes could have brought them to a
// limit (evaluateOne's first gate). The rest, nearly all of a large table,
// are neither copied nor looked up in the registry.
func (l *Layer) candidates() []PartitionStats {
	split := map[string]bool{}
	for _, s := range l.reg.all() {
		split[string(appendStatsKey(nil, s.Partition))] = true
	}
	policies := map[backend.TableID]Policy{}
	var table backend.TableID
	var pol Policy
	return l.stats.collect(func(key string, e *PartitionStats) bool {
		if e.Partition.Table != table || len(policies) == 0 {
			// Most entries are usually of one table: the map is looked up
			// only when an entry's table differs from the one before.
			var ok bool
			if pol, ok = policies[e.Partition.Table]; !ok {
				pol = l.policy(e.Partition.Table)
				policies[e.Partition.Table] = pol
			}
			table = e.Partition.Table
		}
		if !pol.Enabled || (pol.MaxRows <= 0 && pol.MaxBytes <= 0) {
			return false
		}
		return mayExceed(e, pol) || len(split) > 0 && split[key]
	})
}

func (l *Layer) activeMigrations() int {
	n := 0
	for _, s := range l.reg.all() {
		if s.Migration != nil {
			n++
		}
	}
	return n
}

func (l *Layer) evaluateOne(ctx context.Context, st PartitionStats, pol Policy, now time.Time) (*State, error) {
	cur := l.reg.get(st.Partition)
	if cur != nil && cur.Migration != nil {
		return nil, nil
	}
	// Cheap gates: only partitions that may be near a threshold are
	// measured, and again only when they changed enough or a decision waits
	// on them (measuring reads the whole partition).
	if cur == nil && !mayExceed(&st, pol) || !dueForMeasure(&st, pol, now) {
		return nil, nil
	}
	shards := []backend.Shard{backend.HomeShard}
	if cur != nil {
		shards = cur.Current.AllShards()
	}
	var worst measurement
	var totalRows, totalBytes int64
	for _, sh := range shards {
		var m measurement
		if cur == nil {
			var err error
			if m, err = l.measure(ctx, st.Partition, sh, false); err != nil {
				return nil, err
			}
		} else if rows, bytes, ok := l.stats.cachedChild(st.Partition, cur.Epoch, sh); ok {
			// Not written since its last measure: only the children that
			// take writes are read again.
			m = measurement{shard: sh, rows: rows, bytes: bytes}
		} else {
			var err error
			if m, err = l.measure(ctx, st.Partition, sh, false); err != nil {
				return nil, err
			}
			l.stats.recordChild(st.Partition, cur.Epoch, sh, m.rows, m.bytes)
		}
		totalRows += m.rows
		totalBytes += m.bytes
		if over(m, pol) > over(worst, pol) || worst.rows == 0 {
			worst = m
		}
	}
	e := l.updateMeasure(st.Partition, now, totalRows, totalBytes, worst)
	if err := l.backend.Apply(ctx, &backend.WriteBatch{Meta: []backend.MetaWrite{e.saved()}}); err != nil {
		l.logf("split: saving the measure of partition %x: %v", st.Partition.Key, err)
	}
	if over(worst, pol) >= 1 {
		if e.candidateSince.IsZero() || now.Sub(e.candidateSince) < pol.Window || l.activeMigrations() >= pol.MaxConcurrent {
			return nil, nil
		}
		return l.planSplit(ctx, st.Partition, cur, worst.shard, pol, "auto",
			fmt.Sprintf("physical partition %d holds %d rows, %d bytes (limits %d rows, %d bytes)", worst.shard, worst.rows, worst.bytes, pol.MaxRows, pol.MaxBytes))
	}
	if cur != nil && e.mergeSince.Before(now.Add(-pol.Window)) && !e.mergeSince.IsZero() && l.activeMigrations() < pol.MaxConcurrent {
		return l.Start(ctx, Plan{Partition: st.Partition, Target: Unsplit(), Purpose: "merge", Strategy: "merge",
			Reason: fmt.Sprintf("the partition shrank to %d rows, %d bytes", totalRows, totalBytes), Who: "auto"})
	}
	return nil, nil
}

// dueForMeasure: a partition measured before is measured again once 5% of
// a threshold has been written since, or, if it changed or a split or merge
// waits for its window, half a window after the last measure.
func dueForMeasure(st *PartitionStats, pol Policy, now time.Time) bool {
	if st.MeasuredAt.IsZero() {
		return true
	}
	if (pol.MaxRows > 0 && st.RowsWritten*20 >= pol.MaxRows) || (pol.MaxBytes > 0 && st.BytesWritten*20 >= pol.MaxBytes) {
		return true
	}
	changed := st.LastWrite.After(st.MeasuredAt)
	pending := !st.candidateSince.IsZero() || !st.mergeSince.IsZero()
	return (changed || pending) && now.Sub(st.MeasuredAt) >= pol.Window/2
}

// mayExceed: the writes seen could have made the partition reach a limit.
func mayExceed(st *PartitionStats, pol Policy) bool {
	return (pol.MaxRows > 0 && st.RowsWritten+st.Rows >= pol.MaxRows) ||
		(pol.MaxBytes > 0 && st.BytesWritten+st.Bytes >= pol.MaxBytes)
}

// over is how far past its limits a measurement is (>= 1: over).
func over(m measurement, pol Policy) float64 {
	f := 0.0
	if pol.MaxRows > 0 {
		f = float64(m.rows) / float64(pol.MaxRows)
	}
	if pol.MaxBytes > 0 {
		f = max(f, float64(m.bytes)/float64(pol.MaxBytes))
	}
	return f
}

// updateMeasure records a measurement and the hysteresis clocks.
func (l *Layer) updateMeasure(p backend.LogicalPartition, now time.Time, rows, bytes int64, worst measurement) PartitionStats {
	pol := l.policy(p.Table)
	return l.stats.update(p, func(e *PartitionStats) {
		e.MeasuredAt, e.Rows, e.Bytes = now, rows, bytes
		e.MaxChildRows, e.MaxChildBytes = worst.rows, worst.bytes
		if over(worst, pol) >= 1 {
			if e.candidateSince.IsZero() {
				e.candidateSince = now
			}
		} else {
			e.candidateSince = time.Time{}
		}
		small := (pol.MaxRows <= 0 || float64(rows) < pol.MergeFraction*float64(pol.MaxRows)) &&
			(pol.MaxBytes <= 0 || float64(bytes) < pol.MergeFraction*float64(pol.MaxBytes))
		if small {
			if e.mergeSince.IsZero() {
				e.mergeSince = now
			}
		} else {
			e.mergeSince = time.Time{}
		}
		e.RowsWritten, e.BytesWritten = 0, 0
	})
}

// ChildSize is the exact size of one physical partition of a logical one.
type ChildSize struct {
	Shard       backend.Shard
	Rows, Bytes int64
}

// MeasureChildren measures every physical partition that may hold data of
// p exactly (operators and tests; it reads the whole partition).
func (l *Layer) MeasureChildren(ctx context.Context, p backend.LogicalPartition) ([]ChildSize, error) {
	shards := []backend.Shard{backend.HomeShard}
	if s := l.reg.get(p); s != nil {
		shards = s.shards()
	}
	out := make([]ChildSize, 0, len(shards))
	for _, sh := range shards {
		m, err := l.measure(ctx, p, sh, false)
		if err != nil {
			return nil, err
		}
		out = append(out, ChildSize{Shard: sh, Rows: m.rows, Bytes: m.bytes})
	}
	return out, nil
}
