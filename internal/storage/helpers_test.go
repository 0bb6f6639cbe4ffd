package storage

import (
	"context"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/token"
)

// openMem opens a store on an in-memory file system.
// cleanupTester is what both *testing.T and *rapid.T provide.
type cleanupTester interface {
	tester
	Cleanup(func())
}

func openMem(t cleanupTester, opts Options) *Store {
	t.Helper()
	if opts.fs == nil {
		opts.fs = vfs.NewMem()
	}
	if opts.Dir == "" {
		opts.Dir = "db"
	}
	opts.NoSync = true
	s, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// flush moves the memtable to sstables (a test hook: merges then meet
// across levels).
func (s *Store) flush() error { return s.db.Flush() }

// compactAll compacts every key, so merge operands are folded by Pebble's
// compaction rather than by reads.
func (s *Store) compactAll() error {
	return s.db.Compact(context.Background(), []byte{prefixMeta}, []byte{prefixData + 1}, false)
}

func testPartition(table backend.TableID, key string, shard backend.Shard) backend.PhysicalPartition {
	k := []byte(key)
	return backend.LogicalPartition{Table: table, Token: token.Of(k), Key: k}.Physical(shard)
}

// ck encodes an integer clustering key so that byte order is numeric order.
func ck(i int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(i)) }

func regularCell(col backend.ColumnID, value string, ts int64) backend.Cell {
	return backend.Cell{Column: col, Value: []byte(value), Timestamp: ts, LocalDeletionTime: backend.NoDeletionTime}
}

func expiringCell(col backend.ColumnID, value string, ts int64, ttl int32, expiresAt int64) backend.Cell {
	return backend.Cell{Column: col, Value: []byte(value), Timestamp: ts, TTL: ttl, LocalDeletionTime: expiresAt}
}

func tombstoneCell(col backend.ColumnID, ts, ldt int64) backend.Cell {
	return backend.Cell{Column: col, Timestamp: ts, LocalDeletionTime: ldt}
}

func deletion(ts, ldt int64) backend.DeletionTime {
	return backend.DeletionTime{MarkedForDeleteAt: ts, LocalDeletionTime: ldt}
}

// rowOf builds a row with a row marker at ts (none if ts is NoTimestamp).
func rowOf(clustering []byte, ts int64, cells ...backend.Cell) backend.Row {
	r := backend.NewRow(clustering)
	if ts != backend.NoTimestamp {
		r.Liveness = backend.Liveness{Timestamp: ts, ExpiresAt: backend.NoDeletionTime}
	}
	r.Cells = cells
	return r
}

func mustApply(t tester, s *Store, muts ...backend.Mutation) {
	t.Helper()
	if err := s.Apply(context.Background(), &backend.WriteBatch{Mutations: muts}); err != nil {
		t.Fatal(err)
	}
}

