package backend

import (
	"context"
	"time"
)

// SharedStates is an optional capability of a Backend (found by type
// assertion): split states kept where several gateways over one store see
// them, each row changed only by a compare-and-set on its epoch. A backend
// without it is used by one process, which keeps the states as metadata
// written with the data they move.
type SharedStates interface {
	// LoadStates returns every state row whose key starts with prefix, in
	// key order, including rows whose value is empty (a partition back to
	// unsplit keeps its row and epoch). A read sent after a
	// compare-and-set was acknowledged returns what it wrote.
	LoadStates(ctx context.Context, prefix []byte) ([]StateRow, error)
	// GetState returns one state row (Epoch 0 when there is none).
	GetState(ctx context.Context, key []byte) (StateRow, error)
	// CompareAndSetState writes value under key with epoch prev+1 only if
	// the stored epoch is prev (0: no row). When it does not apply it
	// returns false and the stored row.
	CompareAndSetState(ctx context.Context, key []byte, prev uint64, value []byte) (bool, StateRow, error)
	// StateLeases returns the configured lease and drain of the states (0:
	// the split layer's defaults), and whether the states are shared at
	// all (false: one process uses the store, which keeps the states as
	// metadata).
	StateLeases() (lease, drain time.Duration, shared bool)
}

// StateRow is one shared split state: its key, its epoch (the number of
// changes it went through) and its value (empty: unsplit).
type StateRow struct {
	Key   []byte
	Epoch uint64
	Value []byte
}
