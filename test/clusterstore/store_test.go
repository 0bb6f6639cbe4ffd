package clusterstore_test

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/clusterstore"
	"github.com/partita-db/partita/internal/token"
)

const table backend.TableID = 7

func logical(key string) backend.LogicalPartition {
	k := []byte(key)
	return backend.LogicalPartition{Table: table, Token: token.Of(k), Key: k}
}

func cell(col backend.ColumnID, value string, ts int64) backend.Cell {
	return backend.Cell{Column: col, Value: []byte(value), Timestamp: ts, LocalDeletionTime: backend.NoDeletionTime}
}

func row(ck string, ts int64, cells ...backend.Cell) backend.Row {
	r := backend.NewRow([]byte(ck))
	if ts != 0 {
		r.Liveness = backend.Liveness{Timestamp: ts, ExpiresAt: backend.NoDeletionTime}
	}
	r.Cells = cells
	return r
}

func apply(t *testing.T, st *clusterstore.Store, ms ...backend.Mutation) {
	t.Helper()
	if err := st.Apply(context.Background(), &backend.WriteBatch{Mutations: ms}); err != nil {
		t.Fatal(err)
	}
}

func mutation(p backend.PhysicalPartition, rows ...backend.Row) backend.Mutation {
	m := backend.NewMutation(p)
	m.Rows = rows
	return m
}

