package storage

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/partita-db/partita/internal/backend"
)

// TestLWWThroughPebble checks every tie rule of backend.Reconcile (Cassandra's
// Cells.resolveRegular, CASSANDRA-14592) on versions that meet in Pebble's
// merge operator: in either order, in one batch, across a flush, and
// folded by a compaction.
func TestLWWThroughPebble(t *testing.T) {
	const now = 100
	tests := []struct {
		name string
		a, b backend.Cell
		want string // the visible winner; "" when the winner is not live
	}{
		{"higher timestamp wins", regularCell(1, "a", 10), regularCell(1, "b", 9), "c1=a@10"},
		{"newer tombstone wins", tombstoneCell(1, 11, 50), regularCell(1, "z", 10), ""},
		{"older tombstone loses", tombstoneCell(1, 9, 50), regularCell(1, "x", 10), "c1=x@10"},
		{"tombstone beats live at equal ts", tombstoneCell(1, 10, 50), regularCell(1, "x", 10), ""},
		{"tombstone beats expiring at equal ts", tombstoneCell(1, 10, 50), expiringCell(1, "x", 10, 1000, 5000), ""},
		{"expiring beats regular at equal ts", expiringCell(1, "a", 10, 1000, 5000), regularCell(1, "z", 10), "c1=a@10,ttl=1000,exp=5000"},
		{"expired beats regular at equal ts", expiringCell(1, "a", 10, 10, 50), regularCell(1, "z", 10), ""},
		{"later expiry wins", expiringCell(1, "a", 10, 1000, 5000), expiringCell(1, "z", 10, 500, 4500), "c1=a@10,ttl=1000,exp=5000"},
		{"later tombstone deletion time wins", tombstoneCell(1, 10, 60), tombstoneCell(1, 10, 50), ""},
		{"greater value wins", regularCell(1, "b", 10), regularCell(1, "a", 10), "c1=b@10"},
		{"values compare unsigned", regularCell(1, "\x80", 10), regularCell(1, "\x7f", 10), "c1=0x80@10"},
		{"longer value beats its prefix", regularCell(1, "ab", 10), regularCell(1, "a", 10), "c1=ab@10"},
		{"equal versions", regularCell(1, "a", 10), regularCell(1, "a", 10), "c1=a@10"},
		{"collection element", backend.Cell{Column: 3, Path: []byte("k"), Value: []byte("b"), Timestamp: 10, LocalDeletionTime: backend.NoDeletionTime},
			backend.Cell{Column: 3, Path: []byte("k"), Value: []byte("a"), Timestamp: 10, LocalDeletionTime: backend.NoDeletionTime}, "c3[k]=b@10"},
	}
	type mode struct {
		name  string
		write func(t *testing.T, s *Store, p backend.PhysicalPartition, x, y backend.Cell)
	}
	one := func(p backend.PhysicalPartition, c backend.Cell) backend.Mutation {
		m := backend.NewMutation(p)
		m.Rows = []backend.Row{rowOf([]byte("r"), backend.NoTimestamp, c)}
		return m
	}
	modes := []mode{
		{"two batches", func(t *testing.T, s *Store, p backend.PhysicalPartition, x, y backend.Cell) {
			mustApply(t, s, one(p, x))
			mustApply(t, s, one(p, y))
		}},
		{"one batch", func(t *testing.T, s *Store, p backend.PhysicalPartition, x, y backend.Cell) {
			mustApply(t, s, one(p, x), one(p, y))
		}},
		{"flush between", func(t *testing.T, s *Store, p backend.PhysicalPartition, x, y backend.Cell) {
			mustApply(t, s, one(p, x))
			if err := s.flush(); err != nil {
				t.Fatal(err)
			}
			mustApply(t, s, one(p, y))
		}},
		{"compacted", func(t *testing.T, s *Store, p backend.PhysicalPartition, x, y backend.Cell) {
			mustApply(t, s, one(p, x))
			if err := s.flush(); err != nil {
				t.Fatal(err)
			}
			mustApply(t, s, one(p, y))
			if err := s.compactAll(); err != nil {
				t.Fatal(err)
			}
		}},
	}
	s := openMem(t, Options{})
	n := 0
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The expectation agrees with the reconciliation rule itself.
			if w := backend.Reconcile(&tc.a, &tc.b); w.IsLive(now) != (tc.want != "") || (tc.want != "" && fmtCell(w) != tc.want) {
				t.Fatalf("backend.Reconcile picks %s, test wants %q", fmtCell(w), tc.want)
			}
			for _, md := range modes {
				for _, order := range []string{"ab", "ba"} {
					t.Run(md.name+"/"+order, func(t *testing.T) {
						n++
						p := testPartition(1, fmt.Sprintf("p%d", n), 0)
						x, y := tc.a, tc.b
						if order == "ba" {
							x, y = y, x
						}
						md.write(t, s, p, x, y)
						rows, _ := readRows(t, s, backend.ReadCommand{Partition: p, Slices: []backend.Slice{backend.FullSlice}, Now: now})
						got := ""
						if len(rows) == 1 && len(rows[0].Cells) == 1 {
							got = fmtCell(&rows[0].Cells[0])
						} else if len(rows) > 0 {
							t.Fatalf("rows: %s", fmtRows(rows))
						}
						if got != tc.want {
							t.Errorf("visible %q, want %q", got, tc.want)
						}
					})
				}
			}
		})
	}
}

