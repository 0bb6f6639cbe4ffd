package split

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/storage"
)

// sharedStore is the embedded store with shared split states kept in
// memory, and writes that fail with applyErr when it is set.
type sharedStore struct {
	*storage.Store
	mu       sync.Mutex
	rows     map[string]backend.StateRow
	applyErr error
	applies  int
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
	return true, backend.StateRow{}, nil
}

func (s *sharedStore) StateLeases() (time.Duration, time.Duration, bool) {
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
