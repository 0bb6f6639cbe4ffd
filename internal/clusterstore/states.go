package clusterstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/backend"
)

// Split states shared by every gateway of the keyspace
// (backend.SharedStates): one row per state in the table splitstates,
// changed only by lightweight transactions on its epoch, so that two
// gateways never both apply a change made from the same state. The rows
// are never written without a condition: mixing plain writes into rows that
// Paxos changes breaks Paxos's ordering.

// serial is the consistency of the state rows' Paxos rounds: the local data
// centre's when the store's consistency is a local one.
func (s *Store) serial() gocql.SerialConsistency {
	switch s.opts.Consistency {
	case gocql.LocalQuorum, gocql.LocalOne:
		return gocql.LocalSerial
	}
	return gocql.Serial
}

// LoadStates implements backend.SharedStates. It reads at the store's
// consistency, which is also the commit consistency of the conditional
// updates, so with a quorum (the default LOCAL_QUORUM) a read sent after a
// change was acknowledged returns it; one sent earlier may not, and the
// lease it gives starts when it was sent (internal/split shared.go S2).
// SERIAL reads would serialise every gateway's refresh through the
// partition's Paxos and contend with the changes.
func (s *Store) LoadStates(ctx context.Context, prefix []byte) ([]backend.StateRow, error) {
	release, err := s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	q := fmt.Sprintf(`SELECT key, epoch, value FROM %s.splitstates WHERE bucket = 0 AND key >= ?`, s.keyspace)
	args := []any{nonNil(prefix)}
	if end := backend.PrefixSuccessor(prefix); end != nil {
		q += ` AND key < ?`
		args = append(args, end)
	}
	it := s.session.Query(q, args...).WithContext(ctx).PageSize(s.opts.PageSize).Iter()
	var out []backend.StateRow
	var k, v []byte
	var epoch int64
	for it.Scan(&k, &epoch, &v) {
		out = append(out, backend.StateRow{Key: append([]byte{}, k...), Epoch: uint64(epoch), Value: append([]byte{}, v...)})
	}
	return out, clusterError(it.Close())
}

// GetState implements backend.SharedStates (read as LoadStates reads).
func (s *Store) GetState(ctx context.Context, key []byte) (backend.StateRow, error) {
	release, err := s.acquire(ctx)
	if err != nil {
		return backend.StateRow{}, err
	}
	defer release()
	return s.getStateLocked(ctx, key)
}

// CompareAndSetState implements backend.SharedStates: INSERT … IF NOT
// EXISTS for a first state, UPDATE … IF epoch = prev afterwards.
func (s *Store) CompareAndSetState(ctx context.Context, key []byte, prev uint64, value []byte) (bool, backend.StateRow, error) {
	release, err := s.acquire(ctx)
	if err != nil {
		return false, backend.StateRow{}, err
	}
	defer release()
	var q *gocql.Query
	if prev == 0 {
		q = s.session.Query(fmt.Sprintf(`INSERT INTO %s.splitstates (bucket, key, epoch, value) VALUES (0, ?, 1, ?) IF NOT EXISTS`,
			s.keyspace), key, nonNil(value))
	} else {
		q = s.session.Query(fmt.Sprintf(`UPDATE %s.splitstates SET epoch = ?, value = ? WHERE bucket = 0 AND key = ? IF epoch = ?`,
			s.keyspace), int64(prev+1), nonNil(value), key, int64(prev))
	}
	cur := map[string]any{}
	applied, err := q.WithContext(ctx).SerialConsistency(s.serial()).MapScanCAS(cur)
	if err != nil {
		return false, backend.StateRow{}, clusterError(err)
	}
	if applied {
		return true, backend.StateRow{Key: key, Epoch: prev + 1, Value: value}, nil
	}
	// The condition failed: the row as it is (its epoch; the value is read
	// again, as an UPDATE's answer carries only the compared column).
	row, err := s.getStateLocked(ctx, key)
	return false, row, err
}

// getStateLocked is GetState with the caller holding an in-flight slot.
func (s *Store) getStateLocked(ctx context.Context, key []byte) (backend.StateRow, error) {
	row := backend.StateRow{Key: key}
	var epoch int64
	err := s.session.Query(fmt.Sprintf(`SELECT epoch, value FROM %s.splitstates WHERE bucket = 0 AND key = ?`, s.keyspace), key).
		WithContext(ctx).Scan(&epoch, &row.Value)
	if errors.Is(err, gocql.ErrNotFound) {
		return row, nil
	}
	row.Epoch = uint64(epoch)
	return row, clusterError(err)
}

// StateLeases implements backend.SharedStates; shared is false for a
// store opened with SingleGateway.
func (s *Store) StateLeases() (lease, drain time.Duration, shared bool) {
	return s.opts.StateLease, s.opts.StateDrain, !s.opts.SingleGateway
}

var _ backend.SharedStates = (*Store)(nil)
