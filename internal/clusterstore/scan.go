package clusterstore

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/token"
)

// childRef is one shard registry entry.
type childRef struct {
	token int64
	key   []byte
	shard backend.Shard
}

// Scan implements backend.Backend: a token-range query over the home table
// yields home shards in scan order (invariant 2); the shard registry lists
// the other shards in the range, which are read one by one and merged in
// at their place (token, key, shard).
func (s *Store) Scan(ctx context.Context, cmd backend.ScanCommand) (backend.RowIterator, error) {
	if err := s.ensureTable(ctx, cmd.Table); err != nil {
		return nil, err
	}
	var conds []string
	var args []any
	lo, hi := int64(token.MinToken), int64(token.MaxToken)
	if b := cmd.Start; b != nil {
		op := ">"
		if b.Inclusive || b.Key != nil {
			op = ">="
		}
		conds, args = append(conds, "token(k) "+op+" ?"), append(args, int64(b.Token))
		lo = int64(b.Token)
	}
	if b := cmd.End; b != nil {
		op := "<"
		if b.Inclusive {
			op = "<="
		}
		conds, args = append(conds, "token(k) "+op+" ?"), append(args, int64(b.Token))
		hi = int64(b.Token)
	}
	it := &scanIter{s: s, ctx: ctx, cmd: cmd}
	if lo > hi || (lo == hi && cmd.End != nil && !cmd.End.Inclusive) {
		return it, nil // an empty range; the cluster would read it as wrapping
	}
	where := ""
	if len(conds) > 0 {
		where = " WHERE " + conds[0]
		for _, c := range conds[1:] {
			where += " AND " + c
		}
	}
	children, err := s.children(ctx, cmd.Table, where, args)
	if err != nil {
		return nil, err
	}
	it.children = children
	src, err := s.query(ctx, true, fmt.Sprintf(`SELECT token(k), k, %s FROM %s%s`, selectCells, s.homeTable(cmd.Table), where), args...)
	if err != nil {
		return nil, err
	}
	it.home = src
	return it, nil
}

// children lists the registered non-home shards of table in a token range
// (where restricts token(k), which the registry calls token).
func (s *Store) children(ctx context.Context, table backend.TableID, where string, args []any) ([]childRef, error) {
	q := fmt.Sprintf(`SELECT tok, key, shard FROM %s.shards WHERE table_id = ?`, s.keyspace)
	if where != "" {
		q += " AND " + where[len(" WHERE "):]
	}
	q = strings.ReplaceAll(q, "token(k)", "tok")
	release, err := s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	iter := s.session.Query(q, append([]any{int64(table)}, args...)...).WithContext(ctx).Consistency(s.level(ctx)).PageSize(s.opts.PageSize).Iter()
	var out []childRef
	var ref childRef
	var shard int32
	for iter.Scan(&ref.token, &ref.key, &shard) {
		ref.shard = backend.Shard(shard)
		out = append(out, ref)
		ref = childRef{}
	}
	return out, clusterError(iter.Close())
}

type scanIter struct {
	s   *Store
	ctx context.Context
	cmd backend.ScanCommand

	home     *cellSource
	children []childRef
	child    *readIter // the child shard being read, if any

	part   backend.PhysicalPartition // current partition
	inHome bool                      // part is a home shard read from home
	b      rowBuilder
	stats  backend.ReadStats // of finished children and home rows
	err    error
}

// beforeStart reports whether a partition lies before a Start bound that
// names a key (the cluster's token restriction cannot say it).
func (it *scanIter) beforeStart(tok int64, key []byte) bool {
	b := it.cmd.Start
	if b == nil || b.Key == nil || tok != int64(b.Token) {
		return false
	}
	c := bytes.Compare(key, b.Key)
	return c < 0 || (c == 0 && !b.Inclusive)
}

// resumes reports whether rows of key at or before cmd.After are skipped.
func (it *scanIter) resumes(key []byte) bool {
	return it.cmd.After != nil && it.cmd.Start != nil && it.cmd.Start.Key != nil && bytes.Equal(key, it.cmd.Start.Key)
}

func comparePosition(tokA int64, keyA []byte, shardA backend.Shard, tokB int64, keyB []byte, shardB backend.Shard) int {
	switch {
	case tokA < tokB:
		return -1
	case tokA > tokB:
		return 1
	}
	if c := bytes.Compare(keyA, keyB); c != 0 {
		return c
	}
	switch {
	case shardA < shardB:
		return -1
	case shardA > shardB:
		return 1
	}
	return 0
}

