package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/split"
	"github.com/partita-db/partita/internal/token"
)

// TestLockOrderStress runs, at once, every path that takes more than one of
// the storage and split locks (doc.go, "Lock order"): forced split and merge
// steps (the split layer's step and routing stripes and fences, then
// Store.Move), writes that fold a hot row on every write (dropMu shared, then
// the partition stripe held exclusively), range and partition deletions
// that rewrite (the same, and a flush after a large one), read-modify-writes
// under the split layer's partition locks, reads, two concurrent garbage
// collectors (gc.mu, dropMu shared, stripe), and table drops both by DROP
// TABLE (dropMu exclusive) and by the collector's purge of a table GCGrace
// no longer knows (gc.mu, then dropMu exclusive). It goes through the real
// split layer (a test may import it; storage code may not) because a split
// step is what calls Move, under the layer's own locks.
//
// It fails when the workers do not all stop within stallTimeout of the
// planned end of the run, printing every goroutine's stack, or when some
// kind of operation never completed. Before the lock order was fixed, Move
// took the stripe and then dropMu while every other path takes dropMu
// first: a move, a folding write or GC pass on the same stripe and a pending
// drop deadlocked within a second. Run it under -race too: the same mix is
// what the race detector needs to see.
func TestLockOrderStress(t *testing.T) {
	run := 10 * time.Second
	if testing.Short() {
		run = 3 * time.Second
	}
	// Workers may go on until hardStop (3 * run) for the kinds not yet
	// covered; each operation is short, so stallTimeout leaves the last ones
	// more than half a minute.
	const stallTimeout = 60 * time.Second
	e := newStressEnv(t, run)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var wg sync.WaitGroup
	for name, worker := range e.workers() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := worker(ctx); err != nil {
				e.fail(name, err)
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Until(e.stop) + stallTimeout):
		var stacks bytes.Buffer
		_ = pprof.Lookup("goroutine").WriteTo(&stacks, 2)
		// The store stays open: the stuck goroutines still hold its locks
		// and iterators.
		t.Fatalf("workers still running %v after the end of the run (a deadlock?); progress %v\n\n%s",
			stallTimeout, e.progress(), stacks.String())
	}
	if err := e.store.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("progress: %v", e.progress())
	// A run in which some path never ran checks nothing about it.
	for _, k := range stressKinds {
		if e.count(k) == 0 {
			t.Errorf("no %s completed during the run", k)
		}
	}
}

// stressEnv is what the workers of TestLockOrderStress share.
type stressEnv struct {
	t     *testing.T
	store *Store
	layer *split.Layer
	// The workers stop at stop once every kind of operation has completed,
	// at hardStop in any case.
	stop, hardStop time.Time
	covered        atomic.Bool
	// slots hold the tables being written; a drop replaces a slot's table
	// with a new one.
	slots     [2]atomic.Uint64
	nextTable atomic.Uint64
	dropped   sync.Map // backend.TableID: GCGrace no longer knows it
	clock     atomic.Int64
	mu        sync.Mutex
	counts    map[string]int64
	failed    atomic.Bool
}

// The kinds of completed operations counted (each must happen at least once).
var stressKinds = []string{"fold write", "rmw", "range delete", "large delete", "read", "split step",
	"merge step", "gc pass", "drop table", "gc table purge", "scratch drop"}

// scratchTable is dropped over and over; nothing reads it.
const scratchTable backend.TableID = 1

func newStressEnv(t *testing.T, run time.Duration) *stressEnv {
	start := time.Now()
	e := &stressEnv{t: t, stop: start.Add(run), hardStop: start.Add(3 * run), counts: map[string]int64{}}
	e.nextTable.Store(100)
	for i := range e.slots {
		e.slots[i].Store(e.nextTable.Add(1))
	}
	e.clock.Store(time.Now().UnixMicro())
	st, err := Open(Options{
		Dir: "db", fs: vfs.NewMem(), NoSync: true,
		// Every write of one row folds (invariant 13), so every plain write
		// takes dropMu shared and its stripe exclusively.
		foldAfter:    1,
		memTableSize: 1 << 20,
		GCGrace: func(id backend.TableID) (int64, bool) {
			_, gone := e.dropped.Load(id)
			return 0, !gone
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.store = st
	if e.layer, err = split.New(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	return e
}

// workers returns every worker by name; each runs until the end of the run.
func (e *stressEnv) workers() map[string]func(context.Context) error {
	return map[string]func(context.Context) error{
		"writer 1":      e.writer,
		"writer 2":      e.writer,
		"rmw":           e.readModifyWrite,
		"deleter":       e.deleter,
		"bulk":          e.bulkDeleter,
		"reader":        e.reader,
		"splitter 0":    func(ctx context.Context) error { return e.splitter(ctx, 0) },
		"splitter 1":    func(ctx context.Context) error { return e.splitter(ctx, 1) },
		"gc":            e.collector,
		"table dropper": e.tableDropper,
		"scratch drops": e.scratchDropper,
		"gc 2":          e.collector,
	}
}

func (e *stressEnv) running() bool {
	if e.failed.Load() {
		return false
	}
	now := time.Now()
	return now.Before(e.stop) || (now.Before(e.hardStop) && !e.covered.Load())
}

func (e *stressEnv) fail(worker string, err error) {
	e.failed.Store(true)
	e.t.Errorf("%s: %v", worker, err)
}

func (e *stressEnv) done(kind string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.counts[kind]++
	if e.counts[kind] == 1 && len(e.counts) == len(stressKinds) {
		e.covered.Store(true)
	}
}

func (e *stressEnv) count(kind string) int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.counts[kind]
}

func (e *stressEnv) progress() map[string]int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string]int64, len(e.counts))
	for k, v := range e.counts {
		out[k] = v
	}
	return out
}

