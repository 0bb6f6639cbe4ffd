package clusterstore_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/clusterstore"
	"github.com/partita-db/partita/internal/split"
	"github.com/partita-db/partita/internal/storage"
)

// TestSplitOverClusterIsInvisible is the split layer's metamorphic test
// with the cluster store under the splitting layer: the same random
// writes and deletes (some with older timestamps) go to a layer over the
// embedded store that never splits and to one over the cluster that
// splits (range, hash, roll-over), steps, reverts, merges back and loses
// its memory (the gateway restarts on the cluster's state); every read, in
// both directions over random slices, must be the same.
// PARTITA_CLUSTERSTORE_SEED replays one seed.
func TestSplitOverClusterIsInvisible(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("PARTITA_CLUSTERSTORE_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (PARTITA_CLUSTERSTORE_SEED replays it)", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	cfg := clusterConfig(t)
	ks := newKeyspace("css")
	t.Cleanup(func() { dropKeyspace(t, cfg, ks) })
	ctx := context.Background()
	openSub := func() (*split.Layer, *clusterstore.Store) {
		st, err := clusterstore.Open(ctx, clusterstore.Options{Cluster: cfg, Keyspace: ks, Consistency: gocql.One,
			StateLease: 100 * time.Millisecond, StateDrain: 50 * time.Millisecond}) // short split-state leases: a step waits Lease + Drain
		if err != nil {
			t.Fatal(err)
		}
		l, err := split.New(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		return l, st
	}
	sub, subStore := openSub()
	defer func() { subStore.Close() }()
	forced, restarts, moved := 0, 0, int64(0)
	for run := 0; run < 6; run++ {
		pebble, err := storage.Open(storage.Options{Dir: t.TempDir(), NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		ref, err := split.New(ctx, pebble)
		if err != nil {
			t.Fatal(err)
		}
		p := logical(fmt.Sprintf("run%d", run))
		var ts int64
		for i := 0; i < 80; i++ {
			switch action := rng.IntN(10); {
			case action <= 5:
				ts++
				o := randomOp(rng, ts)
				for _, l := range []*split.Layer{ref, sub} {
					m := o.mutation(p)
					if err := l.Apply(ctx, &backend.WriteBatch{Mutations: []backend.Mutation{m}}); err != nil {
						t.Fatal(err)
					}
				}
			case action == 6:
				strategy := []string{"range", "hash", "rollover"}[rng.IntN(3)]
				pol := split.Policy{MaxRows: int64(2 + rng.IntN(18)), HashSegments: 2 + rng.IntN(4), Strategy: strategy}
				if _, err := sub.Force(ctx, p, strategy, pol); err == nil {
					forced++
				}
			case action == 7:
				res, err := sub.Step(ctx, p, 1+rng.IntN(8))
				if err != nil {
					t.Fatalf("seed %d: step: %v", seed, err)
				}
				moved += res.Rows
			case action == 8:
				switch rng.IntN(3) {
				case 0:
					subStore.Close()
					sub, subStore = openSub()
					restarts++
				case 1:
					_, _ = sub.MergeBack(ctx, p, "test")
				default:
					_ = sub.Revert(ctx, p, "test")
				}
			default:
				lo, hi := rng.IntN(70), rng.IntN(70)
				sl := backend.Slice{Start: ck(lo)}
				if hi > lo {
					sl.End = ck(hi)
				}
				compare(t, seed, ref, sub, p, sl)
			}
		}
		if s := sub.State(p); s != nil && s.Migration != nil {
			if err := sub.Finish(ctx, s, 3); err != nil {
				t.Fatalf("seed %d: finish: %v", seed, err)
			}
		}
		compare(t, seed, ref, sub, p, backend.FullSlice)
		pebble.Close()
	}
	t.Logf("%d splits forced, %d restarts, %d rows moved by steps", forced, restarts, moved)
	if forced == 0 || restarts == 0 || moved == 0 {
		t.Errorf("seed %d: the runs must split, restart and move rows", seed)
	}
}

func compare(t *testing.T, seed uint64, ref, sub *split.Layer, p backend.LogicalPartition, sl backend.Slice) {
	t.Helper()
	for _, rev := range []bool{false, true} {
		want, got := dumpLayer(t, ref, p, sl, rev), dumpLayer(t, sub, p, sl, rev)
		if want != got {
			t.Fatalf("seed %d: read %x..%x reverse=%v with state %+v:\ngot\n%s\nwant\n%s", seed, sl.Start, sl.End, rev, sub.State(p), got, want)
		}
	}
}

func ck(i int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(i)) }

// splitOp is one random write: 0 a row, 1 a row deletion, 2 a range
// deletion, 3 a partition deletion.
type splitOp struct {
	kind, key, upTo, value int
	ts                     int64
}

// randomOp draws the n-th operation. Half of them carry an older
// timestamp than the newest; no two carry the same one (10n for the
// others, 10(n-age) + 1 + n%9 for the older, which cannot meet): a write
// whose timestamp equals the one of a cell that left its shard and came
// back is the one case the cluster store answers differently
// (docs/design/gateway.md, "Moving data").
func randomOp(rng *rand.Rand, n int64) splitOp {
	o := splitOp{kind: rng.IntN(4), key: rng.IntN(61), value: rng.IntN(10), ts: 10 * n}
	if o.kind == 3 && rng.IntN(5) != 0 {
		o.kind = 0
	}
	o.upTo = o.key + 1 + rng.IntN(10)
	if rng.IntN(2) == 0 {
		o.ts = 10*(n-int64(1+rng.IntN(5))) + 1 + n%9
	}
	return o
}

func (o splitOp) mutation(p backend.LogicalPartition) backend.Mutation {
	m := backend.NewMutation(p.Physical(backend.HomeShard))
	del := backend.DeletionTime{MarkedForDeleteAt: o.ts, LocalDeletionTime: time.Now().Unix()}
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

func dumpLayer(t *testing.T, l *split.Layer, p backend.LogicalPartition, sl backend.Slice, reverse bool) string {
	t.Helper()
	it, err := l.Read(context.Background(), backend.ReadCommand{Partition: p.Physical(backend.HomeShard),
		Slices: []backend.Slice{sl}, Reverse: reverse, Now: time.Now().Unix()})
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
