package split

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sort"
	"time"

	"github.com/partita-db/partita/internal/backend"
)

// Plan describes a migration to start.
type Plan struct {
	Partition backend.LogicalPartition
	// Target is the map to move to (Unsplit() to merge back).
	Target   Map
	Purpose  string // "split" or "merge"
	Strategy string // "range", "rollover", "hash" or "merge"
	Reason   string
	// Who started it: "auto" or "operator".
	Who string
}

// mover returns the backend's Move capability.
func (l *Layer) mover() (backend.Mover, error) {
	m, ok := l.backend.(backend.Mover)
	if !ok {
		return nil, fmt.Errorf("split: the backend cannot move data between shards")
	}
	return m, nil
}

// Start records a new migration for a logical partition (step 0: nothing
// moved yet). It fails if one is already under way.
func (l *Layer) Start(ctx context.Context, p Plan) (*State, error) {
	defer l.lockSteps(p.Partition)()
	if l.shared != nil {
		if _, err := l.leased(ctx); err != nil {
			return nil, err
		}
	}
	cur, epoch := l.reg.getWithEpoch(p.Partition)
	var s *State
	if cur == nil {
		s = &State{Partition: p.Partition, Current: Unsplit(), NextShard: 1, rowEpoch: epoch}
	} else {
		if cur.Migration != nil {
			return nil, fmt.Errorf("split: a %s of this partition is already under way", cur.Migration.Purpose)
		}
		s = cur.clone()
	}
	// The size and checksum at the start, for the audit; writes go on
	// while they are read (no migration can change the placement: the step
	// stripe is held).
	rows, sum, err := l.checksum(ctx, l.backend, s, nil)
	if err != nil {
		return nil, err
	}
	unlock := l.lockExclusive(p.Partition)
	defer unlock()
	for _, sh := range p.Target.AllShards() {
		if sh >= s.NextShard {
			s.NextShard = sh + 1
		}
	}
	s.Epoch++
	s.Migration = &Migration{Target: p.Target, Cursor: []byte{}, Purpose: p.Purpose, Strategy: p.Strategy,
		Reason: p.Reason, StartedAt: time.Now().UnixMicro(), RowsBefore: rows, ChecksumBefore: sum, Owner: l.Gateway()}
	if err := l.persist(ctx, s, nil); err != nil {
		return nil, err
	}
	l.history(ctx, s, "start", p.Who)
	metrics.started.Inc()
	return s.clone(), nil
}

// lockSteps serialises the changes of one partition's split state.
func (l *Layer) lockSteps(p backend.LogicalPartition) func() {
	mu := &l.steps[l.stripe(p)]
	mu.Lock()
	return mu.Unlock
}

// lockExclusive holds a partition's routing lock exclusively: no read or
// write of the partition is in flight while it is held (invariant 2).
func (l *Layer) lockExclusive(p backend.LogicalPartition) func() {
	s := l.stripe(p)
	l.routing[s].Lock()
	return l.routing[s].Unlock
}

// persist writes s (and the moved data, if any) in one batch and then
// publishes it.
func (l *Layer) persist(ctx context.Context, s *State, move *backend.MoveCommand) error {
	if l.shared != nil && move == nil {
		// Shared states are changed only by compare-and-set (shared.go S1);
		// steps that move data take stepShared instead.
		return l.commitShared(ctx, s)
	}
	mw, err := encodeState(s)
	if err != nil {
		return err
	}
	if move != nil {
		mv, err := l.mover()
		if err != nil {
			return err
		}
		move.Meta = append(move.Meta, mw)
		st, err := mv.Move(ctx, *move)
		if err != nil {
			return err
		}
		if s.Migration != nil {
			s.Migration.RowsMoved += st.Rows
			s.Migration.BytesMoved += st.Bytes
		}
	} else if err := l.backend.Apply(ctx, &backend.WriteBatch{Meta: []backend.MetaWrite{mw}}); err != nil {
		return err
	}
	l.reg.put(s)
	return nil
}

// StepResult reports one migration step.
type StepResult struct {
	Rows, Bytes int64
	// Done: the migration finished (or a revert completed) with this step.
	Done bool
	// Busy: another gateway drives this migration (shared states); nothing
	// was done.
	Busy bool
}