// TestMergeOrderIndependence applies one set of writes and deletions in
// random orders, random batch splits, with flushes and compactions at
// random points, and requires every order to read the same as the
// generated order and as a model built from package backend's rules
// (invariants 2 to 4).
func TestMergeOrderIndependence(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ops := rapid.SliceOfN(genOp(), 1, 24).Draw(t, "ops")
		a := openMem(t, Options{})
		for _, op := range ops {
			mustApply(t, a, op)
		}
		want := readPartitions(t, a)
		if model := modelRead(ops); model != want {
			t.Fatalf("store reads\n%s\nmodel reads\n%s", want, model)
		}

		// Folding every write, or every second or third, must read the same.
		b := openMem(t, Options{foldAfter: rapid.IntRange(0, 3).Draw(t, "foldAfter")})
		perm := rapid.Permutation(ops).Draw(t, "order")
		for len(perm) > 0 {
			n := rapid.IntRange(1, len(perm)).Draw(t, "batch")
			mustApply(t, b, perm[:n]...)
			perm = perm[n:]
			switch rapid.IntRange(0, 3).Draw(t, "between") {
			case 1:
				if err := b.flush(); err != nil {
					t.Fatal(err)
				}
			case 2:
				if err := b.compactAll(); err != nil {
					t.Fatal(err)
				}
			}
		}
		if got := readPartitions(t, b); got != want {
			t.Fatalf("reordered writes read\n%s\nin-order writes read\n%s", got, want)
		}
	})
}

const orderNow = 100

var orderPartitions = []backend.PhysicalPartition{testPartition(1, "p0", 0), testPartition(1, "p1", 0)}

// genOp draws one mutation: row writes (markers, simple and collection
// cells, regular, expiring and tombstones), row, collection, range and
// partition deletions, and static writes. Timestamps collide often so the
// tie rules matter; expiry falls on both sides of orderNow.
func genOp() *rapid.Generator[backend.Mutation] {
	keys := [][]byte{[]byte("a"), []byte("b"), []byte("c"), []byte("d")}
	return rapid.Custom(func(t *rapid.T) backend.Mutation {
		m := backend.NewMutation(rapid.SampledFrom(orderPartitions).Draw(t, "partition"))
		ts := func() int64 { return rapid.Int64Range(1, 12).Draw(t, "ts") }
		del := func() backend.DeletionTime { return deletion(ts(), rapid.Int64Range(1, 50).Draw(t, "ldt")) }
		cell := func(col backend.ColumnID, path []byte) backend.Cell {
			v := rapid.SampledFrom([]string{"x", "y", "z"}).Draw(t, "value")
			switch rapid.IntRange(0, 3).Draw(t, "cellKind") {
			case 0:
				return tombstoneCell(col, ts(), rapid.Int64Range(1, 50).Draw(t, "ldt"))
			case 1:
				c := expiringCell(col, v, ts(), 60, rapid.SampledFrom([]int64{90, 110, 120}).Draw(t, "exp"))
				c.Path = path
				return c
			}
			c := regularCell(col, v, ts())
			c.Path = path
			return c
		}
		row := func(clustering []byte) backend.Row {
			r := backend.NewRow(clustering)
			if rapid.Bool().Draw(t, "marker") {
				r.Liveness = backend.Liveness{Timestamp: ts(), ExpiresAt: backend.NoDeletionTime}
				if rapid.Bool().Draw(t, "expiringMarker") {
					r.Liveness.TTL, r.Liveness.ExpiresAt = 60, rapid.SampledFrom([]int64{90, 110}).Draw(t, "markerExp")
				}
			}
			for col := backend.ColumnID(1); col <= 2; col++ {
				if rapid.Bool().Draw(t, "hasCell") {
					r.Cells = append(r.Cells, cell(col, nil))
				}
			}
			for _, path := range []string{"k1", "k2"} {
				if rapid.Bool().Draw(t, "hasElement") {
					r.Cells = append(r.Cells, cell(3, []byte(path)))
				}
			}
			if rapid.IntRange(0, 4).Draw(t, "collectionDeleted") == 0 {
				r.ComplexDeletions = []backend.ComplexDeletion{{Column: 3, Deletion: del()}}
			}
			return r
		}
		switch rapid.IntRange(0, 9).Draw(t, "opKind") {
		case 0:
			m.PartitionDeletion = del()
		case 1, 2:
			sl := backend.Slice{Start: rapid.SampledFrom(append(keys, nil)).Draw(t, "start"),
				End: rapid.SampledFrom(append(keys, nil)).Draw(t, "end")}
			m.RangeTombstones = []backend.RangeTombstone{{Slice: sl, Deletion: del()}}
		case 3:
			r := backend.NewRow(rapid.SampledFrom(keys).Draw(t, "row"))
			r.Deletion = del()
			m.Rows = []backend.Row{r}
		case 4:
			st := row(nil)
			st.Liveness = backend.NoLiveness
			m.Static = &st
		default:
			for _, k := range keys {
				if rapid.IntRange(0, 2).Draw(t, "writeRow") == 0 {
					m.Rows = append(m.Rows, row(k))
				}
			}
		}
		return m
	})
}

