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
		// Roll-over only for the piece at the growing end of an append-only
		// partition: an older piece that late writes pushed over the limit
		// is cut in halves, not into a full piece and a sliver.
		strategy = "range"
		if l.appendOnly(p) && atGrowingEnd(current, shard, l.appendDirection(p)) {
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
	default:
		cuts := rangeCuts(&m.keys, pol.MaxRows, strategy == "rollover", l.appendDirection(p))
		target, err = cutMap(current, shard, next, cuts)
	}
	if err != nil {
		return nil, err
	}
	if sameMap(current, target) {
		return nil, nil
	}
	return l.Start(ctx, Plan{Partition: p, Target: target, Purpose: "split", Strategy: strategy, Reason: reason, Who: who})
}

// atGrowingEnd reports whether shard holds the piece at the end where an
// append-only partition grows: the last piece for ascending appends, the
// first for descending ones.
func atGrowingEnd(m Map, shard backend.Shard, ascending bool) bool {
	if m.Kind != RangeMap || len(m.Pieces) == 0 {
		return false
	}
	if ascending {
		return m.Pieces[len(m.Pieces)-1].Shard == shard
	}
	return m.Pieces[0].Shard == shard
}

// rangeCuts chooses where to cut a physical partition's keys. Random
// writes get pieces half full (room to grow on both sides); append-only
// writes get pieces three quarters full (room for late arrivals) and the
// piece at the growing end takes the new rows (the roll-over case). Cut
// keys come from a sample: for a partition of more than 2*sampleKeys rows
// a piece may differ from its planned size by up to the sample's stride,
// and cuts that fall on the same sampled key are made once.
func rangeCuts(keys *keySample, maxRows int64, appendOnly, ascending bool) [][]byte {
	n := keys.rows()
	size := max(maxRows/2, 1)
	if appendOnly {
		size = max(maxRows*3/4, 1)
	}
	var cuts [][]byte
	add := func(k []byte) {
		if len(cuts) == 0 || string(cuts[len(cuts)-1]) != string(k) {
			cuts = append(cuts, k)
		}
	}
	if !appendOnly {
		pieces := (n + size - 1) / size
		for i := int64(1); i < pieces; i++ {
			add(keys.at(i * n / pieces))
		}
		return cuts
	}
	if ascending {
		for i := size; i < n; i += size {
			add(keys.at(i))
		}
		// The newest piece starts just past the largest key: writes go to a
		// fresh shard from now on.
		if n%size == 0 || len(cuts) == 0 {
			cuts = append(cuts, append(append([]byte(nil), keys.at(n-1)...), 0x00))
		}
		return cuts
	}
	var rev [][]byte
	for i := n - size; i > 0; i -= size {
		rev = append(rev, keys.at(i))
	}
	if n%size == 0 || len(rev) == 0 {
		rev = append(rev, keys.at(0))
	}
	for i := len(rev) - 1; i >= 0; i-- {
		add(rev[i])
	}
	return cuts
}

// cutMap replaces the piece held by shard with pieces cut at cuts (sorted,
// inside the piece); the piece holding most of the old keys keeps the
// shard only for the first, the others get new shards.
func cutMap(current Map, shard, next backend.Shard, cuts [][]byte) (Map, error) {
	if current.Kind != RangeMap {
		return Map{}, fmt.Errorf("split: only a range-split partition can be split further by range")
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
			if string(c) <= string(pc.Start) {
				continue
			}
			out.Pieces = append(out.Pieces, Piece{Start: c, Shard: next})
			next++
		}
	}
	return normalise(out), nil
}

// sameMap reports whether two maps place every key alike.
func sameMap(a, b Map) bool {
	if a.Kind != b.Kind || len(a.Pieces) != len(b.Pieces) || len(a.Shards) != len(b.Shards) {
		return false
	}
	for i := range a.Pieces {
		if string(a.Pieces[i].Start) != string(b.Pieces[i].Start) || a.Pieces[i].Shard != b.Pieces[i].Shard {
			return false
		}
	}
	for i := range a.Shards {
		if a.Shards[i] != b.Shards[i] {
			return false
		}
	}
	return true
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
	e, _ := l.stats.get(p) // untracked: no writes seen
	total := e.ascending + e.descending + e.interior
	return total >= 10 && float64(max(e.ascending, e.descending)) >= 0.9*float64(total)
}

func (l *Layer) appendDirection(p backend.LogicalPartition) bool {
	e, _ := l.stats.get(p)
	return e.ascending >= e.descending
}

// Force starts a split of a logical partition now, as an operator asks:
// strategy "range", "rollover" or "hash" ("" for the policy's choice).
func (l *Layer) Force(ctx context.Context, p backend.LogicalPartition, strategy string, pol Policy) (*State, error) {
	cur := l.reg.get(p)
	if cur != nil && cur.Migration != nil {
		return nil, fmt.Errorf("split: a %s of this partition is already under way", cur.Migration.Purpose)
	}
	shards := []backend.Shard{backend.HomeShard}
	if cur != nil {
		shards = cur.Current.AllShards()
	}
	var worst measurement
	for _, sh := range shards {
		m, err := l.measure(ctx, p, sh, false)
		if err != nil {
			return nil, err
		}
		if m.rows > worst.rows || worst.rows == 0 {
			worst = m
		}
	}
	shard := worst.shard
	if strategy != "" {
		pol.Strategy = strategy
	}
	// An operator's split always cuts the largest child, even below the
	// policy's limit.
	if pol.MaxRows <= 0 || pol.MaxRows > worst.rows {
		pol.MaxRows = max(worst.rows, 2)
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
