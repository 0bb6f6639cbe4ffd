package storage

import (
	"bytes"
	"context"

	"github.com/cockroachdb/pebble/v2"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/token"
)

// Read implements backend.Backend.
func (s *Store) Read(ctx context.Context, cmd backend.ReadCommand) (backend.RowIterator, error) {
	return readFrom(ctx, s.db, cmd)
}

var _ backend.Snapshotter = (*Store)(nil)

// Snapshot implements backend.Snapshotter.
func (s *Store) Snapshot(context.Context) (backend.Snapshot, error) {
	return snapshot{s.db.NewSnapshot()}, nil
}

type snapshot struct{ snap *pebble.Snapshot }

func (v snapshot) Read(ctx context.Context, cmd backend.ReadCommand) (backend.RowIterator, error) {
	return readFrom(ctx, v.snap, cmd)
}

func (v snapshot) Close() error { return v.snap.Close() }

// readFrom reads one physical partition from the database or a snapshot.
func readFrom(ctx context.Context, from pebble.Reader, cmd backend.ReadCommand) (backend.RowIterator, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	prefix := appendPhysical(nil, cmd.Partition)
	lo := append(append([]byte(nil), prefix...), kindHeader)
	hi := append(append([]byte(nil), prefix...), kindEnd)
	it, err := from.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return nil, readError(err)
	}
	r := &rowIter{it: it, now: cmd.Now, static: cmd.Static, reverse: cmd.Reverse, single: true}
	r.slices = cmd.Slices
	if cmd.Reverse {
		r.slices = make([]backend.Slice, len(cmd.Slices))
		for i, sl := range cmd.Slices {
			r.slices[len(cmd.Slices)-1-i] = sl
		}
	}
	r.part.partition = cmd.Partition
	r.part.prefix = prefix
	r.state = stateStart
	return r, nil
}

// Scan implements backend.Backend.
func (s *Store) Scan(ctx context.Context, cmd backend.ScanCommand) (backend.RowIterator, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lo, hi := scanBounds(cmd)
	if hi != nil && bytes.Compare(lo, hi) >= 0 {
		return &emptyIter{}, nil
	}
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return nil, readError(err)
	}
	r := &rowIter{it: it, now: cmd.Now, static: cmd.Static, state: stateScanNext}
	if cmd.After != nil && cmd.Start != nil && cmd.Start.Key != nil {
		r.after, r.afterKey = cmd.After, cmd.Start.Key
	}
	r.slices = []backend.Slice{backend.FullSlice}
	return r, nil
}

func scanBounds(cmd backend.ScanCommand) (lo, hi []byte) {
	table := appendTablePrefix(nil, cmd.Table)
	lo = table
	if b := cmd.Start; b != nil {
		switch {
		case b.Key != nil:
			lo = appendLogical(nil, backend.LogicalPartition{Table: cmd.Table, Token: b.Token, Key: b.Key})
			if !b.Inclusive {
				lo = backend.PrefixSuccessor(lo)
			}
		case b.Inclusive:
			lo = token.AppendOrdered(append([]byte(nil), table...), b.Token)
		case b.Token == token.MaxToken:
			return table, table
		default:
			lo = token.AppendOrdered(append([]byte(nil), table...), b.Token+1)
		}
	}
	hi = backend.PrefixSuccessor(table)
	if b := cmd.End; b != nil {
		switch {
		case !b.Inclusive:
			hi = token.AppendOrdered(append([]byte(nil), table...), b.Token)
		case b.Token != token.MaxToken:
			hi = token.AppendOrdered(append([]byte(nil), table...), b.Token+1)
		}
	}
	return lo, hi
}

type iterState int

const (
	stateStart    iterState = iota // at a partition's start: read header, static, tombstones
	stateSlice                     // positioning at the next slice
	stateRows                      // inside a slice
	stateScanNext                  // scan: find the next partition
	stateDone
)

// partitionState is what a reader knows about the partition it is in.
type partitionState struct {
	partition backend.PhysicalPartition
	prefix    []byte
	deletion  backend.DeletionTime
	tombs     []backend.RangeTombstone
}

