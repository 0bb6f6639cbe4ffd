package split

import (
	"context"
	"fmt"

	"github.com/partita-db/partita/internal/backend"
)

// planSplit chooses how to split one physical partition (shard) of a
// logical partition and starts the migration.
func (l *Layer) planSplit(ctx context.Context, p backend.LogicalPartition, cur *State, shard backend.Shard, pol Policy, who, reason string) (*State, error) {
	m, err := l.measure(ctx, p, shard, true)
	if err != nil {
		return nil, err
	}
	if m.rows < 2 {
		return nil, nil
	}
	if m.rowsBytes > 0 && float64(m.largest) >= 0.9*float64(m.rowsBytes) {
		l.logf("split: not splitting partition %x: one clustering key holds %d of %d bytes", p.Key, m.largest, m.rowsBytes)
		return nil, nil
	}
	current := Unsplit()
	next := backend.Shard(1)
	if cur != nil {
		current, next = cur.Current, cur.NextShard
	}
	strategy := pol.Strategy
	if strategy == "auto" || strategy == "" {
		strategy = "range"
		if l.appendOnly(p) {
			strategy = "rollover"
		}
	}
	var target Map
	switch strategy {
	case "hash":
		if !current.IsUnsplit() {
			return nil, fmt.Errorf("split: a hash split applies only to an unsplit partition")
		}
		n := max(pol.HashSegments, 2)
		target = Map{Kind: HashMap}
		for i := 0; i < n; i++ {
			target.Shards = append(target.Shards, backend.Shard(i))
		}
	case "rollover":
		target, err = rolloverMap(current, shard, next, m, l.appendDirection(p))
	default:
		n := int((m.rows + pol.MaxRows/2 - 1) / max(pol.MaxRows/2, 1))
		target, err = rangeMap(current, shard, next, m.keys, max(n, 2))
	}
	if err != nil {
		return nil, err
	}
	return l.Start(ctx, Plan{Partition: p, Target: target, Purpose: "split", Strategy: strategy, Reason: reason, Who: who})
}

// rangeMap replaces the piece held by shard with n pieces cut at quantiles
// of its keys; the first keeps the shard, the others get new ones.
func rangeMap(current Map, shard, next backend.Shard, keys [][]byte, n int) (Map, error) {
	if current.Kind != RangeMap {
		return Map{}, fmt.Errorf("split: only a range-split partition can be split further by range")
	}
	n = min(n, len(keys))
	var cuts [][]byte
	for i := 1; i < n; i++ {
		k := keys[i*len(keys)/n]
		if len(cuts) == 0 || string(k) > string(cuts[len(cuts)-1]) {
			cuts = append(cuts, k)
		}
	}
	if len(cuts) == 0 {
		return Map{}, fmt.Errorf("split: no split point")
	}
	out := Map{Kind: RangeMap}
	for _, pc := range current.Pieces {
		out.Pieces = append(out.Pieces, pc)
		if pc.Shard != shard {
			continue
		}
		for _, c := range cuts {
			out.Pieces = append(out.Pieces, Piece{Start: c, Shard: next})
			next++
		}
	}
	return normalise(out), nil
}

// rolloverMap starts a new piece past the partition's newest end, so the
// existing rows stay where they are and new ones go to a new shard (no data
// moves: SPLITTING.md "append-only case").
func rolloverMap(current Map, shard, next backend.Shard, m measurement, ascending bool) (Map, error) {
	if current.Kind != RangeMap || len(m.keys) == 0 {
		return Map{}, fmt.Errorf("split: roll-over needs a range-split partition with rows")
	}
	out := Map{Kind: RangeMap}
	for i, pc := range current.Pieces {
		if pc.Shard != shard {
			out.Pieces = append(out.Pieces, pc)
			continue
		}
		if ascending {
			out.Pieces = append(out.Pieces, pc, Piece{Start: append(append([]byte(nil), m.keys[len(m.keys)-1]...), 0x00), Shard: next})
			continue
		}
		// Descending appends: the new shard takes everything below the
		// smallest key; this shard keeps the rest of its piece.
		out.Pieces = append(out.Pieces, Piece{Start: pc.Start, Shard: next}, Piece{Start: m.keys[0], Shard: shard})
		_ = i
	}
	return normalise(out), nil
}

// normalise drops empty pieces and merges neighbours held by one shard.
func normalise(m Map) Map {
	var out []Piece
	for i, pc := range m.Pieces {
		if i+1 < len(m.Pieces) && string(m.Pieces[i+1].Start) <= string(pc.Start) {
			continue // empty piece
		}
		if n := len(out); n > 0 && out[n-1].Shard == pc.Shard {
			continue
		}
		out = append(out, pc)
	}
	if len(out) > 0 {
		out[0].Start = []byte{}
	}
	m.Pieces = out
	return m
}

// appendOnly reports whether nearly every write since the partition was
// tracked landed past one end of its keys.
func (l *Layer) appendOnly(p backend.LogicalPartition) bool {
	l.stats.mu.Lock()
	defer l.stats.mu.Unlock()
	e := l.stats.entry(p)
	total := e.ascending + e.descending + e.interior
	return total >= 10 && float64(max(e.ascending, e.descending)) >= 0.9*float64(total)
}

func (l *Layer) appendDirection(p backend.LogicalPartition) bool {
	l.stats.mu.Lock()
	defer l.stats.mu.Unlock()
	e := l.stats.entry(p)
	return e.ascending >= e.descending
}

// Force starts a split of a logical partition now, as an operator asks:
// strategy "range", "rollover" or "hash" ("" for the policy's choice).
func (l *Layer) Force(ctx context.Context, p backend.LogicalPartition, strategy string, pol Policy) (*State, error) {
	cur := l.reg.get(p)
	if cur != nil && cur.Migration != nil {
		return nil, fmt.Errorf("split: a %s of this partition is already under way", cur.Migration.Purpose)
	}
	shard := backend.HomeShard
	if cur != nil {
		var worst measurement
		for _, sh := range cur.Current.AllShards() {
			m, err := l.measure(ctx, p, sh, false)
			if err != nil {
				return nil, err
			}
			if m.rows > worst.rows {
				worst = m
			}
		}
		shard = worst.shard
	}
	if strategy != "" {
		pol.Strategy = strategy
	}
	if pol.MaxRows <= 0 {
		pol.MaxRows = 2
	}
	s, err := l.planSplit(ctx, p, cur, shard, pol, "operator", "requested by an operator")
	if err == nil && s == nil {
		err = fmt.Errorf("split: nothing to split (too few rows, or one clustering key holds the data)")
	}
	return s, err
}

// MergeBack starts moving a split partition back into one physical
// partition.
func (l *Layer) MergeBack(ctx context.Context, p backend.LogicalPartition, who string) (*State, error) {
	cur := l.reg.get(p)
	if cur == nil {
		return nil, fmt.Errorf("split: the partition is not split")
	}
	return l.Start(ctx, Plan{Partition: p, Target: Unsplit(), Purpose: "merge", Strategy: "merge", Reason: "requested by an operator", Who: who})
}