// dump prints what an iterator yields, one row a line:
// shard/key ck: liveness-ts col=value@ts[ttl] ...
func dump(t *testing.T, it backend.RowIterator) string {
	t.Helper()
	defer it.Close()
	var b strings.Builder
	for it.Next() {
		r := it.Row()
		p := it.Partition()
		ck := "static"
		if r.Clustering != nil {
			ck = string(r.Clustering)
		}
		fmt.Fprintf(&b, "%s/%d %s:", p.Key, p.Shard, ck)
		if !r.Liveness.IsEmpty() {
			fmt.Fprintf(&b, " live@%d", r.Liveness.Timestamp)
			if r.Liveness.TTL > 0 {
				b.WriteString("[ttl]")
			}
		}
		for _, c := range r.Cells {
			fmt.Fprintf(&b, " %d", c.Column)
			if c.Path != nil {
				fmt.Fprintf(&b, "[%s]", c.Path)
			}
			fmt.Fprintf(&b, "=%s@%d", c.Value, c.Timestamp)
			if c.TTL > 0 {
				b.WriteString("[ttl]")
			}
		}
		b.WriteString("\n")
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func read(t *testing.T, st *clusterstore.Store, p backend.PhysicalPartition, reverse bool, slices ...backend.Slice) string {
	t.Helper()
	if slices == nil {
		slices = []backend.Slice{backend.FullSlice}
	}
	it, err := st.Read(context.Background(), backend.ReadCommand{Partition: p, Slices: slices, Reverse: reverse, Static: true, Now: time.Now().Unix()})
	if err != nil {
		t.Fatal(err)
	}
	return dump(t, it)
}

func expect(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\ngot:\n%swant:\n%s", what, got, want)
	}
}

func TestApplyReadTimestampsAndDeletions(t *testing.T) {
	st := openStore(t)
	p := logical("p1").Physical(backend.HomeShard)
	apply(t, st, mutation(p, row("a", 100, cell(1, "x", 100), cell(2, "y", 100)), row("b", 100, cell(1, "z", 100))))
	// An older write loses to the newer cell; a newer one wins.
	apply(t, st, mutation(p, row("a", 0, cell(1, "old", 50), cell(2, "new", 150))))
	expect(t, "last write wins", read(t, st, p, false), "p1/0 a: live@100 1=x@100 2=new@150\np1/0 b: live@100 1=z@100\n")

	// A cell tombstone, then a row deletion, then a write older than it.
	tomb := backend.Cell{Column: 1, Timestamp: 200, LocalDeletionTime: time.Now().Unix()}
	apply(t, st, mutation(p, row("a", 0, tomb)))
	expect(t, "cell tombstone", read(t, st, p, false), "p1/0 a: live@100 2=new@150\np1/0 b: live@100 1=z@100\n")
	del := row("b", 0)
	del.Deletion = backend.DeletionTime{MarkedForDeleteAt: 300, LocalDeletionTime: time.Now().Unix()}
	apply(t, st, mutation(p, del))
	apply(t, st, mutation(p, row("b", 250, cell(1, "late", 250))))
	expect(t, "row deletion shadows older writes", read(t, st, p, false), "p1/0 a: live@100 2=new@150\n")

	// A range deletion [c, e) and a partition deletion.
	apply(t, st, mutation(p, row("c", 400), row("d", 400), row("e", 400)))
	m := backend.NewMutation(p)
	m.RangeTombstones = []backend.RangeTombstone{{Slice: backend.Slice{Start: []byte("c"), End: []byte("e")},
		Deletion: backend.DeletionTime{MarkedForDeleteAt: 450, LocalDeletionTime: time.Now().Unix()}}}
	apply(t, st, m)
	expect(t, "range deletion", read(t, st, p, false), "p1/0 a: live@100 2=new@150\np1/0 e: live@400\n")
	expect(t, "reverse, two slices", read(t, st, p, true, backend.Slice{End: []byte("b")}, backend.Slice{Start: []byte("d")}),
		"p1/0 e: live@400\np1/0 a: live@100 2=new@150\n")
	m = backend.NewMutation(p)
	m.PartitionDeletion = backend.DeletionTime{MarkedForDeleteAt: 400, LocalDeletionTime: time.Now().Unix()}
	apply(t, st, m)
	apply(t, st, mutation(p, row("f", 500)))
	expect(t, "partition deletion", read(t, st, p, false), "p1/0 f: live@500\n")
}

func TestTTLAndStaticAndCollections(t *testing.T) {
	st := openStore(t)
	p := logical("p2").Physical(backend.HomeShard)
	now := time.Now().Unix()
	// TTL 3 s: the read before expiry must come within it even when the
	// write lands at the end of a second on a loaded machine (1 s did not).
	expiring := backend.Cell{Column: 1, Value: []byte("soon"), Timestamp: 10, TTL: 3, LocalDeletionTime: now + 3}
	r := row("a", 0, expiring, cell(2, "stays", 10))
	m := mutation(p, r, backend.Row{Clustering: []byte("b"), Deletion: backend.LiveDeletion,
		Liveness: backend.Liveness{Timestamp: 10, TTL: 3, ExpiresAt: now + 3}})
	static := backend.NewRow(nil)
	static.Cells = []backend.Cell{cell(3, "s", 10)}
	m.Static = &static
	// A set of two elements, then a whole-collection overwrite at 20.
	set := row("c", 10, backend.Cell{Column: 4, Path: []byte("e1"), Value: []byte{}, Timestamp: 10, LocalDeletionTime: backend.NoDeletionTime},
		backend.Cell{Column: 4, Path: []byte("e2"), Value: []byte{}, Timestamp: 10, LocalDeletionTime: backend.NoDeletionTime})
	m.Rows = append(m.Rows, set)
	apply(t, st, m)
	it, err := st.Read(context.Background(), backend.ReadCommand{Partition: p, Slices: []backend.Slice{backend.FullSlice}, Static: true, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, "before expiry", dump(t, it),
		"p2/0 static: 3=s@10\np2/0 a: 1=soon@10[ttl] 2=stays@10\np2/0 b: live@10[ttl]\np2/0 c: live@10 4[e1]=@10 4[e2]=@10\n")
	over := row("c", 0, backend.Cell{Column: 4, Path: []byte("e3"), Value: []byte{}, Timestamp: 20, LocalDeletionTime: backend.NoDeletionTime})
	over.ComplexDeletions = []backend.ComplexDeletion{{Column: 4, Deletion: backend.DeletionTime{MarkedForDeleteAt: 19, LocalDeletionTime: now}}}
	apply(t, st, mutation(p, over))
	time.Sleep(4100 * time.Millisecond)
	expect(t, "after expiry", read(t, st, p, false), "p2/0 static: 3=s@10\np2/0 a: 2=stays@10\np2/0 c: live@10 4[e3]=@20\n")
}

func TestScanOrderChildrenAndResume(t *testing.T) {
	st := openStore(t)
	keys := []string{"k1", "k2", "k3", "k4", "k5", "k6"}
	for _, k := range keys {
		apply(t, st, mutation(logical(k).Physical(backend.HomeShard), row("a", 1), row("b", 1)))
	}
	// Children of k3 (shards 2 and 1) and a child of k5 whose home shard is
	// empty: all appear at their logical place.
	apply(t, st, mutation(logical("k3").Physical(2), row("y", 1)), mutation(logical("k3").Physical(1), row("x", 1)))
	apply(t, st, mutation(logical("k7").Physical(1), row("z", 1)))
	sorted := append([]string{"k7"}, keys...)
	sort.Slice(sorted, func(i, j int) bool { return logical(sorted[i]).Compare(logical(sorted[j])) < 0 })
	var want strings.Builder
	for _, k := range sorted {
		switch k {
		case "k7":
			want.WriteString("k7/1 z:\n")
		case "k3":
			want.WriteString("k3/0 a: live@1\nk3/0 b: live@1\nk3/1 x: live@1\nk3/2 y: live@1\n")
		default:
			fmt.Fprintf(&want, "%s/0 a: live@1\n%s/0 b: live@1\n", k, k)
		}
	}
	want.WriteString("")
	scan := func(cmd backend.ScanCommand) string {
		cmd.Table, cmd.Now = table, time.Now().Unix()
		it, err := st.Scan(context.Background(), cmd)
		if err != nil {
			t.Fatal(err)
		}
		return dump(t, it)
	}
	got := scan(backend.ScanCommand{})
	expect(t, "full scan in token order", strings.ReplaceAll(got, "k7/1 z: live@1", "k7/1 z:"), want.String())

	// Resume after row a of the third partition, then a bound excluding it.
	i := 2
	for sorted[i] == "k3" || sorted[i] == "k7" {
		i++
	}
	sorted = sorted[i-2:] // sorted[2] has home rows only
	third := logical(sorted[2])
	got = scan(backend.ScanCommand{Start: &backend.TokenBound{Token: third.Token, Inclusive: true, Key: third.Key}, After: []byte("a")})
	lines := strings.SplitAfter(got, "\n")
	if !strings.HasPrefix(lines[0], sorted[2]+"/0 b:") {
		t.Errorf("resume: first row %q, want %s/0 b", lines[0], sorted[2])
	}
	got = scan(backend.ScanCommand{Start: &backend.TokenBound{Token: third.Token, Key: third.Key}})
	if strings.Contains(got, sorted[2]+"/") || !strings.HasPrefix(got, sorted[3]+"/") {
		t.Errorf("exclusive key bound: got\n%s", got)
	}
	// A token range.
	got = scan(backend.ScanCommand{Start: &backend.TokenBound{Token: third.Token, Inclusive: true},
		End: &backend.TokenBound{Token: logical(sorted[3]).Token}})
	if !strings.HasPrefix(got, sorted[2]+"/") || strings.Contains(got, sorted[3]+"/") {
		t.Errorf("token range: got\n%s", got)
	}
}

func TestMoveCarriesCellsAndDeletions(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	lp := logical("m1")
	home := lp.Physical(backend.HomeShard)
	now := time.Now().Unix()
	expiring := backend.Cell{Column: 2, Value: []byte("t"), Timestamp: 100, TTL: 3600, LocalDeletionTime: now + 3600}
	apply(t, st, mutation(home, row("a", 100, cell(1, "a1", 100)), row("m", 100, cell(1, "m1", 110), expiring), row("n", 100), row("z", 100)))
	del := row("q", 0)
	del.Deletion = backend.DeletionTime{MarkedForDeleteAt: 300, LocalDeletionTime: now}
	apply(t, st, mutation(home, del))
	route := func(ck []byte) backend.Shard {
		if bytes.Compare(ck, []byte("m")) >= 0 {
			return 1
		}
		return 0
	}
	stats, err := st.Move(ctx, backend.MoveCommand{Partition: lp, From: []backend.Shard{0}, Slice: backend.FullSlice,
		Route: route, Targets: []backend.Shard{0, 1}, Meta: []backend.MetaWrite{{Key: []byte("split/x"), Value: []byte("moved")}}})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Rows != 3 {
		t.Errorf("moved %d rows, want 3", stats.Rows)
	}
	expect(t, "home after the move", read(t, st, home, false), "m1/0 a: live@100 1=a1@100\n")
	expect(t, "child after the move", read(t, st, lp.Physical(1), false),
		"m1/1 m: live@100 1=m1@110 2=t@100[ttl]\nm1/1 n: live@100\nm1/1 z: live@100\n")
	if v, err := st.GetMeta(ctx, []byte("split/x")); err != nil || string(v) != "moved" {
		t.Errorf("meta written with the move: %q, %v", v, err)
	}
	// The row deletion of q moved with the keys: an older write to the new
	// shard stays hidden.
	apply(t, st, mutation(lp.Physical(1), row("q", 250)))
	expect(t, "deletion carried", read(t, st, lp.Physical(1), false, backend.PrefixSlice([]byte("q"))), "")

	// Back to the home shard (a revert): nothing is shadowed by the removal
	// of the first copies.
	if _, err := st.Move(ctx, backend.MoveCommand{Partition: lp, From: []backend.Shard{1}, Slice: backend.FullSlice,
		Route: func([]byte) backend.Shard { return 0 }, Targets: []backend.Shard{0}}); err != nil {
		t.Fatal(err)
	}
	expect(t, "home after moving back", read(t, st, home, false),
		"m1/0 a: live@100 1=a1@100\nm1/0 m: live@100 1=m1@110 2=t@100[ttl]\nm1/0 n: live@100\nm1/0 z: live@100\n")
	expect(t, "child after moving back", read(t, st, lp.Physical(1), false), "")
	// And again out and back: generations keep every copy apart.
	for _, to := range []backend.Shard{1, 0} {
		from := 1 - to
		if _, err := st.Move(ctx, backend.MoveCommand{Partition: lp, From: []backend.Shard{from}, Slice: backend.Slice{Start: []byte("m")},
			Route: func([]byte) backend.Shard { return to }, Targets: []backend.Shard{to}}); err != nil {
			t.Fatal(err)
		}
	}
	expect(t, "after a second round trip", read(t, st, home, false),
		"m1/0 a: live@100 1=a1@100\nm1/0 m: live@100 1=m1@110 2=t@100[ttl]\nm1/0 n: live@100\nm1/0 z: live@100\n")
}

func TestMeta(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	err := st.Apply(ctx, &backend.WriteBatch{Meta: []backend.MetaWrite{
		{Key: []byte("a/2"), Value: []byte("two")}, {Key: []byte("a/1"), Value: []byte("one")},
		{Key: []byte("b"), Value: []byte("bee")}, {Key: []byte("a/3"), Value: []byte{}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, &backend.WriteBatch{Meta: []backend.MetaWrite{{Key: []byte("a/2")}}}); err != nil {
		t.Fatal(err)
	}
	got, err := st.ScanMeta(ctx, []byte("a/"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, m := range got {
		fmt.Fprintf(&b, "%s=%q ", m.Key, m.Value)
	}
	expect(t, "scan meta", b.String(), `a/1="one" a/3="" `)
	if v, err := st.GetMeta(ctx, []byte("a/2")); err != nil || v != nil {
		t.Errorf("deleted key: %q, %v", v, err)
	}
	if v, err := st.GetMeta(ctx, []byte("a/3")); err != nil || v == nil || len(v) != 0 {
		t.Errorf("empty value: %q, %v", v, err)
	}
}