// rowIter walks one partition (Read) or a token range (Scan) and yields live
// rows with every deletion that covers them applied.
type rowIter struct {
	it      *pebble.Iterator
	now     int64
	static  bool
	reverse bool
	single  bool
	// after resumes the partition whose key is afterKey strictly after this
	// clustering key (a scan that pages).
	after, afterKey []byte

	slices   []backend.Slice
	sliceIdx int
	upper    []byte // exclusive row-key bound of the current slice (forward)
	lower    []byte // inclusive row-key bound of the current slice (reverse)

	part  partitionState
	state iterState
	row   backend.Row
	stats backend.ReadStats
	err   error
}

func (r *rowIter) Row() *backend.Row                    { return &r.row }
func (r *rowIter) Partition() backend.PhysicalPartition { return r.part.partition }
func (r *rowIter) Stats() backend.ReadStats             { return r.stats }
func (r *rowIter) Err() error                           { return readError(r.err) }
func (r *rowIter) Close() error                         { return r.it.Close() }
func (r *rowIter) fail(err error) bool                  { r.err, r.state = err, stateDone; return false }
func (r *rowIter) keyWithPrefix(kind byte, s []byte) []byte {
	return rowKeyKind(r.part.prefix, kind, s)
}

func rowKeyKind(prefix []byte, kind byte, suffix []byte) []byte {
	k := make([]byte, 0, len(prefix)+1+len(suffix))
	k = append(k, prefix...)
	k = append(k, kind)
	return append(k, suffix...)
}

// SkipPartition implements backend.RowIterator.
func (r *rowIter) SkipPartition() {
	if r.single {
		r.state = stateDone
		return
	}
	if r.state != stateDone {
		r.it.SeekGE(r.keyWithPrefix(kindEnd, nil))
		r.state = stateScanNext
	}
}

// Next implements backend.RowIterator.
func (r *rowIter) Next() bool {
	for {
		switch r.state {
		case stateDone:
			return false
		case stateScanNext:
			if !r.enterNextPartition() {
				return false
			}
		case stateStart:
			yielded, err := r.readPartitionStart()
			if err != nil {
				return r.fail(err)
			}
			r.state, r.sliceIdx = stateSlice, 0
			if yielded {
				return true
			}
		case stateSlice:
			if !r.positionSlice() {
				continue
			}
			r.state = stateRows
		case stateRows:
			ok, err := r.nextRow()
			if err != nil {
				return r.fail(err)
			}
			if ok {
				return true
			}
		}
	}
}

// enterNextPartition moves a scan to the partition of the key the iterator
// is at (or the first key).
func (r *rowIter) enterNextPartition() bool {
	valid := r.it.Valid()
	if r.part.prefix == nil {
		valid = r.it.First()
	}
	if !valid {
		r.state = stateDone
		if err := r.it.Error(); err != nil {
			r.err = err
		}
		return false
	}
	d, err := decodeDataKey(r.it.Key())
	if err != nil {
		return r.fail(err)
	}
	r.part.partition = d.partition
	r.part.prefix = append(r.part.prefix[:0], r.it.Key()[:d.prefixLen]...)
	r.state = stateStart
	return true
}

// readPartitionStart reads the header, static row and range tombstones of
// the current partition. It reports whether the static row is to be yielded.
func (r *rowIter) readPartitionStart() (bool, error) {
	r.part.deletion = backend.LiveDeletion
	r.part.tombs = r.part.tombs[:0]
	staticLive := false
	if r.after != nil && !bytes.Equal(r.part.partition.Key, r.afterKey) {
		r.after = nil // the partition we were resuming is gone
	}
	for ok := r.it.SeekGE(r.keyWithPrefix(kindHeader, nil)); ok; ok = r.it.Next() {
		key := r.it.Key()
		if !bytes.HasPrefix(key, r.part.prefix) || len(key) == len(r.part.prefix) {
			break
		}
		kind := key[len(r.part.prefix)]
		if kind >= kindRow {
			break
		}
		v, err := r.it.ValueAndErr()
		if err != nil {
			return false, err
		}
		switch kind {
		case kindHeader:
			h, err := decodeHeader(v)
			if err != nil {
				return false, err
			}
			r.part.deletion = h.deletion
		case kindStatic:
			if !r.static {
				continue
			}
			if err := decodeRow(v, &r.row, true); err != nil {
				return false, err
			}
			r.row.Clustering = nil
			staticLive = r.makeLive(&r.row, r.part.deletion)
		case kindRangeTS:
			sl, err := decodeRangeTombstoneSuffix(key[len(r.part.prefix)+1:])
			if err != nil {
				return false, err
			}
			d, err := decodeDeletion(v)
			if err != nil {
				return false, err
			}
			r.part.tombs = append(r.part.tombs, backend.RangeTombstone{Slice: sl, Deletion: d})
			r.stats.Tombstones++
		}
	}
	return staticLive, r.it.Error()
}

