package clusterstore_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/clusterstore"
	"github.com/partita-db/partita/internal/split"
	"github.com/partita-db/partita/internal/storage"
)

// Several gateways over one cluster keyspace share the split states
// (internal/split shared.go): every test here runs two or three split
// layers, each over a store of its own (its own driver session), in one
// keyspace, with leases of a second, and checks what clients of every
// gateway read against a layer over the embedded store that never splits.

// g2Leases are the short leases of these tests.
func g2Leases(name string) split.SharedOptions {
	return split.SharedOptions{Lease: time.Second, Drain: 500 * time.Millisecond, OwnerLease: 3 * time.Second, Gateway: name}
}

// splitGateway is one split layer over its own store in a keyspace.
type splitGateway struct {
	name  string
	store *clusterstore.Store
	layer *split.Layer
}

func openSplitGateway(t *testing.T, cfg *gocql.ClusterConfig, ks, name string) *splitGateway {
	t.Helper()
	ctx := context.Background()
	st, err := clusterstore.Open(ctx, clusterstore.Options{Cluster: cfg, Keyspace: ks, Consistency: gocql.One})
	if err != nil {
		t.Fatal(err)
	}
	l, err := split.New(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if l.Gateway() == "" {
		t.Fatal("the split layer over the cluster store does not share its states")
	}
	l.SetShared(g2Leases(name))
	l.SetLogger(g2Logger{t})
	return &splitGateway{name: name, store: st, layer: l}
}

type g2Logger struct{ t *testing.T }

func (l g2Logger) Printf(format string, args ...any) { l.t.Logf(format, args...) }

// g2Reference is a never-splitting layer over the embedded store that
// receives every acknowledged write.
type g2Reference struct {
	mu    sync.Mutex
	layer *split.Layer
	acked map[int]int // clustering key -> value of every acknowledged row
}

func newG2Reference(t *testing.T) *g2Reference {
	t.Helper()
	pebble, err := storage.Open(storage.Options{Dir: t.TempDir(), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pebble.Close() })
	l, err := split.New(context.Background(), pebble)
	if err != nil {
		t.Fatal(err)
	}
	return &g2Reference{layer: l, acked: map[int]int{}}
}

// write inserts row key with value through g and, once acknowledged, into
// the reference.
func (r *g2Reference) write(ctx context.Context, g *split.Layer, p backend.LogicalPartition, key, value int, ts int64) error {
	o := splitOp{kind: 0, key: key, value: value, ts: ts}
	m := o.mutation(p)
	if err := g.Apply(ctx, &backend.WriteBatch{Mutations: []backend.Mutation{m}}); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	m = o.mutation(p)
	if err := r.layer.Apply(ctx, &backend.WriteBatch{Mutations: []backend.Mutation{m}}); err != nil {
		return err
	}
	r.acked[key] = value
	return nil
}

func (r *g2Reference) snapshot() map[int]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[int]int, len(r.acked))
	for k, v := range r.acked {
		out[k] = v
	}
	return out
}

// checkAckedRead reads the whole partition through l and fails unless
// every row acknowledged before the read started is there, and no row is
// there twice or out of order.
func checkAckedRead(ctx context.Context, l *split.Layer, p backend.LogicalPartition, before map[int]int) error {
	it, err := l.Read(ctx, backend.ReadCommand{Partition: p.Physical(backend.HomeShard),
		Slices: []backend.Slice{backend.FullSlice}, Now: time.Now().Unix()})
	if err != nil {
		return err
	}
	defer it.Close()
	seen := map[int]bool{}
	var last []byte
	for it.Next() {
		r := it.Row()
		if last != nil && bytes.Compare(r.Clustering, last) <= 0 {
			return fmt.Errorf("row %x after %x: duplicated or out of order", r.Clustering, last)
		}
		last = append(last[:0], r.Clustering...)
		seen[int(binary.BigEndian.Uint32(r.Clustering))] = true
	}
	if err := it.Err(); err != nil {
		return err
	}
	for k := range before {
		if !seen[k] {
			return fmt.Errorf("acknowledged row %d missing (%d rows read, %d acknowledged before the read)", k, len(seen), len(before))
		}
	}
	return nil
}