// Step moves up to maxRows rows of a partition's migration, in one atomic
// commit of the data and the advanced cursor (invariant 4). Reads and
// writes of the partition go on during the step, except those that touch
// the range being moved: they wait for its commit (the fence). When the
// cursor passes the end it verifies the partition and switches to the
// target map.
func (l *Layer) Step(ctx context.Context, p backend.LogicalPartition, maxRows int) (StepResult, error) {
	defer l.lockSteps(p)()
	if l.shared != nil {
		return l.stepShared(ctx, p, maxRows)
	}
	cur := l.reg.get(p)
	if cur == nil || cur.Migration == nil {
		return StepResult{Done: true}, nil
	}
	s := cur.clone()
	m := s.Migration
	if m.Reverting {
		return l.stepBack(ctx, s, maxRows)
	}
	if m.Complete {
		// Everything has moved: verify and switch to the target map.
		if err := l.finish(ctx, s); err != nil {
			return StepResult{}, err
		}
		l.historyOf(ctx, s, m, "finish", "auto")
		metrics.finished.Inc()
		return StepResult{Done: true}, nil
	}
	next, rows, err := l.chunkEnd(ctx, s, m.Cursor, maxRows)
	if err != nil {
		return StepResult{}, err
	}
	before := m.BytesMoved
	move := &backend.MoveCommand{Partition: p, From: s.Current.AllShards(), Slice: backend.Slice{Start: m.Cursor, End: next},
		Route: m.Target.ShardOf, Targets: m.Target.AllShards()}
	if next == nil {
		m.Complete = true
	} else {
		m.Cursor = next
	}
	if err := l.moveFenced(ctx, s, move); err != nil {
		return StepResult{}, err
	}
	return StepResult{Rows: rows, Bytes: s.Migration.BytesMoved - before}, nil
}

// moveFenced commits one move and the state it leads to while reads and
// writes of the moved range wait; the rest of the partition routes the
// same way before and after the move, so its traffic goes on.
func (l *Layer) moveFenced(ctx context.Context, s *State, move *backend.MoveCommand) error {
	stripe := l.stripe(s.Partition)
	f := &fence{p: s.Partition, slice: move.Slice, done: make(chan struct{})}
	l.routing[stripe].Lock() // waits for the reads and writes in flight
	l.fences[stripe].Store(f)
	l.routing[stripe].Unlock()
	defer func() {
		l.fences[stripe].Store(nil)
		close(f.done)
	}()
	return l.persist(ctx, s, move)
}

// finish switches s (whose data has all moved) to its target map, after
// checking that the move left nothing behind: the partition read through
// the target map equals every physical shard read together (verify,
// SPLITTING.md). Both reads see one snapshot, taken while no write is in
// flight, so traffic goes on during the verification; a backend without
// snapshots is verified with the partition's traffic held.
func (l *Layer) finish(ctx context.Context, s *State) error {
	var from reader = l.backend
	unlock := l.lockExclusive(s.Partition)
	if sn, ok := l.backend.(backend.Snapshotter); ok {
		snap, err := sn.Snapshot(ctx)
		unlock()
		if err != nil {
			return err
		}
		defer snap.Close()
		from, unlock = snap, func() {}
	}
	defer unlock()
	m := s.Migration
	after := &State{Partition: s.Partition, Current: m.Target, NextShard: s.NextShard, Epoch: s.Epoch + 1}
	rows, sum, err := l.checksum(ctx, from, after, nil)
	if err != nil {
		return err
	}
	allRows, allSum, err := l.checksum(ctx, from, s, s.shards())
	if err != nil {
		return err
	}
	if rows != allRows || sum != allSum {
		return fmt.Errorf("split: verification failed for %x: %d rows (%x) through the new map, %d (%x) in storage",
			s.Partition.Key, rows, sum, allRows, allSum)
	}
	// Writes since the snapshot routed by the target map already (the
	// migration is complete), so switching changes no placement.
	s.Current, s.Migration, s.Epoch = m.Target, nil, s.Epoch+1
	return l.persist(ctx, s, nil)
}

