package split

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/partita-db/partita/internal/backend"
)

// registry keeps the split state of every split logical partition in
// memory; the store holds the same states as metadata, written in the same
// batch as the data each change moves (invariant 4).
type registry struct {
	mu     sync.RWMutex
	states map[string]*State
}

func logicalKey(p backend.LogicalPartition) string { return string(stateKey(p)) }

func (r *registry) get(p backend.LogicalPartition) *State {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.states[logicalKey(p)]
}

func (r *registry) put(s *State) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s.Migration == nil && s.Current.IsUnsplit() {
		delete(r.states, logicalKey(s.Partition))
		return
	}
	r.states[logicalKey(s.Partition)] = s
}

func (r *registry) all() []*State {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*State, 0, len(r.states))
	for _, s := range r.states {
		out = append(out, s)
	}
	return out
}

func (r *registry) empty() bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.states) == 0
}

// load reads every persisted state.
func (r *registry) load(ctx context.Context, b backend.Backend) error {
	kvs, err := b.ScanMeta(ctx, []byte(metaPrefix))
	if err != nil {
		return err
	}
	r.states = map[string]*State{}
	for _, kv := range kvs {
		p, ok := partitionOfStateKey(kv.Key)
		if !ok {
			return fmt.Errorf("split: malformed state key %x", kv.Key)
		}
		s := &State{}
		if err := json.Unmarshal(kv.Value, s); err != nil {
			return fmt.Errorf("split: state of %x: %w", kv.Key, err)
		}
		s.Partition = p
		r.states[logicalKey(p)] = s
	}
	return nil
}

// encodeState is the metadata write that persists s (or deletes it when
// the partition is back to unsplit).
func encodeState(s *State) (backend.MetaWrite, error) {
	key := stateKey(s.Partition)
	if s.Migration == nil && s.Current.IsUnsplit() {
		return backend.MetaWrite{Key: key}, nil
	}
	v, err := json.Marshal(s)
	return backend.MetaWrite{Key: key, Value: v}, err
}

// clone returns a deep copy of s that can be changed and persisted before
// it replaces s.
func (s *State) clone() *State {
	v, _ := json.Marshal(s)
	c := &State{}
	_ = json.Unmarshal(v, c)
	c.Partition = s.Partition
	return c
}
