package split

import (
	"bytes"
	"context"
	"time"

	"github.com/partita-db/partita/internal/backend"
)

// Read reads one logical partition: only the shards whose ranges overlap
// the slices, range pieces concatenated in clustering order (or its
// reverse), hash segments merged, the static row from the home shard. What
// every piece reads is fixed under the partition's routing lock (a storage
// snapshot, or the pieces' iterators opened there), so the read sees one
// consistent placement.
func (l *Layer) Read(ctx context.Context, cmd backend.ReadCommand) (backend.RowIterator, error) {
	p := cmd.Partition.LogicalPartition
	start := time.Now()
	it, err := l.read(ctx, cmd)
	if err != nil {
		return nil, err
	}
	return &statsIter{RowIterator: it, l: l, p: p, start: start}, nil
}

// read opens the iterators of a logical read under the partition's routing
// stripe, after any step moving a range the read overlaps has committed.
func (l *Layer) read(ctx context.Context, cmd backend.ReadCommand) (backend.RowIterator, error) {
	if l.shared != nil {
		return l.readShared(ctx, cmd)
	}
	p := cmd.Partition.LogicalPartition
	stripe := l.stripe(p)
	for {
		l.routing[stripe].RLock()
		if f := l.fences[stripe].Load(); f != nil && f.covers(p) && f.overlapsAny(cmd.Slices) {
			l.routing[stripe].RUnlock()
			if err := f.wait(ctx); err != nil {
				return nil, err
			}
			continue
		}
		defer l.routing[stripe].RUnlock()
		if s := l.reg.get(p); s != nil {
			return l.readSplit(ctx, l.backend, s, cmd)
		}
		cmd.Partition.Shard = backend.HomeShard
		return l.backend.Read(ctx, cmd)
	}
}

// statsIter records a read in the partition statistics when it closes.
type statsIter struct {
	backend.RowIterator
	l     *Layer
	p     backend.LogicalPartition
	start time.Time
	done  bool
}

func (s *statsIter) Close() error {
	if !s.done {
		s.done = true
		st := s.RowIterator.Stats()
		s.l.stats.recordRead(s.p, st.LiveRows, st.Bytes, time.Since(s.start))
	}
	return s.RowIterator.Close()
}

// reader is what logical reads read from: the backend or a snapshot of it.
type reader interface {
	Read(ctx context.Context, cmd backend.ReadCommand) (backend.RowIterator, error)
}

// readSplit reads a split partition through s. With several pieces to
// read, they are opened only as the read reaches them, from one snapshot
// taken now (under the routing stripe, so the placement is s's): a LIMIT
// that the first child satisfies opens only that child. A backend without
// snapshots has every piece opened now instead.
func (l *Layer) readSplit(ctx context.Context, from reader, s *State, cmd backend.ReadCommand) (backend.RowIterator, error) {
	p := cmd.Partition.LogicalPartition
	var pieces []readPiece
	for _, sl := range cmd.Slices {
		pieces = append(pieces, s.readPieces(sl)...)
	}
	if cmd.Reverse {
		for i, j := 0, len(pieces)-1; i < j; i, j = i+1, j-1 {
			pieces[i], pieces[j] = pieces[j], pieces[i]
		}
	}
	it := &splitIter{reverse: cmd.Reverse, partition: p.Physical(backend.HomeShard)}
	lazy := false
	if sn, ok := from.(backend.Snapshotter); ok && len(pieces) > 1 {
		snap, err := sn.Snapshot(ctx)
		if err != nil {
			return nil, err
		}
		it.snap, from, lazy = snap, snap, true
	} else if _, isSnapshot := from.(backend.Snapshot); isSnapshot {
		lazy = true
	}
	open := func(sh backend.Shard, slices []backend.Slice, static bool) (backend.RowIterator, error) {
		c := cmd
		c.Partition, c.Slices, c.Static = p.Physical(sh), slices, static
		r, err := from.Read(ctx, c)
		if err == nil {
			it.all = append(it.all, r)
		}
		return r, err
	}
	if cmd.Static {
		st, err := open(backend.HomeShard, nil, true)
		if err != nil {
			it.Close()
			return nil, err
		}
		it.parts, it.opens = append(it.parts, st), append(it.opens, nil)
	}
	for _, pc := range pieces {
		openPiece := func() (backend.RowIterator, error) {
			var its []backend.RowIterator
			for _, sh := range pc.Shards {
				r, err := open(sh, []backend.Slice{pc.Range}, false)
				if err != nil {
					return nil, err
				}
				its = append(its, r)
			}
			if len(its) == 1 {
				return its[0], nil
			}
			return newMergeIter(its, cmd.Reverse), nil
		}
		var part backend.RowIterator
		if !lazy {
			var err error
			if part, err = openPiece(); err != nil {
				it.Close()
				return nil, err
			}
		}
		it.parts, it.opens = append(it.parts, part), append(it.opens, openPiece)
	}
	return it, nil
}

