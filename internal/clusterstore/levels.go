package clusterstore

import (
	"context"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/backend"
)

// The client's consistency reaches the cluster (docs/design/gateway.md,
// "Routing, concurrency, consistency"): a statement reads and writes at
// the level its client sent, as it would against Cassandra; the store's
// configured level is the default for what no client asked (metadata,
// moves, the batch log, internal reads). A read-modify-write needs more:
// its read must see every write an earlier holder of the partition's lease
// made, so both run at least at the quorum of its serial consistency.

// level is the consistency of a read or write made for ctx.
func (s *Store) level(ctx context.Context) gocql.Consistency {
	l := backend.LevelsFrom(ctx)
	if l.ReadModifyWrite {
		return rmwLevel(l)
	}
	if l.Consistency == 0 {
		return s.opts.Consistency
	}
	return gocql.Consistency(l.Consistency)
}

// rmwLevel is the client's level when it already meets in a quorum with
// every other read-modify-write of the serial consistency's scope, else
// that scope's quorum: QUORUM for SERIAL, LOCAL_QUORUM for LOCAL_SERIAL.
func rmwLevel(l backend.RequestLevels) gocql.Consistency {
	switch l.Consistency {
	case backend.ConsistencyQuorum, backend.ConsistencyAll, backend.ConsistencyEachQuorum:
		return gocql.Consistency(l.Consistency)
	case backend.ConsistencyLocalQuorum:
		if l.Serial == backend.ConsistencyLocalSerial {
			return gocql.LocalQuorum
		}
	}
	if l.Serial == backend.ConsistencyLocalSerial {
		return gocql.LocalQuorum
	}
	return gocql.Quorum
}

// serialLevel is the serial consistency of the lease rounds taken for l.
func serialLevel(l backend.RequestLevels) gocql.SerialConsistency {
	if l.Serial == backend.ConsistencyLocalSerial {
		return gocql.LocalSerial
	}
	return gocql.Serial
}
