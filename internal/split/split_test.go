package split

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/storage"
	"github.com/partita-db/partita/internal/token"
)

func openLayer(t testing.TB) *Layer { return openLayerIn(t, t.TempDir()) }

func openLayerIn(t testing.TB, dir string) *Layer {
	st, err := storage.Open(storage.Options{Dir: dir, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	l, err := New(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// openCrashable opens a layer on an in-memory file system that can crash
// (writes synced, as the server runs).
func openCrashable(t testing.TB, fs *storage.CrashableFS) *Layer {
	st, err := storage.Open(storage.Options{Dir: "/data", CrashableFS: fs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	l, err := New(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// crash simulates kill -9 or a power loss: the new layer opens on what a
// crash at this moment leaves on the file system (every synced byte and a
// random share of the unsynced ones), with none of the old layer's memory.
func crash(t testing.TB, rt *rapid.T, l *Layer, fs *storage.CrashableFS) (*Layer, *storage.CrashableFS) {
	seed := rapid.Uint64().Draw(rt, "crashSeed")
	crashed := fs.Crash(rapid.IntRange(0, 100).Draw(rt, "unsyncedPercent"), rand.New(rand.NewPCG(seed, seed)))
	_ = l.backend.Close()
	return openCrashable(t, crashed), crashed
}

func testPartition(k string) backend.LogicalPartition {
	return backend.LogicalPartition{Table: 7, Token: token.Of([]byte(k)), Key: []byte(k)}
}

func ck(i int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(i)) }

// op is one random operation of the metamorphic test.
type op struct {
	kind  int // 0 write, 1 delete row, 2 range delete, 3 partition delete
	key   int
	upTo  int
	value int
	ts    int64
}

func (o op) mutation(p backend.LogicalPartition) backend.Mutation {
	m := backend.NewMutation(p.Physical(backend.HomeShard))
	del := backend.DeletionTime{MarkedForDeleteAt: o.ts, LocalDeletionTime: 1}
	switch o.kind {
	case 0:
		r := backend.NewRow(ck(o.key))
		r.Liveness = backend.Liveness{Timestamp: o.ts, ExpiresAt: backend.NoDeletionTime}
		r.Cells = []backend.Cell{{Column: 1, Value: []byte(fmt.Sprint(o.value)), Timestamp: o.ts, LocalDeletionTime: backend.NoDeletionTime}}
		m.Rows = []backend.Row{r}
	case 1:
		r := backend.NewRow(ck(o.key))
		r.Deletion = del
		m.Rows = []backend.Row{r}
	case 2:
		m.RangeTombstones = []backend.RangeTombstone{{Slice: backend.Slice{Start: ck(o.key), End: ck(o.upTo)}, Deletion: del}}
	default:
		m.PartitionDeletion = del
	}
	return m
}

// dump reads a logical partition (forward or reverse, over a slice) as text.
func dump(t *rapid.T, l *Layer, p backend.LogicalPartition, sl backend.Slice, reverse bool) string {
	it, err := l.Read(context.Background(), backend.ReadCommand{Partition: p.Physical(backend.HomeShard),
		Slices: []backend.Slice{sl}, Reverse: reverse, Now: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var b bytes.Buffer
	for it.Next() {
		r := it.Row()
		fmt.Fprintf(&b, "%x:", r.Clustering)
		for _, c := range r.Cells {
			fmt.Fprintf(&b, "%s@%d ", c.Value, c.Timestamp)
		}
		b.WriteByte('\n')
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestSplitIsInvisible is the metamorphic and crash test of the split layer:
// the same random writes and deletes go to a layer that never splits and to
// one that splits, steps, reverts, merges back and crashes (kill -9 or power
// loss: it reopens on what the file system kept, with no memory of the old
// process) at random moments; every read, in both directions and over random
// slices, must return the same rows, so no acknowledged write is lost, no
// row comes back twice and every row stays readable, whatever state the
// split was in when it crashed.
func TestSplitIsInvisible(t *testing.T) {
	forced, crashes := 0, 0
	defer func() {
		if forced == 0 || crashes == 0 {
			t.Errorf("the random runs started %d splits and made %d crashes; both must happen", forced, crashes)
		}
		t.Logf("%d splits forced, %d crashes", forced, crashes)
	}()
	rapid.Check(t, func(rt *rapid.T) {
		fs := storage.NewCrashableFS()
		ref, sub := openLayer(t), openCrashable(t, fs)
		ctx := context.Background()
		p := testPartition("p")
		var ts int64
		steps := rapid.IntRange(20, 120).Draw(rt, "steps")
		for i := 0; i < steps; i++ {
			action := rapid.IntRange(0, 9).Draw(rt, "action")
			switch {
			case action <= 5:
				ts++
				o := op{kind: rapid.IntRange(0, 3).Draw(rt, "kind"), key: rapid.IntRange(0, 60).Draw(rt, "key"),
					value: rapid.IntRange(0, 9).Draw(rt, "value"), ts: ts}
				if o.kind == 3 && rapid.IntRange(0, 4).Draw(rt, "rare") != 0 {
					o.kind = 0
				}
				o.upTo = o.key + rapid.IntRange(1, 10).Draw(rt, "width")
				if rapid.Bool().Draw(rt, "olderTimestamp") {
					o.ts = ts - int64(rapid.IntRange(1, 5).Draw(rt, "age"))
				}
				for _, l := range []*Layer{ref, sub} {
					m := o.mutation(p)
					if err := l.Apply(ctx, &backend.WriteBatch{Mutations: []backend.Mutation{m}}); err != nil {
						rt.Fatal(err)
					}
				}
			case action == 6:
				strategy := rapid.SampledFrom([]string{"range", "hash", "rollover"}).Draw(rt, "strategy")
				pol := Policy{MaxRows: int64(rapid.IntRange(2, 20).Draw(rt, "maxRows")), HashSegments: rapid.IntRange(2, 5).Draw(rt, "segments"), Strategy: strategy}
				if _, err := sub.Force(ctx, p, strategy, pol); err == nil {
					forced++
				}
			case action == 7:
				if _, err := sub.Step(ctx, p, rapid.IntRange(1, 8).Draw(rt, "chunk")); err != nil {
					rt.Fatal(err)
				}
			case action == 8:
				if rapid.IntRange(0, 2).Draw(rt, "restart") == 0 {
					sub, fs = crash(t, rt, sub, fs)
					crashes++
				} else if rapid.Bool().Draw(rt, "merge") {
					_, _ = sub.MergeBack(ctx, p, "test")
				} else {
					_ = sub.Revert(ctx, p, "test")
				}
			default:
				lo, hi := rapid.IntRange(0, 70).Draw(rt, "lo"), rapid.IntRange(0, 70).Draw(rt, "hi")
				sl := backend.Slice{Start: ck(lo)}
				if hi > lo {
					sl.End = ck(hi)
				}
				for _, rev := range []bool{false, true} {
					want, got := dump(rt, ref, p, sl, rev), dump(rt, sub, p, sl, rev)
					if want != got {
						rt.Fatalf("read %v reverse=%v with state %+v:\ngot\n%s\nwant\n%s", sl, rev, sub.State(p), got, want)
					}
				}
			}
		}
		// Finish whatever is under way, then compare everything once more.
		if s := sub.State(p); s != nil && s.Migration != nil {
			if err := sub.Finish(ctx, s, 3); err != nil {
				rt.Fatal(err)
			}
		}
		for _, rev := range []bool{false, true} {
			if want, got := dump(rt, ref, p, backend.FullSlice, rev), dump(rt, sub, p, backend.FullSlice, rev); want != got {
				rt.Fatalf("final read reverse=%v with state %+v:\ngot\n%s\nwant\n%s\nshards:\n%s", rev, sub.State(p), got, want, dumpShards(rt, sub, p))
			}
		}
	})
}

// dumpShards prints every physical shard's rows (for failure messages).
func dumpShards(t *rapid.T, l *Layer, p backend.LogicalPartition) string {
	var b bytes.Buffer
	for sh := backend.Shard(0); sh < 16; sh++ {
		it, err := l.backend.Read(context.Background(), backend.ReadCommand{Partition: p.Physical(sh), Slices: []backend.Slice{backend.FullSlice}, Now: 2})
		if err != nil {
			t.Fatal(err)
		}
		for it.Next() {
			fmt.Fprintf(&b, "shard %d %x\n", sh, it.Row().Clustering)
		}
		it.Close()
	}
	return b.String()
}
