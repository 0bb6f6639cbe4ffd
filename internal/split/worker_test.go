package split

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/storage"
)

// fullDisk fails every data movement while full is set, as a store whose
// disk has filled up would; ordinary writes still succeed (Pebble's WAL
// has room for small batches long after a large move fails).
type fullDisk struct {
	*storage.Store
	full atomic.Bool
}

var errNoSpace = errors.New("write /data/000123.sst: no space left on device")

func (f *fullDisk) Move(ctx context.Context, cmd backend.MoveCommand) (backend.MoveStats, error) {
	if f.full.Load() {
		return backend.MoveStats{}, errNoSpace
	}
	return f.Store.Move(ctx, cmd)
}

type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) Printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// TestDiskFullPausesTheSplit: when moving data fails (a full disk), the
// worker pauses the migration with a log line and a metric, reads and
// writes of the partition go on, and once space is back the migration
// resumes and finishes with every row in place.
func TestDiskFullPausesTheSplit(t *testing.T) {
	st, err := storage.Open(storage.Options{Dir: t.TempDir(), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	disk := &fullDisk{Store: st}
	ctx := context.Background()
	l, err := New(ctx, disk)
	if err != nil {
		t.Fatal(err)
	}
	logs := &logLines{}
	l.SetLogger(logs)
	// Paused far longer than the test runs, and ended below by the test
	// itself, so that no retry can come early or late by the clock.
	l.pauseAfterError = time.Hour
	pol := Policy{Enabled: true, MaxRows: 100, ChunkRows: 10, Strategy: "range"}
	l.SetPolicy(func(backend.TableID) Policy { return pol })
	p := testPartition("p")
	write := func(k int) {
		m := op{kind: 0, key: k, value: k % 10, ts: int64(k + 1)}.mutation(p)
		if err := l.Apply(ctx, &backend.WriteBatch{Mutations: []backend.Mutation{m}}); err != nil {
			t.Fatal(err)
		}
	}
	for k := 0; k < 300; k++ {
		write(k)
	}
	if _, err := l.Force(ctx, p, "range", pol); err != nil {
		t.Fatal(err)
	}
	disk.full.Store(true)
	errorsBefore := value(metrics.stepErrors)
	l.stepAll(ctx, time.Second)
	if got := value(metrics.stepErrors) - errorsBefore; got != 1 {
		t.Fatalf("%v step errors counted, want 1", got)
	}
	if value(metrics.paused) != 1 {
		t.Fatalf("paused migrations gauge %v, want 1", value(metrics.paused))
	}
	if !strings.Contains(logs.String(), "split of partition 70 paused for 1h0m0s after a failed step (reads and writes go on): "+errNoSpace.Error()) {
		t.Fatalf("log:\n%s", logs)
	}
	// While paused (and still failing): no retry before the pause ends,
	// and the partition keeps serving reads and writes.
	l.stepAll(ctx, time.Second)
	if got := value(metrics.stepErrors) - errorsBefore; got != 1 {
		t.Fatalf("retried during the pause: %v step errors", got)
	}
	for k := 300; k < 350; k++ {
		write(k)
	}
	if s := l.State(p); s == nil || s.Migration == nil || s.Migration.RowsMoved != 0 {
		t.Fatalf("state during the pause: %+v", s)
	}
	// The pause ends (as if its hour had passed) and the disk frees up.
	l.mu.Lock()
	for key := range l.paused {
		l.paused[key] = time.Now()
	}
	l.mu.Unlock()
	disk.full.Store(false)
	for i := 0; i < 100 && l.State(p).Migration != nil; i++ {
		l.stepAll(ctx, time.Second)
	}
	if s := l.State(p); s.Migration != nil || len(s.Current.AllShards()) < 2 {
		t.Fatalf("the migration did not finish after the disk freed up: %+v", s)
	}
	if value(metrics.paused) != 0 {
		t.Fatalf("paused migrations gauge %v after the migration finished", value(metrics.paused))
	}
	n, _, err := l.checksum(ctx, l.backend, l.reg.get(p), nil)
	if err != nil || n != 350 {
		t.Fatalf("%d rows after the split (%v), want 350", n, err)
	}
}

// value reads a counter or gauge.
func value(c prometheus.Metric) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		panic(err)
	}
	if m.Counter != nil {
		return m.Counter.GetValue()
	}
	return m.Gauge.GetValue()
}