// now hands out strictly increasing timestamps (µs).
func (e *stressEnv) now() int64 {
	for {
		now, last := time.Now().UnixMicro(), e.clock.Load()
		if now <= last {
			now = last + 1
		}
		if e.clock.CompareAndSwap(last, now) {
			return now
		}
	}
}

// partition is partition key of the table in slot.
func (e *stressEnv) partition(slot int, key string) backend.LogicalPartition {
	k := []byte(key)
	return backend.LogicalPartition{Table: backend.TableID(e.slots[slot].Load()), Token: token.Of(k), Key: k}
}

// randomPartition is one of the four partitions of a slot's table that the
// splitters move (p0, p1) or not (p2, p3).
func (e *stressEnv) randomPartition() backend.LogicalPartition {
	return e.partition(rand.IntN(len(e.slots)), fmt.Sprintf("p%d", rand.IntN(4)))
}

const stressRows = 48 // clustering keys per partition

func stressKey(i int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(i)) }

func (e *stressEnv) apply(ctx context.Context, muts ...backend.Mutation) error {
	return e.layer.Apply(ctx, &backend.WriteBatch{Mutations: muts})
}

// writeOne writes one row with one cell: a mutation of one row, which folds.
func (e *stressEnv) writeOne(ctx context.Context, p backend.LogicalPartition, clustering []byte, value string) error {
	ts := e.now()
	m := backend.NewMutation(p.Physical(backend.HomeShard))
	r := backend.NewRow(clustering)
	r.Liveness = backend.Liveness{Timestamp: ts, ExpiresAt: backend.NoDeletionTime}
	r.Cells = []backend.Cell{{Column: 1, Value: []byte(value), Timestamp: ts, LocalDeletionTime: backend.NoDeletionTime}}
	m.Rows = []backend.Row{r}
	return e.apply(ctx, m)
}

func (e *stressEnv) writer(ctx context.Context) error {
	for i := 0; e.running(); i++ {
		if err := e.writeOne(ctx, e.randomPartition(), stressKey(rand.IntN(stressRows)), fmt.Sprint(i)); err != nil {
			return err
		}
		e.done("fold write")
	}
	return nil
}

// readModifyWrite increments a counter row under the split layer's
// partition lock, as an LWT or a counter update does.
func (e *stressEnv) readModifyWrite(ctx context.Context) error {
	for e.running() {
		p := e.randomPartition()
		key := stressKey(rand.IntN(stressRows))
		lock, err := e.layer.LockPartitions(ctx, []backend.LogicalPartition{p}, backend.RequestLevels{})
		if err != nil {
			return err
		}
		unlock := lock.Unlock
		it, err := e.layer.Read(ctx, backend.ReadCommand{Partition: p.Physical(backend.HomeShard),
			Slices: []backend.Slice{{Start: key, End: append(bytes.Clone(key), 0)}}, Now: time.Now().Unix()})
		if err != nil {
			unlock()
			return err
		}
		n := 0
		if it.Next() && len(it.Row().Cells) > 0 {
			fmt.Sscan(string(it.Row().Cells[0].Value), &n)
		}
		err = it.Err()
		if cerr := it.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = e.writeOne(ctx, p, key, fmt.Sprint(n+1))
		}
		unlock()
		if err != nil {
			return err
		}
		e.done("rmw")
	}
	return nil
}

// deleter deletes clustering ranges, half of them older than the newest
// write, so the rows in range are read and what is newer written back.
func (e *stressEnv) deleter(ctx context.Context) error {
	for e.running() {
		lo := rand.IntN(stressRows)
		ts := e.now()
		if rand.IntN(2) == 0 {
			ts -= 2000
		}
		m := backend.NewMutation(e.randomPartition().Physical(backend.HomeShard))
		m.RangeTombstones = []backend.RangeTombstone{{
			Slice:    backend.Slice{Start: stressKey(lo), End: stressKey(lo + 1 + rand.IntN(4))},
			Deletion: backend.DeletionTime{MarkedForDeleteAt: ts, LocalDeletionTime: time.Now().Unix() - 10},
		}}
		if err := e.apply(ctx, m); err != nil {
			return err
		}
		e.done("range delete")
		time.Sleep(time.Millisecond)
	}
	return nil
}