func (it *scanIter) Next() bool {
	for it.err == nil {
		if it.child != nil {
			if it.child.Next() {
				if it.resumes(it.part.Key) && bytes.Compare(it.child.Row().Clustering, it.cmd.After) <= 0 {
					continue
				}
				return true
			}
			it.finishChild()
			continue
		}
		if it.inHome && it.home.has && bytes.Equal(it.home.cur.key, it.part.Key) {
			if it.buildHomeRow() {
				return true
			}
			continue
		}
		it.inHome = false
		if !it.openNext() {
			return false
		}
	}
	return false
}

// openNext positions on the next partition in scan order; false at the end.
func (it *scanIter) openNext() bool {
	for {
		if it.home != nil && !it.home.has {
			if err := it.home.close(); err != nil {
				it.err = err
				return false
			}
		}
		homeHas := it.home != nil && it.home.has
		if len(it.children) > 0 {
			ref := it.children[0]
			if !homeHas || comparePosition(ref.token, ref.key, ref.shard, it.home.cur.token, it.home.cur.key, backend.HomeShard) < 0 {
				it.children = it.children[1:]
				if it.beforeStart(ref.token, ref.key) {
					continue
				}
				p := logicalOf(it.cmd.Table, ref.token, ref.key).Physical(ref.shard)
				it.part = p
				it.child = it.s.newReadIter(it.ctx, backend.ReadCommand{Partition: p, Slices: []backend.Slice{backend.FullSlice},
					Static: it.cmd.Static, Now: it.cmd.Now})
				return true
			}
		}
		if !homeHas {
			return false
		}
		cur := &it.home.cur
		it.part = logicalOf(it.cmd.Table, cur.token, cur.key).Physical(backend.HomeShard)
		if it.beforeStart(cur.token, cur.key) {
			it.skipHome()
			continue
		}
		it.inHome = true
		return true
	}
}

func (it *scanIter) finishChild() {
	st := it.child.Stats()
	it.stats.LiveRows += st.LiveRows
	it.stats.Tombstones += st.Tombstones
	it.stats.Bytes += st.Bytes
	if err := it.child.Close(); err != nil {
		it.err = err
	}
	it.child = nil
}

// skipHome moves the home source past the current partition.
func (it *scanIter) skipHome() {
	for it.home.has && bytes.Equal(it.home.cur.key, it.part.Key) {
		it.home.advance()
	}
	it.inHome = false
}

// buildHomeRow folds the next row of the current home partition; false
// when it is not to be yielded (markers, a static row not asked for, a
// dead row, a row before the resume point).
func (it *scanIter) buildHomeRow() bool {
	src := it.home
	kind, c := src.cur.kind, append([]byte{}, src.cur.c...)
	skip := kind == kindMarker || (kind == kindStatic && !it.cmd.Static)
	if !skip && it.resumes(it.part.Key) && (kind == kindStatic || bytes.Compare(c, it.cmd.After) <= 0) {
		skip = true
	}
	it.b.reset(kind, c)
	for src.has && bytes.Equal(src.cur.key, it.part.Key) && src.cur.kind == kind && bytes.Equal(src.cur.c, c) {
		if !skip {
			it.b.add(&src.cur)
		}
		src.advance()
	}
	if skip {
		return false
	}
	if !it.b.finish(it.cmd.Now) {
		it.stats.Tombstones++
		return false
	}
	it.stats.LiveRows++
	it.stats.Bytes += it.b.bytes
	return true
}

func (it *scanIter) Row() *backend.Row {
	if it.child != nil {
		return it.child.Row()
	}
	return &it.b.row
}

func (it *scanIter) Partition() backend.PhysicalPartition { return it.part }

func (it *scanIter) SkipPartition() {
	if it.child != nil {
		it.finishChild()
		return
	}
	if it.inHome {
		it.skipHome()
	}
}

func (it *scanIter) Stats() backend.ReadStats {
	st := it.stats
	if it.child != nil {
		c := it.child.Stats()
		st.LiveRows, st.Tombstones, st.Bytes = st.LiveRows+c.LiveRows, st.Tombstones+c.Tombstones, st.Bytes+c.Bytes
	}
	return st
}

func (it *scanIter) Err() error { return it.err }

func (it *scanIter) Close() error {
	if it.child != nil {
		_ = it.child.Close()
		it.child = nil
	}
	err := it.home.close()
	if it.err != nil {
		return it.err
	}
	return err
}
