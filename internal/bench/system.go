package bench

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"
)

// System names, as reports print them.
const (
	SystemPartita           = "partita"
	SystemPostgres          = "postgres"
	SystemCassandra         = PeerCassandra
	SystemCassandraPeriodic = PeerCassandraPeriodic
	SystemPebble            = "pebble"
	// SystemCassandraDirect is the gateway target's Cassandra node, read
	// and written directly: the same node the gateway stores its data on.
	SystemCassandraDirect = "cassandra-direct"
)

// systemOrder is the order systems run in and reports list them.
var systemOrder = []string{SystemPartita, SystemCassandraDirect, SystemPostgres, SystemCassandra, SystemCassandraPeriodic, SystemPebble}

// writesOnly reports whether a system runs only the steps that write: the
// periodic Cassandra differs from the batch one only in when it syncs its
// commit log, which reads never wait for.
func writesOnly(system string) bool { return system == SystemCassandraPeriodic }

// system is one database under test.
type system interface {
	name() string
	// createTables creates the tables, dropping any left by an earlier run.
	createTables(ctx context.Context, tables []*table) error
	// prepare readies a statement; errNotApplicable when the system does
	// not run this kind of statement (raw Pebble only writes).
	prepare(ctx context.Context, st statement) (op, error)
	close() error
}

// op runs one request. Several argument lists make one single-partition
// batch (one atomic write). It returns the number of rows read.
type op func(ctx context.Context, rows [][]any) (int, error)

// casSystem is implemented by systems that can run the lwt workload's
// compare-and-set.
type casSystem interface {
	// prepareCAS readies update (arguments v, next version, k, expected
	// version) and read (argument k; one version column).
	prepareCAS(ctx context.Context, update, read statement) (casOp, error)
}

// casOp sets v and the next version where the version is as expected; when
// it is not, it returns the current version.
type casOp func(ctx context.Context, args []any) (applied bool, current int64, err error)

// analyzer is implemented by systems that keep planner statistics: after
// each write step the runner refreshes them, untimed, so that reads are
// planned for the data as it now is (what autovacuum would do, given time).
type analyzer interface {
	analyze(ctx context.Context, tables []*table) error
}

// serverProcess is implemented by systems whose server process the runner
// can see: its resident set is sampled during ingest steps, and during
// every step when it is a process of its own.
type serverProcess interface {
	// serverPid is the process id, 0 when it is not known.
	serverPid() int
	// ownProcess reports whether the server runs in a process of its own
	// (not the harness's).
	ownProcess() bool
}

// metered is implemented by systems whose server runs in a process of its
// own: the runner reads its counters before and after every step.
type metered interface {
	// meter is nil when the server's process is not known.
	meter() *serverMeter
}

// profiler is implemented by servers that can profile themselves.
type profiler interface {
	canProfile() bool
	// startProfile starts a CPU profile of the server; the function it
	// returns stops it and writes it to path.
	startProfile(ctx context.Context, path string) (func() error, error)
}

// settler is implemented by systems with background work that would run
// beside the next system's steps: the runner waits for it, untimed, after
// the system finishes a workload, and says how long it waited.
type settler interface {
	settle(ctx context.Context) (time.Duration, error)
}

// errNotApplicable marks a statement a system does not run.
var errNotApplicable = fmt.Errorf("not applicable")

// encodeKeyValue renders a row as a Pebble key and value: the table name
// and key columns in an order-preserving encoding, then the other columns.
// It is the same bytes Partita stores, give or take its cell metadata, so
// writing it is the floor Partita's write path cannot beat.
func encodeKeyValue(key, value []byte, t *table, row []any) ([]byte, []byte, error) {
	key = append(key, t.name...)
	key = append(key, 0)
	for i, v := range row {
		var err error
		if i < t.keyCols() {
			key, err = appendValue(key, v)
		} else {
			value, err = appendValue(value, v)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s column %d: %w", t.name, i, err)
		}
	}
	return key, value, nil
}

// appendValue encodes the argument types the workloads use: strings
// zero-terminated, numbers and times big-endian.
func appendValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case string:
		return append(append(b, v...), 0), nil
	case time.Time:
		return binary.BigEndian.AppendUint64(b, uint64(v.UnixMilli())^1<<63), nil
	case float32:
		return binary.BigEndian.AppendUint32(b, math.Float32bits(v)), nil
	case int64:
		return binary.BigEndian.AppendUint64(b, uint64(v)^1<<63), nil
	case [16]byte:
		return append(b, v[:]...), nil
	default:
		return nil, fmt.Errorf("no encoding for %T", v)
	}
}