// stepBack moves the top chunk of the moved region back to the current
// map (a revert).
func (l *Layer) stepBack(ctx context.Context, s *State, maxRows int) (StepResult, error) {
	m := s.Migration
	if m.Complete {
		m.Complete, m.Cursor = false, nil // everything had moved: start from the end
	}
	defer func() {
		if s.Migration == nil {
			l.historyOf(ctx, s, m, "reverted", "auto")
			metrics.reverted.Inc()
		}
	}()
	start, rows, err := l.chunkStartBelow(ctx, s, m.Cursor, maxRows)
	if err != nil {
		return StepResult{}, err
	}
	move := &backend.MoveCommand{Partition: s.Partition, From: m.Target.AllShards(), Slice: backend.Slice{Start: start, End: m.Cursor},
		Route: s.Current.ShardOf, Targets: s.Current.AllShards()}
	m.Cursor = start
	done := len(start) == 0
	if done {
		s.Migration = nil
		s.Epoch++
	}
	if err := l.moveFenced(ctx, s, move); err != nil {
		return StepResult{}, err
	}
	return StepResult{Rows: rows, Done: done}, nil
}

// Revert turns a migration under way back: the cursor will move down and
// return every moved row to the current map.
func (l *Layer) Revert(ctx context.Context, p backend.LogicalPartition, who string) error {
	defer l.lockSteps(p)()
	unlock := l.lockExclusive(p)
	defer unlock()
	cur := l.reg.get(p)
	if cur == nil || cur.Migration == nil {
		return fmt.Errorf("split: no migration of this partition is under way")
	}
	s := cur.clone()
	s.Migration.Reverting = true
	s.Epoch++
	if err := l.persist(ctx, s, nil); err != nil {
		return err
	}
	l.history(ctx, s, "revert", who)
	return nil
}

// chunkEnd returns where a forward step starting at cursor ends: after
// maxRows rows still held by the current map (nil: the end of the key
// space), and how many rows that is.
func (l *Layer) chunkEnd(ctx context.Context, s *State, cursor []byte, maxRows int) ([]byte, int64, error) {
	it, err := l.openShards(ctx, l.backend, s.Current.AllShards(), s.Partition, backend.Slice{Start: cursor}, false)
	if err != nil {
		return nil, 0, err
	}
	defer it.Close()
	var n int64
	var last []byte
	for it.Next() {
		n++
		last = append(last[:0], it.Row().Clustering...)
		if n >= int64(maxRows) {
			break
		}
	}
	if err := it.Err(); err != nil {
		return nil, 0, err
	}
	if n < int64(maxRows) {
		return nil, n, nil
	}
	if !it.Next() {
		return nil, n, it.Err()
	}
	return append(last, 0x00), n, nil
}

// chunkStartBelow returns where a backward step ending at cursor starts.
func (l *Layer) chunkStartBelow(ctx context.Context, s *State, cursor []byte, maxRows int) ([]byte, int64, error) {
	it, err := l.openShards(ctx, l.backend, s.Migration.Target.AllShards(), s.Partition, backend.Slice{End: cursor}, true)
	if err != nil {
		return nil, 0, err
	}
	defer it.Close()
	var n int64
	var last []byte
	for it.Next() {
		n++
		last = append(last[:0], it.Row().Clustering...)
		if n >= int64(maxRows) {
			break
		}
	}
	if err := it.Err(); err != nil {
		return nil, 0, err
	}
	if n < int64(maxRows) || !it.Next() {
		return []byte{}, n, it.Err()
	}
	return last, n, nil
}

// openShards merges the rows of several physical shards in one slice.
// Storage hides fully deleted rows, so moves count only visible rows;
// tombstones move with the key ranges they lie in.
func (l *Layer) openShards(ctx context.Context, from reader, shards []backend.Shard, p backend.LogicalPartition, sl backend.Slice, reverse bool) (backend.RowIterator, error) {
	var its []backend.RowIterator
	for _, sh := range shards {
		it, err := from.Read(ctx, backend.ReadCommand{Partition: p.Physical(sh), Slices: []backend.Slice{sl},
			Reverse: reverse, Now: time.Now().Unix()})
		if err != nil {
			for _, o := range its {
				o.Close()
			}
			return nil, err
		}
		its = append(its, it)
	}
	m := newMergeIter(its, reverse)
	return &closeAll{mergeIter: m, its: its}, nil
}

type closeAll struct {
	*mergeIter
	its []backend.RowIterator
}

func (c *closeAll) Close() error {
	for _, it := range c.its {
		it.Close()
	}
	return nil
}