// bulkDeleter writes more than largeDeletion rows and deletes the
// partition, which starts a memtable flush while the deletion's locks are
// held.
func (e *stressEnv) bulkDeleter(ctx context.Context) error {
	for e.running() {
		p := e.partition(rand.IntN(len(e.slots)), "bulk").Physical(backend.HomeShard)
		ts := e.now()
		m := backend.NewMutation(p)
		for i := 0; i < largeDeletion+100; i++ {
			r := backend.NewRow(stressKey(i))
			r.Liveness = backend.Liveness{Timestamp: ts, ExpiresAt: backend.NoDeletionTime}
			m.Rows = append(m.Rows, r)
		}
		if err := e.apply(ctx, m); err != nil {
			return err
		}
		del := backend.NewMutation(p)
		del.PartitionDeletion = backend.DeletionTime{MarkedForDeleteAt: e.now(), LocalDeletionTime: time.Now().Unix()}
		if err := e.apply(ctx, del); err != nil {
			return err
		}
		e.done("large delete")
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}

func (e *stressEnv) reader(ctx context.Context) error {
	for e.running() {
		p := e.randomPartition()
		it, err := e.layer.Read(ctx, backend.ReadCommand{Partition: p.Physical(backend.HomeShard),
			Slices: []backend.Slice{backend.FullSlice}, Static: true, Now: time.Now().Unix()})
		if err != nil {
			return err
		}
		for it.Next() {
		}
		err = it.Err()
		if cerr := it.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		e.done("read")
	}
	return nil
}

// splitter splits partition p0 or p1 of its slot's table by range, moves it
// in steps of a few rows, then merges it back the same way.
func (e *stressEnv) splitter(ctx context.Context, slot int) error {
	for i := 0; e.running(); i++ {
		p := e.partition(slot, fmt.Sprintf("p%d", i%2))
		// Force refuses a partition with too few rows (a table just
		// replaced by a drop); the writers soon fill the new one.
		if _, err := e.layer.Force(ctx, p, "range", split.Policy{MaxRows: 12}); err != nil {
			time.Sleep(time.Millisecond)
			continue
		}
		if err := e.steps(ctx, p, "split step"); err != nil {
			return err
		}
		if _, err := e.layer.MergeBack(ctx, p, "test"); err != nil {
			return err
		}
		if err := e.steps(ctx, p, "merge step"); err != nil {
			return err
		}
	}
	return nil
}

// steps runs p's migration to its end, a few rows per step. It keeps going
// after the end of the run: a migration left half done would make the next
// Force on p fail.
func (e *stressEnv) steps(ctx context.Context, p backend.LogicalPartition, kind string) error {
	for !e.failed.Load() {
		res, err := e.layer.Step(ctx, p, 3)
		if err != nil {
			return err
		}
		e.done(kind)
		if res.Done {
			return nil
		}
	}
	return nil
}

func (e *stressEnv) collector(ctx context.Context) error {
	for e.running() {
		st, err := e.store.CollectGarbage(ctx, time.Now(), GCLimits{MaxPartitions: 3})
		if err != nil {
			return err
		}
		e.done("gc pass")
		if st.TablesDropped > 0 {
			e.done("gc table purge")
		}
	}
	return nil
}

// tableDropper replaces a slot's table now and then: half the time by DROP
// TABLE (the schema change and the drop in one batch, as the engine's
// SaveSchema does), half the time by forgetting it, so that the collector
// purges it.
func (e *stressEnv) tableDropper(ctx context.Context) error {
	for i := 0; e.running(); i++ {
		time.Sleep(150 * time.Millisecond)
		old := backend.TableID(e.slots[i%len(e.slots)].Swap(e.nextTable.Add(1)))
		if i%4 < 2 {
			e.dropped.Store(old, true)
			continue
		}
		err := e.layer.Apply(ctx, &backend.WriteBatch{
			Meta:       []backend.MetaWrite{{Key: []byte("stress/schema"), Value: []byte(fmt.Sprint(old))}},
			DropTables: []backend.TableID{old}})
		if err != nil {
			return err
		}
		e.dropped.Store(old, true)
		e.done("drop table")
	}
	return nil
}

// scratchDropper drops a table nobody reads in a loop, so that a drop
// waiting for dropMu is nearly always pending.
func (e *stressEnv) scratchDropper(ctx context.Context) error {
	for e.running() {
		if err := e.store.Apply(ctx, &backend.WriteBatch{DropTables: []backend.TableID{scratchTable}}); err != nil {
			return err
		}
		e.done("scratch drop")
	}
	return nil
}