// splitIter concatenates the iterators of a logical partition's pieces.
type splitIter struct {
	parts     []backend.RowIterator // in read order; nil until opened
	opens     []func() (backend.RowIterator, error)
	all       []backend.RowIterator // every opened iterator, to close
	snap      backend.Snapshot      // the view lazily opened pieces read
	cur       int
	reverse   bool
	partition backend.PhysicalPartition
	err       error
}

func (it *splitIter) Next() bool {
	for it.cur < len(it.parts) {
		if it.parts[it.cur] == nil {
			part, err := it.opens[it.cur]()
			if err != nil {
				it.err = err
				return false
			}
			it.parts[it.cur] = part
		}
		if it.parts[it.cur].Next() {
			return true
		}
		if err := it.parts[it.cur].Err(); err != nil {
			it.err = err
			return false
		}
		it.cur++
	}
	return false
}

func (it *splitIter) Row() *backend.Row                    { return it.parts[it.cur].Row() }
func (it *splitIter) Partition() backend.PhysicalPartition { return it.partition }
func (it *splitIter) SkipPartition()                       { it.cur = len(it.parts) }
func (it *splitIter) Err() error                           { return it.err }

func (it *splitIter) Stats() backend.ReadStats {
	var s backend.ReadStats
	for _, r := range it.all {
		st := r.Stats()
		s.LiveRows += st.LiveRows
		s.Tombstones += st.Tombstones
		s.Bytes += st.Bytes
	}
	return s
}

func (it *splitIter) Close() error {
	var first error
	if it.all != nil || it.snap != nil {
		metrics.fanOut.Observe(float64(len(it.all)))
	}
	for _, r := range it.all {
		if err := r.Close(); err != nil && first == nil {
			first = err
		}
	}
	it.all = nil
	if it.snap != nil {
		if err := it.snap.Close(); err != nil && first == nil {
			first = err
		}
		it.snap = nil
	}
	return first
}

// mergeIter merges shards of hash segments by clustering key. A key lives
// in exactly one shard, so no two inputs yield the same key.
type mergeIter struct {
	its     []backend.RowIterator
	ok      []bool
	started bool
	cur     int
	reverse bool
	err     error
}

func newMergeIter(its []backend.RowIterator, reverse bool) *mergeIter {
	return &mergeIter{its: its, ok: make([]bool, len(its)), reverse: reverse, cur: -1}
}

func (m *mergeIter) Next() bool {
	if !m.started {
		m.started = true
		for i, it := range m.its {
			m.ok[i] = it.Next()
			if err := it.Err(); err != nil {
				m.err = err
				return false
			}
		}
	} else if m.cur >= 0 {
		m.ok[m.cur] = m.its[m.cur].Next()
		if err := m.its[m.cur].Err(); err != nil {
			m.err = err
			return false
		}
	}
	m.cur = -1
	for i, it := range m.its {
		if !m.ok[i] {
			continue
		}
		if m.cur < 0 {
			m.cur = i
			continue
		}
		c := bytes.Compare(it.Row().Clustering, m.its[m.cur].Row().Clustering)
		if (c < 0) != m.reverse && c != 0 {
			m.cur = i
		}
	}
	return m.cur >= 0
}

func (m *mergeIter) Row() *backend.Row                    { return m.its[m.cur].Row() }
func (m *mergeIter) Partition() backend.PhysicalPartition { return m.its[0].Partition() }
func (m *mergeIter) SkipPartition()                       {}
func (m *mergeIter) Err() error                           { return m.err }
func (m *mergeIter) Stats() backend.ReadStats             { return backend.ReadStats{} }
func (m *mergeIter) Close() error                         { return nil }