// checksum counts the live rows of a partition and hashes them (keys,
// cells, timestamps): through s's maps, or, with shards given, every
// shard's rows merged regardless of the maps.
func (l *Layer) checksum(ctx context.Context, from reader, s *State, shards []backend.Shard) (int64, uint64, error) {
	var it backend.RowIterator
	var err error
	now := time.Now().Unix()
	if shards == nil {
		it, err = l.readSplit(ctx, from, s, backend.ReadCommand{Partition: s.Partition.Physical(backend.HomeShard),
			Slices: []backend.Slice{backend.FullSlice}, Static: true, Now: now})
	} else {
		it, err = l.openShards(ctx, from, shards, s.Partition, backend.FullSlice, false)
	}
	if err != nil {
		return 0, 0, err
	}
	defer it.Close()
	var n int64
	var sum uint64
	for it.Next() {
		r := it.Row()
		if r.Clustering == nil {
			continue
		}
		n++
		sum += rowHash(r)
	}
	return n, sum, it.Err()
}

func rowHash(r *backend.Row) uint64 {
	h := fnv.New64a()
	h.Write(r.Clustering)
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(r.Liveness.Timestamp))
	h.Write(b[:])
	for _, c := range r.Cells {
		binary.BigEndian.PutUint64(b[:], uint64(c.Timestamp))
		h.Write(b[:])
		h.Write(c.Path)
		h.Write(c.Value)
	}
	return h.Sum64()
}

// HistoryRecord is one entry of the split audit (system_partita.split_history).
type HistoryRecord struct {
	At             int64  `json:"at"`
	Table          uint64 `json:"table"`
	Key            []byte `json:"key"`
	Event          string `json:"event"` // start, finish, revert, reverted
	Purpose        string `json:"purpose"`
	Strategy       string `json:"strategy"`
	Reason         string `json:"reason"`
	Who            string `json:"who"`
	Epoch          uint64 `json:"epoch"`
	RowsBefore     int64  `json:"rows_before"`
	ChecksumBefore uint64 `json:"checksum_before"`
	RowsMoved      int64  `json:"rows_moved"`
	BytesMoved     int64  `json:"bytes_moved"`
	Children       int    `json:"children"`
}

const historyPrefix = "splithist/"

// history appends an audit record; failures to record are not fatal.
func (l *Layer) history(ctx context.Context, s *State, event, who string) {
	l.historyOf(ctx, s, s.Migration, event, who)
}

// historyOf records an event of migration m (which s may no longer carry).
func (l *Layer) historyOf(ctx context.Context, s *State, m *Migration, event, who string) {
	rec := HistoryRecord{At: time.Now().UnixMicro(), Table: uint64(s.Partition.Table), Key: s.Partition.Key,
		Event: event, Who: who, Epoch: s.Epoch, Children: len(s.Current.AllShards())}
	if m != nil {
		rec.Purpose, rec.Strategy, rec.Reason = m.Purpose, m.Strategy, m.Reason
		rec.RowsBefore, rec.ChecksumBefore, rec.RowsMoved, rec.BytesMoved = m.RowsBefore, m.ChecksumBefore, m.RowsMoved, m.BytesMoved
	}
	v, err := json.Marshal(rec)
	if err != nil {
		return
	}
	key := binary.BigEndian.AppendUint64([]byte(historyPrefix), uint64(rec.At))
	key = append(key, stateKey(s.Partition)...)
	_ = l.backend.Apply(ctx, &backend.WriteBatch{Meta: []backend.MetaWrite{{Key: key, Value: v}}})
}

// History returns the audit records, oldest first.
func (l *Layer) History(ctx context.Context) ([]HistoryRecord, error) {
	kvs, err := l.backend.ScanMeta(ctx, []byte(historyPrefix))
	if err != nil {
		return nil, err
	}
	out := make([]HistoryRecord, 0, len(kvs))
	for _, kv := range kvs {
		var r HistoryRecord
		if json.Unmarshal(kv.Value, &r) == nil {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out, nil
}

// keyBetween is used by tests: whether a <= k < b.
func keyBetween(k, a, b []byte) bool {
	return bytes.Compare(k, a) >= 0 && (b == nil || bytes.Compare(k, b) < 0)
}
