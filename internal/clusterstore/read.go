package clusterstore

import (
	"bytes"
	"context"
	"fmt"
	"sort"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/token"
)

// backingCell is one backing row as a read returns it.
type backingCell struct {
	token int64  // scans only
	key   []byte // scans only
	kind  int8
	c     []byte
	col   int64
	path  []byte
	gen   int64
	v     []byte
	ts    int64
	ttl   int   // the TTL written, 0 for none
	exp   int64 // the expiration time written (seconds), for a TTL
}

const selectCells = `kind, c, col, path, gen, v, writetime(v), ttl, exp`

// cellSource streams the backing rows of one query, paging by hand: the
// first page is firstPageSize backing rows and each next one four times the
// last, up to the store's PageSize. A caller often wants a few rows only
// (the engine's page of a paged scan, a LIMIT, a read-before-write), and
// the cluster reads and sends a whole page before the first row arrives: a
// 5,000-row first page made each 7-row page of a paged scan cost a
// 5,000-row read of the cluster. A caller that reads on pays a handful
// of extra round trips before its pages reach full size.
type cellSource struct {
	it   *gocql.Iter
	scan bool // the query selects token(k) and k first
	cur  backingCell
	has  bool
	done bool

	query    func(state []byte, size int) *gocql.Iter // the query at a page
	state    []byte                                   // the paging state of the next page; nil after the last
	pageSize int                                      // the size of the page being read
	maxPage  int
	err      error // of a page already read
}

// firstPageSize is the first page of a read, in backing rows: a few
// logical rows of a few columns each.
const firstPageSize = 100

func (src *cellSource) advance() bool {
	if src.done {
		src.has = false
		return false
	}
	c := &src.cur
	for {
		// The driver decodes a blob into the slice it is given, reusing
		// its array: start from fresh ones, as callers keep earlier cells.
		*c = backingCell{}
		var ok bool
		if src.scan {
			ok = src.it.Scan(&c.token, &c.key, &c.kind, &c.c, &c.col, &c.path, &c.gen, &c.v, &c.ts, &c.ttl, &c.exp)
		} else {
			ok = src.it.Scan(&c.kind, &c.c, &c.col, &c.path, &c.gen, &c.v, &c.ts, &c.ttl, &c.exp)
		}
		if ok {
			break
		}
		if !src.nextPage() {
			src.done, src.has = true, false
			return false
		}
	}
	// The driver reads an empty blob as nil, which binds as null.
	c.c, c.path, c.v = nonNil(c.c), nonNil(c.path), nonNil(c.v)
	src.has = true
	return true
}

// nextPage moves to the query's next page; false after the last page or
// on an error, which close returns.
func (src *cellSource) nextPage() bool {
	if err := src.it.Close(); err != nil {
		src.err = err
		return false
	}
	if len(src.state) == 0 {
		return false
	}
	src.pageSize = min(4*src.pageSize, src.maxPage)
	src.it = src.query(src.state, src.pageSize)
	src.state = src.it.PageState()
	return true
}

func (src *cellSource) close() error {
	if src == nil || src.it == nil {
		return nil
	}
	err := src.it.Close()
	src.it = nil
	if src.err != nil {
		err = src.err
	}
	return clusterError(err)
}

// query starts a read; only its first round trip holds an in-flight slot
// (later pages are fetched as the consumer advances).
func (s *Store) query(ctx context.Context, scan bool, cql string, values ...any) (*cellSource, error) {
	release, err := s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	level := s.level(ctx)
	src := &cellSource{scan: scan, maxPage: s.opts.PageSize, pageSize: min(firstPageSize, s.opts.PageSize),
		query: func(state []byte, size int) *gocql.Iter {
			// PageState turns the driver's own paging off: each page is
			// asked for here, at its size.
			return s.session.Query(cql, values...).WithContext(ctx).Consistency(level).PageSize(size).PageState(state).Iter()
		}}
	src.it = src.query(nil, src.pageSize)
	src.state = src.it.PageState()
	src.advance()
	return src, nil
}

// rowBuilder folds the backing cells of one logical row into a backend.Row
// (invariant 1: versions of one cell in several generations reconcile).
type rowBuilder struct {
	row   backend.Row
	cells []backend.Cell
	bytes int64
}

func (b *rowBuilder) reset(kind int8, c []byte) {
	clustering := append([]byte{}, c...)
	if kind == kindStatic {
		clustering = nil
	}
	b.row = backend.NewRow(clustering)
	b.cells = b.cells[:0]
	b.bytes = int64(len(c))
}

func (b *rowBuilder) add(bc *backingCell) {
	b.bytes += int64(len(bc.v)+len(bc.path)) + 16
	if bc.col == livenessColumn {
		l := backend.Liveness{Timestamp: bc.ts, ExpiresAt: backend.NoDeletionTime}
		if bc.ttl > 0 {
			l.TTL, l.ExpiresAt = int32(bc.ttl), bc.exp
		}
		if l.Supersedes(b.row.Liveness) {
			b.row.Liveness = l
		}
		return
	}
	cell := backend.Cell{Column: backend.ColumnID(bc.col), Path: decodePath(bc.path), Value: append([]byte{}, bc.v...),
		Timestamp: bc.ts, LocalDeletionTime: backend.NoDeletionTime}
	if bc.ttl > 0 {
		cell.TTL, cell.LocalDeletionTime = int32(bc.ttl), bc.exp
	}
	b.cells = append(b.cells, cell)
}