// positionSlice seeks to the start of the current slice; false when there
// is none left (the state is then updated).
func (r *rowIter) positionSlice() bool {
	if r.sliceIdx >= len(r.slices) {
		r.endPartition()
		return false
	}
	sl := r.slices[r.sliceIdx]
	r.sliceIdx++
	lo := sl.Start
	if !r.single && r.after != nil {
		lo = append(append([]byte(nil), r.after...), 0x00)
		r.after = nil
	}
	r.lower = r.keyWithPrefix(kindRow, lo)
	if sl.End != nil {
		r.upper = r.keyWithPrefix(kindRow, sl.End)
	} else {
		r.upper = r.keyWithPrefix(kindEnd, nil)
	}
	if r.reverse {
		r.it.SeekLT(r.upper)
	} else {
		r.it.SeekGE(r.lower)
	}
	return true
}

func (r *rowIter) endPartition() {
	if r.single {
		r.state = stateDone
		return
	}
	r.it.SeekGE(r.keyWithPrefix(kindEnd, nil))
	r.state = stateScanNext
}

// nextRow yields the next live row of the current slice.
func (r *rowIter) nextRow() (bool, error) {
	for r.it.Valid() {
		key := r.it.Key()
		inSlice := bytes.Compare(key, r.upper) < 0 && bytes.Compare(key, r.lower) >= 0
		if !inSlice {
			break
		}
		v, err := r.it.ValueAndErr()
		if err != nil {
			return false, err
		}
		r.stats.Bytes += int64(len(key) + len(v))
		if err := decodeRow(v, &r.row, true); err != nil {
			return false, err
		}
		clustering := key[len(r.part.prefix)+1:]
		if r.row.Clustering == nil {
			r.row.Clustering = make([]byte, 0, len(clustering))
		}
		r.row.Clustering = append(r.row.Clustering[:0], clustering...)
		live := r.makeLive(&r.row, r.coveringDeletion(clustering))
		if r.reverse {
			r.it.Prev()
		} else {
			r.it.Next()
		}
		if live {
			r.stats.LiveRows++
			return true, nil
		}
	}
	if err := r.it.Error(); err != nil {
		return false, err
	}
	r.state = stateSlice
	return false, nil
}

// coveringDeletion is the newest partition or range deletion that covers a
// clustering key.
func (r *rowIter) coveringDeletion(clustering []byte) backend.DeletionTime {
	d := r.part.deletion
	for i := range r.part.tombs {
		if r.part.tombs[i].Slice.Contains(clustering) {
			d = d.Max(r.part.tombs[i].Deletion)
		}
	}
	return d
}

// makeLive applies d to row, drops what is not live at now and reports
// whether anything visible is left.
func (r *rowIter) makeLive(row *backend.Row, d backend.DeletionTime) bool {
	before := len(row.Cells)
	if !row.Deletion.IsLive() {
		r.stats.Tombstones++
	}
	row.Purge(d)
	r.stats.Tombstones += int64(before-len(row.Cells)) + int64(row.LiveCells(r.now))
	if !row.Liveness.IsLive(r.now) {
		row.Liveness = backend.NoLiveness
	}
	return !row.Liveness.IsEmpty() || len(row.Cells) > 0
}

type emptyIter struct{}

func (emptyIter) Next() bool                           { return false }
func (emptyIter) Row() *backend.Row                    { return nil }
func (emptyIter) Partition() backend.PhysicalPartition { return backend.PhysicalPartition{} }
func (emptyIter) SkipPartition()                       {}
func (emptyIter) Stats() backend.ReadStats             { return backend.ReadStats{} }
func (emptyIter) Err() error                           { return nil }
func (emptyIter) Close() error                         { return nil }
