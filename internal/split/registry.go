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
	// epochs holds, with shared states, the row epoch of every state row
	// seen, split or back to unsplit, so that an older read never replaces
	// a newer state and a change is made from the epoch it was decided on.
	epochs map[string]uint64
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

// getWithEpoch returns a partition's state (nil: unsplit) and the epoch of
// its shared state row, read together.
func (r *registry) getWithEpoch(p backend.LogicalPartition) (*State, uint64) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	key := logicalKey(p)
	return r.states[key], r.epochs[key]
}

// putShared installs the state of a shared row (s nil or unsplit: the
// partition is unsplit) unless the registry holds a newer epoch already; it
// reports whether it did.
func (r *registry) putShared(p backend.LogicalPartition, s *State, epoch uint64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := logicalKey(p)
	if r.epochs == nil {
		r.epochs = map[string]uint64{}
	}
	if epoch == 0 || epoch <= r.epochs[key] {
		return false
	}
	r.epochs[key] = epoch
	if s == nil || s.Migration == nil && s.Current.IsUnsplit() {
		delete(r.states, key)
		return true
	}
	s.Partition, s.rowEpoch = p, epoch
	r.states[key] = s
	return true
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
	c.Partition, c.rowEpoch = s.Partition, s.rowEpoch
	return c
}
