package split

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/storage"
)

// countingStore counts the reads of each physical partition.
type countingStore struct {
	*storage.Store
	mu    sync.Mutex
	reads map[backend.Shard]int
}

func (c *countingStore) Read(ctx context.Context, cmd backend.ReadCommand) (backend.RowIterator, error) {
	c.mu.Lock()
	c.reads[cmd.Partition.Shard]++
	c.mu.Unlock()
	return c.Store.Read(ctx, cmd)
}

func (c *countingStore) take() map[backend.Shard]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.reads
	c.reads = map[backend.Shard]int{}
	return out
}

// TestDetectorMeasuresOnlyWrittenChildren: once a split partition's
// children are measured, the detector reads again only the children that
// took writes since (measuring reads a whole child), and nothing at all
// when nothing was written.
func TestDetectorMeasuresOnlyWrittenChildren(t *testing.T) {
	st, err := storage.Open(storage.Options{Dir: t.TempDir(), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cs := &countingStore{Store: st, reads: map[backend.Shard]int{}}
	ctx := context.Background()
	l, err := New(ctx, cs)
	if err != nil {
		t.Fatal(err)
	}
	pol := Policy{Enabled: true, MaxRows: 100, MaxConcurrent: 1, Strategy: "range"}
	l.SetPolicy(func(backend.TableID) Policy { return pol })
	p := testPartition("p")
	write := func(keys ...int) {
		for _, k := range keys {
			m := op{kind: 0, key: k, value: 1, ts: 1}.mutation(p)
			if err := l.Apply(ctx, &backend.WriteBatch{Mutations: []backend.Mutation{m}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for k := 0; k < 200; k++ {
		write(k)
	}
	if _, err := l.Force(ctx, p, "range", pol); err != nil {
		t.Fatal(err)
	}
	if err := l.Finish(ctx, l.State(p), 50); err != nil {
		t.Fatal(err)
	}
	s := l.State(p)
	children := s.Current.AllShards()
	if len(children) != 4 {
		t.Fatalf("children %v, want 4 pieces of 50 rows", children)
	}
	write(10) // the first piece
	cs.take()
	now := time.Now()
	if _, err := l.Evaluate(ctx, now); err != nil {
		t.Fatal(err)
	}
	if got := cs.take(); len(got) != len(children) {
		t.Fatalf("first evaluation read %v, want every child once", got)
	}
	if _, err := l.Evaluate(ctx, now.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if got := cs.take(); len(got) != 0 {
		t.Fatalf("evaluation with no write read %v", got)
	}
	write(199) // the last piece
	if _, err := l.Evaluate(ctx, now.Add(2*time.Second)); err != nil {
		t.Fatal(err)
	}
	last := s.Current.ShardOf(ck(199))
	if got := cs.take(); len(got) != 1 || got[last] != 1 {
		t.Fatalf("after a write to shard %d the evaluation read %v", last, got)
	}
}

// TestMeasuresSurviveRestart: a partition measured large is known as large
// after a restart, so its next write makes the detector measure it again
// instead of waiting for a threshold's worth of new writes.
func TestMeasuresSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	st, err := storage.Open(storage.Options{Dir: dir, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pol := Policy{Enabled: true, MaxRows: 100, MaxConcurrent: 1, Window: time.Hour, Strategy: "range"}
	l, err := New(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	l.SetPolicy(func(backend.TableID) Policy { return pol })
	p := testPartition("p")
	for k := 0; k < 150; k++ {
		m := op{kind: 0, key: k, value: 1, ts: 1}.mutation(p)
		if err := l.Apply(ctx, &backend.WriteBatch{Mutations: []backend.Mutation{m}}); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	if _, err := l.Evaluate(ctx, now); err != nil {
		t.Fatal(err)
	}
	st.Close()

	st, err = storage.Open(storage.Options{Dir: dir, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l, err = New(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	l.SetPolicy(func(backend.TableID) Policy { return pol })
	stats := l.Stats()
	if len(stats) != 1 || stats[0].Rows != 150 || stats[0].MaxChildRows != 150 || stats[0].MeasuredAt.UnixMicro() != now.UnixMicro() {
		t.Fatalf("stats after the restart: %+v", stats)
	}
	m := op{kind: 0, key: 150, value: 1, ts: 2}.mutation(p)
	if err := l.Apply(ctx, &backend.WriteBatch{Mutations: []backend.Mutation{m}}); err != nil {
		t.Fatal(err)
	}
	later := now.Add(pol.Window)
	if _, err := l.Evaluate(ctx, later); err != nil {
		t.Fatal(err)
	}
	if stats := l.Stats(); stats[0].Rows != 151 || !stats[0].MeasuredAt.Equal(later) {
		t.Fatalf("one write after the restart did not make the detector measure: %+v", stats[0])
	}
}

// TestDetectorMergesBackAShrunkPartition: a split partition that shrank
// below the merge fraction is evaluated though its writes could not bring
// it to a limit (the detector's candidates include every split partition),
// and merges back once the window has passed.
func TestDetectorMergesBackAShrunkPartition(t *testing.T) {
	ctx := context.Background()
	l := openLayer(t)
	pol := Policy{Enabled: true, MaxRows: 100, MergeFraction: 0.25, MaxConcurrent: 1, Window: time.Hour, Strategy: "range"}
	l.SetPolicy(func(backend.TableID) Policy { return pol })
	p := testPartition("p")
	apply := func(m backend.Mutation) {
		if err := l.Apply(ctx, &backend.WriteBatch{Mutations: []backend.Mutation{m}}); err != nil {
			t.Fatal(err)
		}
	}
	for k := 0; k < 200; k++ {
		apply(op{kind: 0, key: k, value: 1, ts: 1}.mutation(p))
	}
	if _, err := l.Force(ctx, p, "range", pol); err != nil {
		t.Fatal(err)
	}
	if err := l.Finish(ctx, l.State(p), 50); err != nil {
		t.Fatal(err)
	}
	apply(op{kind: 2, key: 10, upTo: 200, ts: 2}.mutation(p)) // 10 rows left
	now := time.Now()
	if started, err := l.Evaluate(ctx, now); err != nil || len(started) != 0 {
		t.Fatalf("first evaluation started %v (%v)", started, err)
	}
	if s, ok := l.StatsOf(p); !ok || s.Rows != 10 || mayExceed(&s, pol) {
		t.Fatalf("after the first evaluation: tracked %v, %+v", ok, s)
	}
	started, err := l.Evaluate(ctx, now.Add(2*pol.Window))
	if err != nil || len(started) != 1 || started[0].Migration == nil || started[0].Migration.Purpose != "merge" {
		t.Fatalf("evaluation after the window started %+v (%v), want the merge back", started, err)
	}
}
