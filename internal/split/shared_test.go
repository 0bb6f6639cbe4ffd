package split

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/storage"
)

// sharedStore is the embedded store with shared split states kept in
// memory, leases of lease each (a minute when 0), and writes that fail
// with applyErr when it is set.
type sharedStore struct {
	*storage.Store
	lease    time.Duration
	mu       sync.Mutex
	rows     map[string]backend.StateRow
	applyErr error
	applies  int
	// casErr, when set, is returned once by a compare-and-set that
	// applied (as a CAS that timed out in the cluster yet committed).
	casErr error
}

func (s *sharedStore) Apply(ctx context.Context, b *backend.WriteBatch) error {
	s.mu.Lock()
	s.applies++
	err := s.applyErr
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return s.Store.Apply(ctx, b)
}

func (s *sharedStore) LoadStates(_ context.Context, prefix []byte) ([]backend.StateRow, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []backend.StateRow
	for k, r := range s.rows {
		if bytes.HasPrefix([]byte(k), prefix) {
			out = append(out, r)
		}
	}
	return out, nil
}

func (s *sharedStore) GetState(_ context.Context, key []byte) (backend.StateRow, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rows[string(key)], nil
}

func (s *sharedStore) CompareAndSetState(_ context.Context, key []byte, prev uint64, value []byte) (bool, backend.StateRow, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.rows[string(key)]; r.Epoch != prev {
		return false, r, nil
	}
	s.rows[string(key)] = backend.StateRow{Key: key, Epoch: prev + 1, Value: value}
	if err := s.casErr; err != nil {
		s.casErr = nil
		return false, backend.StateRow{}, err
	}
	return true, backend.StateRow{}, nil
}

func (s *sharedStore) StateLeases() (time.Duration, time.Duration, bool) {
	if s.lease > 0 {
		return s.lease, s.lease, true
	}
	return time.Minute, time.Minute, true
}

// TestSharedWriteErrorPassesThrough: over shared states, a write that the
// store fails well inside its lease returns the store's error, once; only
// a write stopped by the lease's deadline is retried and reported as
// having outlived the lease.
func TestSharedWriteErrorPassesThrough(t *testing.T) {
	pebble, err := storage.Open(storage.Options{Dir: t.TempDir(), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer pebble.Close()
	st := &sharedStore{Store: pebble, rows: map[string]backend.StateRow{}}
	ctx := context.Background()
	l, err := New(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if l.Gateway() == "" {
		t.Fatal("the layer does not use the store's shared states")
	}
	p := testPartition("k")
	write := func() error {
		m := op{kind: 0, key: 1, value: 1, ts: 10}.mutation(p)
		return l.Apply(ctx, &backend.WriteBatch{Mutations: []backend.Mutation{m}})
	}
	if err := write(); err != nil {
		t.Fatalf("write with the store working: %v", err)
	}
	injected := errors.New("connection closed waiting for response")
	st.mu.Lock()
	st.applyErr, st.applies = injected, 0
	st.mu.Unlock()
	err = write()
	if !errors.Is(err, injected) {
		t.Errorf("write the store failed: got %v, want the store's error", err)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.applies != 1 {
		t.Errorf("the store was asked %d times, want once", st.applies)
	}
}

// TestSharedScanOutlivingItsLease: a scan over shared states returns the
// rows of an unsplit partition straight from the backend's scan. Rows that
// arrive past the scan's lease (lease + drain) are returned under a fresh
// lease only while the partition's state row is unchanged: once another
// gateway has started to split it, the scan fails with the retryable
// error a read gets, rather than go on by the map it started with.
func TestSharedScanOutlivingItsLease(t *testing.T) {
	pebble, err := storage.Open(storage.Options{Dir: t.TempDir(), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer pebble.Close()
	st := &sharedStore{Store: pebble, rows: map[string]backend.StateRow{}, lease: time.Second}
	ctx := context.Background()
	other, err := New(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	scanner, err := New(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	p := testPartition("k")
	const rows = 50
	for k := 0; k < rows; k++ {
		m := op{kind: 0, key: k, value: 1, ts: 10}.mutation(p)
		if err := other.Apply(ctx, &backend.WriteBatch{Mutations: []backend.Mutation{m}}); err != nil {
			t.Fatal(err)
		}
	}
	outlived := 2500 * time.Millisecond // past the lease and its drain
	// scan reads the first row, waits past the lease, runs between, and
	// reads on to the end.
	scan := func(between func()) (int, error) {
		it, err := scanner.Scan(ctx, backend.ScanCommand{Table: p.Table})
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		n := 0
		if it.Next() {
			n++
		}
		time.Sleep(outlived)
		between()
		for it.Next() {
			n++
		}
		return n, it.Err()
	}
	if n, err := scan(func() {}); err != nil || n != rows {
		t.Fatalf("scan past its lease, states unchanged: %d rows, %v; want %d rows", n, err, rows)
	}
	n, err := scan(func() {
		if _, err := other.Force(ctx, p, "range", Policy{Enabled: true, MaxRows: 10, MaxConcurrent: 1, Strategy: "range"}); err != nil {
			t.Fatal(err)
		}
	})
	if err == nil || !strings.Contains(err.Error(), "outlived the gateway's lease") {
		t.Fatalf("scan past its lease while another gateway split the partition: %d rows, %v; want the lease error", n, err)
	}
}

// TestSplitRetriedAfterItsTimeoutApplied: an operator split whose state
// change timed out but applied in the cluster, sent again, is told that
// the state now holds this gateway's own migration (not that another
// gateway changed it), and the migration it started runs.
func TestSplitRetriedAfterItsTimeoutApplied(t *testing.T) {
	pebble, err := storage.Open(storage.Options{Dir: t.TempDir(), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer pebble.Close()
	timeout := errors.New("Operation timed out - received only 0 responses (CAS)")
	st := &sharedStore{Store: pebble, rows: map[string]backend.StateRow{}}
	ctx := context.Background()
	l, err := New(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	p := testPartition("k")
	for k := 0; k < 30; k++ {
		m := op{kind: 0, key: k, value: 1, ts: 10}.mutation(p)
		if err := l.Apply(ctx, &backend.WriteBatch{Mutations: []backend.Mutation{m}}); err != nil {
			t.Fatal(err)
		}
	}
	pol := Policy{Enabled: true, MaxRows: 10, MaxConcurrent: 1, Strategy: "range"}
	st.mu.Lock()
	st.casErr = timeout
	st.mu.Unlock()
	if _, err := l.Force(ctx, p, "range", pol); !errors.Is(err, timeout) {
		t.Fatalf("first split: %v, want the timeout", err)
	}
	_, err = l.Force(ctx, p, "range", pol)
	if !errors.Is(err, errStateChanged) || !strings.Contains(err.Error(), "a migration this gateway owns") {
		t.Fatalf("split sent again: %v, want the state changed to this gateway's own migration", err)
	}
	if s := l.reg.get(p); s == nil || s.Migration == nil || s.Migration.Owner != l.shared.opts.Gateway {
		t.Fatalf("state after the retry: %+v, want this gateway's migration", s)
	}
}