// sameAsReference compares the whole partition through every gateway with
// the reference, in both directions.
func sameAsReference(t *testing.T, ref *g2Reference, p backend.LogicalPartition, gws ...*splitGateway) {
	t.Helper()
	if n := len(ref.snapshot()); n == 0 {
		t.Fatal("no row was acknowledged")
	}
	for _, g := range gws {
		for _, rev := range []bool{false, true} {
			want, got := dumpLayer(t, ref.layer, p, backend.FullSlice, rev), dumpLayer(t, g.layer, p, backend.FullSlice, rev)
			if want != got {
				t.Fatalf("gateway %s (reverse %v) with state %+v reads\n%s\nwant\n%s", g.name, rev, g.layer.State(p), got, want)
			}
		}
	}
}

func countRows(t *testing.T, l *split.Layer, p backend.LogicalPartition) int {
	t.Helper()
	it, err := l.Read(context.Background(), backend.ReadCommand{Partition: p.Physical(backend.HomeShard),
		Slices: []backend.Slice{backend.FullSlice}, Now: time.Now().Unix()})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	n := 0
	for it.Next() {
		n++
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestGatewaysShareASplit: gateway A splits a partition (range split, steps
// of 40 rows) while a client of gateway B writes and reads it without a
// pause, and a client of A reads it: every acknowledged row is read,
// through both, exactly once, and at the end both read what a
// never-splitting layer reads. B learns every stage from the shared states
// alone.
func TestGatewaysShareASplit(t *testing.T) {
	cfg := clusterConfig(t)
	ks := newKeyspace("g2_share")
	t.Cleanup(func() { dropKeyspace(t, cfg, ks) })
	a, b := openSplitGateway(t, cfg, ks, "A"), openSplitGateway(t, cfg, ks, "B")
	defer a.store.Close()
	defer b.store.Close()
	ref := newG2Reference(t)
	ctx := context.Background()
	p := logical("shared")
	var ts atomic.Int64
	keys := rand.New(rand.NewPCG(1, 2)).Perm(4000)
	for _, k := range keys[:300] {
		if err := ref.write(ctx, a.layer, p, k, k%10, 10*ts.Add(1)); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var writes, reads atomic.Int64
	errs := make(chan error, 4)
	wg.Add(2)
	go func() { // B's client: writes, and every fifth write a read through B
		defer wg.Done()
		for i := 300; i < len(keys); i++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := ref.write(ctx, b.layer, p, keys[i], keys[i]%10, 10*ts.Add(1)); err != nil {
				errs <- fmt.Errorf("write through B: %w", err)
				return
			}
			writes.Add(1)
			if i%5 == 0 {
				if err := checkAckedRead(ctx, b.layer, p, ref.snapshot()); err != nil {
					errs <- fmt.Errorf("read through B: %w", err)
					return
				}
				reads.Add(1)
			}
		}
	}()
	go func() { // A's client: reads
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if err := checkAckedRead(ctx, a.layer, p, ref.snapshot()); err != nil {
				errs <- fmt.Errorf("read through A: %w", err)
				return
			}
			reads.Add(1)
		}
	}()
	start := time.Now()
	s, err := a.layer.Force(ctx, p, "range", split.Policy{MaxRows: 100})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.layer.Finish(ctx, s, 40); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	close(stop)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	final := a.layer.State(p)
	if final == nil || final.Migration != nil || len(final.Current.AllShards()) < 2 {
		t.Fatalf("A's state after the split: %+v", final)
	}
	// B routes by the same state once its lease has run out.
	time.Sleep(1100 * time.Millisecond)
	if err := checkAckedRead(ctx, b.layer, p, ref.snapshot()); err != nil {
		t.Fatal(err)
	}
	if bs := b.layer.State(p); bs == nil || bs.Epoch != final.Epoch {
		t.Fatalf("B's state %+v, A's %+v", bs, final)
	}
	sameAsReference(t, ref, p, a, b)
	t.Logf("split into %d children in %v while B acknowledged %d writes; %d checked reads",
		len(final.Current.AllShards()), took, writes.Load(), reads.Load())
	if writes.Load() == 0 || reads.Load() == 0 {
		t.Fatal("the clients must write and read during the split")
	}
}

// TestThreeGatewaysDetectorSplit: three gateways run their workers (the
// detector with a 300-row limit), clients spread writes of one hot
// partition over them and read it through all three; a detector splits it
// while they write. 0 acknowledged rows lost, 0 duplicated, and the three
// read what a never-splitting layer reads.
func TestThreeGatewaysDetectorSplit(t *testing.T) {
	cfg := clusterConfig(t)
	ks := newKeyspace("g2_three")
	t.Cleanup(func() { dropKeyspace(t, cfg, ks) })
	ctx, cancel := context.WithCancel(context.Background())
	pol := split.Policy{Enabled: true, MaxRows: 300, MergeFraction: 0.01, Window: 500 * time.Millisecond,
		MaxConcurrent: 2, ChunkRows: 100, Strategy: "range"}
	var workers sync.WaitGroup
	var gws []*splitGateway
	var detectorOff atomic.Bool // once the clients stop: no new split starts
	for _, name := range []string{"A", "B", "C"} {
		g := openSplitGateway(t, cfg, ks, name)
		defer g.store.Close()
		g.layer.SetPolicy(func(backend.TableID) split.Policy {
			p := pol
			p.Enabled = !detectorOff.Load()
			return p
		})
		workers.Add(1)
		go func() { defer workers.Done(); g.layer.Run(ctx, 200*time.Millisecond) }()
		gws = append(gws, g)
	}
	defer workers.Wait()
	defer cancel()
	ref := newG2Reference(t)
	p := logical("hot")
	var ts, next, reads, duringMigration atomic.Int64
	keys := rand.New(rand.NewPCG(3, 4)).Perm(2500)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	deadline := time.Now().Add(90 * time.Second)
	for c := 0; c < 3; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				i := int(next.Add(1)) - 1
				if i >= len(keys) || time.Now().After(deadline) {
					return
				}
				g := gws[(c+n)%3]
				if err := ref.write(ctx, g.layer, p, keys[i], keys[i]%10, 10*ts.Add(1)); err != nil {
					errs <- fmt.Errorf("write through %s: %w", g.name, err)
					return
				}
				if st := g.layer.State(p); st != nil && st.Migration != nil {
					duringMigration.Add(1)
				}
				if n%7 == 0 {
					r := gws[(c+n+1)%3]
					if err := checkAckedRead(ctx, r.layer, p, ref.snapshot()); err != nil {
						errs <- fmt.Errorf("read through %s: %w", r.name, err)
						return
					}
					reads.Add(1)
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	detectorOff.Store(true)
	var final *split.State
	for end := time.Now().Add(120 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		it, err := gws[0].layer.Read(ctx, backend.ReadCommand{Partition: p.Physical(backend.HomeShard)}) // renews A's lease
		if err != nil {
			t.Fatal(err)
		}
		it.Close()
		final = gws[0].layer.State(p)
		if final != nil && final.Migration == nil && !final.Current.IsUnsplit() {
			break
		}
	}
	if final == nil || final.Migration != nil {
		t.Fatalf("the partition was not split (or its migration did not end): state %+v", final)
	}
	time.Sleep(1100 * time.Millisecond) // every lease run out
	sameAsReference(t, ref, p, gws...)
	if got, want := countRows(t, gws[2].layer, p), len(ref.snapshot()); got != want {
		t.Fatalf("%d rows read, %d acknowledged", got, want)
	}
	events := map[string]int{}
	hist, err := gws[0].layer.History(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hist {
		events[h.Event]++
	}
	t.Logf("%d rows acknowledged (%d while a migration was under way), %d checked reads, state epoch %d with %d children, history %v",
		len(ref.snapshot()), duringMigration.Load(), reads.Load(), final.Epoch, len(final.Current.AllShards()), events)
	if duringMigration.Load() == 0 {
		t.Fatal("no write was acknowledged while the partition was being split")
	}
	if events["start"] == 0 || events["finish"] == 0 {
		t.Fatalf("the history shows no finished split: %v", events)
	}
}

// TestGatewayCrashMidMigration: gateway A starts a split, moves a chunk and
// announces the next one, then dies (its step is cut off after the
// announcement and its store dropped without any cleanup). Gateway B's
// worker, which knows only the shared state, takes the migration over once
// A's owner lease has passed and finishes it from the persisted cursor and
// pending range, while B's client writes (its writes into the pending range
// wait for the takeover). The data equals the never-splitting reference.
func TestGatewayCrashMidMigration(t *testing.T) {
	cfg := clusterConfig(t)
	ks := newKeyspace("g2_crash")
	t.Cleanup(func() { dropKeyspace(t, cfg, ks) })
	a, b := openSplitGateway(t, cfg, ks, "A"), openSplitGateway(t, cfg, ks, "B")
	defer b.store.Close()
	ref := newG2Reference(t)
	ctx := context.Background()
	p := logical("crash")
	var ts atomic.Int64
	keys := rand.New(rand.NewPCG(5, 6)).Perm(1000)
	for _, k := range keys[:400] {
		if err := ref.write(ctx, a.layer, p, k, k%10, 10*ts.Add(1)); err != nil {
			t.Fatal(err)
		}
	}
	s, err := a.layer.Force(ctx, p, "range", split.Policy{MaxRows: 150})
	if err != nil {
		t.Fatal(err)
	}
	// Chunks moved (announce, wait, move) until rows have changed shard
	// (a piece the home shard keeps moves nothing), then the next
	// announced and A killed while it waits out the leases.
	moved := int64(0)
	for i := 0; moved == 0; i++ {
		res, err := a.layer.Step(ctx, s.Partition, 60)
		if err != nil {
			t.Fatal(err)
		}
		if moved = res.Rows; res.Done || i == 5 {
			t.Fatalf("no step moved rows: %+v", res)
		}
	}
	cut, cancelStep := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = a.layer.Step(cut, s.Partition, 60)
	cancelStep()
	if err == nil {
		t.Fatal("the step was to be cut off while it waits")
	}
	mid := a.layer.State(p)
	if mid.Migration == nil || mid.Migration.Pending == nil || mid.Migration.Owner != "A" {
		t.Fatalf("A should have died with a pending range it owns: %+v", mid.Migration)
	}
	a.store.Close() // no cleanup: the state row still names A
	t.Logf("A died with cursor %x and pending range %x..%x", mid.Migration.Cursor, mid.Migration.Pending.Start, mid.Migration.Pending.End)

	wctx, stopWorker := context.WithCancel(ctx)
	var worker sync.WaitGroup
	worker.Add(1)
	go func() { defer worker.Done(); b.layer.Run(wctx, 200*time.Millisecond) }()
	defer func() { stopWorker(); worker.Wait() }()
	start := time.Now()
	for i := 400; i < len(keys); i++ {
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := ref.write(wctx, b.layer, p, keys[i], keys[i]%10, 10*ts.Add(1))
		cancel()
		if err != nil {
			t.Fatalf("write through B: %v", err)
		}
		if i%20 == 0 {
			if err := checkAckedRead(ctx, b.layer, p, ref.snapshot()); err != nil {
				t.Fatalf("read through B: %v", err)
			}
		}
	}
	var final *split.State
	for time.Since(start) < 60*time.Second {
		final = b.layer.State(p)
		if final != nil && final.Migration == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if final == nil || final.Migration != nil || final.Current.IsUnsplit() {
		t.Fatalf("B did not finish A's split: %+v", final)
	}
	sameAsReference(t, ref, p, b)
	t.Logf("B finished the split %v after A died: %d children, epoch %d", time.Since(start), len(final.Current.AllShards()), final.Epoch)
}

// TestSplitStateCompareAndSet: the shared state rows change only from the
// epoch the writer read; a writer with a stale epoch gets the row as it is.
func TestSplitStateCompareAndSet(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	key := []byte("split/cas")
	if row, err := st.GetState(ctx, key); err != nil || row.Epoch != 0 {
		t.Fatalf("absent row: %+v %v", row, err)
	}
	ok, _, err := st.CompareAndSetState(ctx, key, 0, []byte("one"))
	if err != nil || !ok {
		t.Fatalf("first state: %v %v", ok, err)
	}
	for _, tc := range []struct {
		prev  uint64
		value string
		ok    bool
		epoch uint64
		now   string
	}{
		{prev: 0, value: "again", ok: false, epoch: 1, now: "one"}, // IF NOT EXISTS fails
		{prev: 1, value: "two", ok: true, epoch: 2, now: "two"},
		{prev: 1, value: "stale", ok: false, epoch: 2, now: "two"}, // IF epoch = 1 fails
		{prev: 2, value: "", ok: true, epoch: 3, now: ""},          // back to unsplit: the row stays
	} {
		ok, row, err := st.CompareAndSetState(ctx, key, tc.prev, []byte(tc.value))
		if err != nil || ok != tc.ok || row.Epoch != tc.epoch || string(row.Value) != tc.now {
			t.Fatalf("CAS from %d to %q: applied %v row %+v err %v; want applied %v epoch %d value %q",
				tc.prev, tc.value, ok, row, err, tc.ok, tc.epoch, tc.now)
		}
	}
	rows, err := st.LoadStates(ctx, []byte("split/"))
	if err != nil || len(rows) != 1 || rows[0].Epoch != 3 || len(rows[0].Value) != 0 {
		t.Fatalf("LoadStates: %+v %v", rows, err)
	}
}