// readPartitions prints what every test partition reads at orderNow,
// forward with its static row and in reverse, keeping only visible data
// (a row's own deletions are internal state that may legitimately differ).
func readPartitions(t tester, s *Store) string {
	var b strings.Builder
	for _, p := range orderPartitions {
		for _, reverse := range []bool{false, true} {
			it, err := s.Read(context.Background(), backend.ReadCommand{Partition: p, Slices: []backend.Slice{backend.FullSlice},
				Static: true, Reverse: reverse, Now: orderNow})
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s reverse=%t\n", p.Key, reverse)
			for it.Next() {
				r := visible(it.Row())
				b.WriteString(fmtRow(&r) + "\n")
			}
			if err := it.Err(); err != nil {
				t.Fatal(err)
			}
			_ = it.Close()
		}
	}
	return b.String()
}

func visible(r *backend.Row) backend.Row {
	out := copyRow(r)
	out.Deletion = backend.LiveDeletion
	out.ComplexDeletions = nil
	return out
}

// modelRead is readPartitions computed from ops with backend's merge and
// purge rules alone.
func modelRead(ops []backend.Mutation) string {
	var b strings.Builder
	for _, p := range orderPartitions {
		pd := backend.LiveDeletion
		var tombs []backend.RangeTombstone
		static := backend.NewRow(nil)
		rows := map[string]*backend.Row{}
		for _, m := range ops {
			if !m.Partition.LogicalPartition.Equal(p.LogicalPartition) {
				continue
			}
			pd = pd.Max(m.PartitionDeletion)
			tombs = append(tombs, m.RangeTombstones...)
			if m.Static != nil {
				src := copyRow(m.Static)
				backend.MergeInto(&static, &src, nil)
			}
			for i := range m.Rows {
				src := copyRow(&m.Rows[i])
				dst, ok := rows[string(src.Clustering)]
				if !ok {
					r := backend.NewRow(src.Clustering)
					dst = &r
					rows[string(src.Clustering)] = dst
				}
				backend.MergeInto(dst, &src, nil)
			}
		}
		var keys []string
		for k := range rows {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var out []string
		for _, k := range keys {
			d := pd
			for _, rt := range tombs {
				if rt.Slice.Contains([]byte(k)) {
					d = d.Max(rt.Deletion)
				}
			}
			if line, ok := modelLive(rows[k], d); ok {
				out = append(out, line)
			}
		}
		staticLine, staticOK := modelLive(&static, pd)
		for _, reverse := range []bool{false, true} {
			fmt.Fprintf(&b, "%s reverse=%t\n", p.Key, reverse)
			if staticOK {
				b.WriteString(staticLine + "\n")
			}
			for i := range out {
				j := i
				if reverse {
					j = len(out) - 1 - i
				}
				b.WriteString(out[j] + "\n")
			}
		}
	}
	return b.String()
}

func modelLive(r *backend.Row, d backend.DeletionTime) (string, bool) {
	row := copyRow(r)
	row.Purge(d)
	row.LiveCells(orderNow)
	if !row.Liveness.IsLive(orderNow) {
		row.Liveness = backend.NoLiveness
	}
	if row.Liveness.IsEmpty() && len(row.Cells) == 0 {
		return "", false
	}
	v := visible(&row)
	return fmtRow(&v), true
}

// TestCoalesceDoesNotWriteIntoCallerArrays: mutations of one partition in
// a batch are merged without appending into the caller's slices.
func TestCoalesceDoesNotWriteIntoCallerArrays(t *testing.T) {
	p := testPartition(1, "k", 0)
	backing := make([]backend.Row, 1, 4)
	backing[0] = rowOf([]byte("a"), 1)
	spare := backing[:2]
	spare[1] = rowOf([]byte("untouched"), 1)
	m1, m2 := backend.NewMutation(p), backend.NewMutation(p)
	m1.Rows = backing[:1]
	m2.Rows = []backend.Row{rowOf([]byte("b"), 2)}
	out := coalesce([]backend.Mutation{m1, m2})
	if len(out) != 1 || len(out[0].Rows) != 2 {
		t.Fatalf("coalesce: %+v", out)
	}
	if !bytes.Equal(spare[1].Clustering, []byte("untouched")) {
		t.Errorf("coalesce wrote into the caller's array: %q", spare[1].Clustering)
	}
}