// drain reads every row of it, copied, and its final stats.
func drain(t tester, it backend.RowIterator) ([]backend.Row, backend.ReadStats) {
	t.Helper()
	var rows []backend.Row
	for it.Next() {
		rows = append(rows, copyRow(it.Row()))
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	st := it.Stats()
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	return rows, st
}

func readRows(t tester, s *Store, cmd backend.ReadCommand) ([]backend.Row, backend.ReadStats) {
	t.Helper()
	it, err := s.Read(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	return drain(t, it)
}

func copyRow(r *backend.Row) backend.Row {
	out := *r
	out.Clustering = clone(r.Clustering)
	if r.Clustering == nil {
		out.Clustering = nil
	}
	out.Cells = nil
	for _, c := range r.Cells {
		c.Value = clone(c.Value)
		if c.Path != nil {
			c.Path = clone(c.Path)
		}
		out.Cells = append(out.Cells, c)
	}
	out.ComplexDeletions = append([]backend.ComplexDeletion(nil), r.ComplexDeletions...)
	return out
}

// fmtRow prints everything a row carries, one canonical line; nil and empty
// byte strings print alike except for paths (nil: simple column).
func fmtRow(r *backend.Row) string {
	var b strings.Builder
	if r.Clustering == nil {
		b.WriteString("static:")
	} else {
		fmt.Fprintf(&b, "%s:", fmtKey(r.Clustering))
	}
	if l := r.Liveness; !l.IsEmpty() {
		fmt.Fprintf(&b, " marker@%d", l.Timestamp)
		if l.IsExpiring() {
			fmt.Fprintf(&b, ",ttl=%d,exp=%d", l.TTL, l.ExpiresAt)
		}
	}
	if !r.Deletion.IsLive() {
		fmt.Fprintf(&b, " rowdel=%s", fmtDeletion(r.Deletion))
	}
	for _, cd := range r.ComplexDeletions {
		fmt.Fprintf(&b, " c%d{}del=%s", cd.Column, fmtDeletion(cd.Deletion))
	}
	for i := range r.Cells {
		b.WriteString(" ")
		b.WriteString(fmtCell(&r.Cells[i]))
	}
	return b.String()
}

func fmtCell(c *backend.Cell) string {
	var b strings.Builder
	fmt.Fprintf(&b, "c%d", c.Column)
	if c.Path != nil {
		fmt.Fprintf(&b, "[%s]", fmtKey(c.Path))
	}
	switch {
	case c.IsTombstone():
		fmt.Fprintf(&b, "=tomb@%d,ldt=%d", c.Timestamp, c.LocalDeletionTime)
	case c.IsExpiring():
		fmt.Fprintf(&b, "=%s@%d,ttl=%d,exp=%d", fmtKey(c.Value), c.Timestamp, c.TTL, c.LocalDeletionTime)
	default:
		fmt.Fprintf(&b, "=%s@%d", fmtKey(c.Value), c.Timestamp)
	}
	return b.String()
}

func fmtDeletion(d backend.DeletionTime) string {
	if d.IsLive() {
		return "live"
	}
	return fmt.Sprintf("%d/%d", d.MarkedForDeleteAt, d.LocalDeletionTime)
}

// fmtKey prints printable keys as text and others in hex.
func fmtKey(k []byte) string {
	for _, c := range k {
		if c < 0x21 || c > 0x7e || c == '=' || c == ',' || c == '@' {
			return fmt.Sprintf("0x%x", k)
		}
	}
	if len(k) == 0 {
		return `""`
	}
	return string(k)
}

func fmtRows(rows []backend.Row) string {
	var b strings.Builder
	for i := range rows {
		b.WriteString(fmtRow(&rows[i]))
		b.WriteString("\n")
	}
	return b.String()
}

// rawEntry is one stored key with its merged value, as a raw dump sees it.
type rawEntry struct {
	partition backend.PhysicalPartition
	kind      byte
	suffix    []byte
	value     []byte
}

// rawDump returns every data key of a table with its merged value (the
// unexported view GC tests check: what is physically there, not what a read
// shows).
func rawDump(t testing.TB, s *Store, table backend.TableID) []rawEntry {
	t.Helper()
	lo, hi := tableRange(table)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []rawEntry
	for ok := it.First(); ok; ok = it.Next() {
		d, err := decodeDataKey(it.Key())
		if err != nil {
			t.Fatal(err)
		}
		v, err := it.ValueAndErr()
		if err != nil {
			t.Fatal(err)
		}
		d.partition.Key = clone(d.partition.Key)
		out = append(out, rawEntry{partition: d.partition, kind: d.kind, suffix: clone(d.suffix), value: clone(v)})
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	return out
}

// fmtRaw prints a raw dump, one key a line.
func fmtRaw(t testing.TB, entries []rawEntry) string {
	t.Helper()
	var b strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&b, "%s/%d ", e.partition.Key, e.partition.Shard)
		switch e.kind {
		case kindHeader:
			h, err := decodeHeader(e.value)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "header: del=%s max=%s rows=%d tombs=%d\n", fmtDeletion(h.deletion),
				fmtTimestamp(h.maxTimestamp), h.rowsWritten, h.tombstonesWritten)
		case kindRangeTS:
			sl, err := decodeRangeTombstoneSuffix(e.suffix)
			if err != nil {
				t.Fatal(err)
			}
			d, err := decodeDeletion(e.value)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "range %s: %s\n", fmtSlice(sl), fmtDeletion(d))
		case kindStatic, kindRow:
			var r backend.Row
			if err := decodeRow(e.value, &r, true); err != nil {
				t.Fatal(err)
			}
			if e.kind == kindRow {
				r.Clustering = e.suffix
			}
			fmt.Fprintf(&b, "%s\n", fmtRow(&r))
		default:
			t.Fatalf("unknown kind %d", e.kind)
		}
	}
	return b.String()
}

func fmtTimestamp(ts int64) string {
	if ts == backend.NoTimestamp {
		return "none"
	}
	return fmt.Sprint(ts)
}

func fmtSlice(sl backend.Slice) string {
	end := "*"
	if sl.End != nil {
		end = fmtKey(sl.End)
	}
	start := "*"
	if len(sl.Start) > 0 {
		start = fmtKey(sl.Start)
	}
	return fmt.Sprintf("[%s,%s)", start, end)
}

// sortCells puts cells in (column, path) order, as backend.Row requires.
func sortCells(cells []backend.Cell) {
	sort.Slice(cells, func(i, j int) bool { return backend.ComparePosition(&cells[i], &cells[j]) < 0 })
}