// finish sorts and reconciles the cells and reports whether the row is
// live at now.
func (b *rowBuilder) finish(now int64) bool {
	sort.SliceStable(b.cells, func(i, j int) bool { return backend.ComparePosition(&b.cells[i], &b.cells[j]) < 0 })
	out := make([]backend.Cell, 0, len(b.cells))
	for i := range b.cells {
		if n := len(out); n > 0 && backend.ComparePosition(&out[n-1], &b.cells[i]) == 0 {
			out[n-1] = *backend.Reconcile(&out[n-1], &b.cells[i])
			continue
		}
		out = append(out, b.cells[i])
	}
	b.row.Cells = out
	b.row.LiveCells(now)
	return b.row.HasLiveData(now)
}

// segment is one query of a read, run when the read reaches it.
type segment func() (*cellSource, error)

// readIter yields the rows of one physical partition, segment by segment.
type readIter struct {
	part     backend.PhysicalPartition
	now      int64
	segments []segment
	src      *cellSource
	b        rowBuilder
	stats    backend.ReadStats
	err      error
}

// Read implements backend.Backend.
func (s *Store) Read(ctx context.Context, cmd backend.ReadCommand) (backend.RowIterator, error) {
	if err := s.ensureTable(ctx, cmd.Partition.Table); err != nil {
		return nil, err
	}
	return s.newReadIter(ctx, cmd), nil
}

func (s *Store) newReadIter(ctx context.Context, cmd backend.ReadCommand) *readIter {
	table, cond, vals := s.where(cmd.Partition)
	it := &readIter{part: cmd.Partition, now: cmd.Now}
	if cmd.Static {
		it.segments = append(it.segments, func() (*cellSource, error) {
			return s.query(ctx, false, fmt.Sprintf(`SELECT %s FROM %s WHERE %s AND kind = ?`, selectCells, table, cond),
				append(append([]any{}, vals...), kindStatic)...)
		})
	}
	order := ""
	if cmd.Reverse {
		order = " ORDER BY kind DESC"
	}
	slices := append([]backend.Slice(nil), cmd.Slices...)
	if cmd.Reverse {
		for i, j := 0, len(slices)-1; i < j; i, j = i+1, j-1 {
			slices[i], slices[j] = slices[j], slices[i]
		}
	}
	for _, sl := range slices {
		if sl.IsEmpty() {
			continue
		}
		q := fmt.Sprintf(`SELECT %s FROM %s WHERE %s AND kind = ? AND c >= ?`, selectCells, table, cond)
		args := append(append([]any{}, vals...), kindRow, nonNil(sl.Start))
		if sl.End != nil {
			q += ` AND c < ?`
			args = append(args, sl.End)
		}
		q += order
		it.segments = append(it.segments, func() (*cellSource, error) { return s.query(ctx, false, q, args...) })
	}
	return it
}

func (it *readIter) Next() bool {
	for it.err == nil {
		if it.src == nil || !it.src.has {
			if err := it.src.close(); err != nil {
				it.err = err
				return false
			}
			it.src = nil
			if len(it.segments) == 0 {
				return false
			}
			src, err := it.segments[0]()
			it.segments = it.segments[1:]
			if err != nil {
				it.err = err
				return false
			}
			it.src = src
			continue
		}
		if it.buildRow() {
			return true
		}
	}
	return false
}

// buildRow folds the source's next logical row; false when it is not live.
func (it *readIter) buildRow() bool {
	first := &it.src.cur
	kind, c := first.kind, append([]byte{}, first.c...)
	it.b.reset(kind, c)
	for it.src.has && it.src.cur.kind == kind && bytes.Equal(it.src.cur.c, c) {
		it.b.add(&it.src.cur)
		it.src.advance()
	}
	if !it.b.finish(it.now) {
		it.stats.Tombstones++ // a row whose cells have all expired
		return false
	}
	it.stats.LiveRows++
	it.stats.Bytes += it.b.bytes
	return true
}

func (it *readIter) Row() *backend.Row                    { return &it.b.row }
func (it *readIter) Partition() backend.PhysicalPartition { return it.part }
func (it *readIter) SkipPartition()                       { it.segments = nil; _ = it.src.close(); it.src = nil }
func (it *readIter) Stats() backend.ReadStats             { return it.stats }
func (it *readIter) Err() error                           { return it.err }
func (it *readIter) Close() error {
	err := it.src.close()
	it.src, it.segments = nil, nil
	if it.err != nil {
		return it.err
	}
	return err
}

// logicalOf rebuilds the logical partition of a scanned backing row.
func logicalOf(table backend.TableID, tok int64, key []byte) backend.LogicalPartition {
	return backend.LogicalPartition{Table: table, Token: token.Token(tok), Key: append([]byte{}, key...)}
}
