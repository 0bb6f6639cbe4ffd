package backend

import (
	"context"
	"net"
	"time"
)

// This file holds the optional capabilities of a backend that several
// server processes share (a gateway's cluster store): the client's
// consistency carried to the store, cluster-wide serialisation of
// read-modify-writes, and the list of live processes.

// Consistency is a native protocol consistency level (§3 [consistency]
// of native_protocol_v4.spec: ONE = 0x0001 ... LOCAL_ONE = 0x000A).
type Consistency uint16

// Consistency levels a store needs to name.
const (
	ConsistencyQuorum      Consistency = 0x0004
	ConsistencyAll         Consistency = 0x0005
	ConsistencyLocalQuorum Consistency = 0x0006
	ConsistencyEachQuorum  Consistency = 0x0007
	ConsistencySerial      Consistency = 0x0008
	ConsistencyLocalSerial Consistency = 0x0009
)

// RequestLevels are the consistency levels a client asked for. A store
// that has replicas of its own (a cluster) reads and writes at them; the
// embedded store ignores them.
type RequestLevels struct {
	// Consistency of the statement; 0 means the store's default.
	Consistency Consistency
	// Serial is the serial consistency (SERIAL or LOCAL_SERIAL); 0 means
	// SERIAL.
	Serial Consistency
	// ReadModifyWrite marks the reads and writes of a statement that
	// holds its partitions' read-modify-write locks: they must meet in a
	// quorum whatever the client's level (see PartitionLocker).
	ReadModifyWrite bool
}

type levelsKey struct{}

// WithLevels returns ctx carrying the client's consistency levels.
func WithLevels(ctx context.Context, l RequestLevels) context.Context {
	return context.WithValue(ctx, levelsKey{}, l)
}

// WithReadModifyWrite returns ctx with its levels marked ReadModifyWrite.
func WithReadModifyWrite(ctx context.Context) context.Context {
	l := LevelsFrom(ctx)
	l.ReadModifyWrite = true
	return WithLevels(ctx, l)
}

// LevelsFrom returns the levels ctx carries (zero when none).
func LevelsFrom(ctx context.Context) RequestLevels {
	l, _ := ctx.Value(levelsKey{}).(RequestLevels)
	return l
}

// PartitionLocker is implemented by a backend that several processes
// share: it serialises the read-modify-writes (LWT, counters, list
// operations by index) of a logical partition across all of them. The
// split layer takes a partition's lease after its in-process lock, so a
// process asks for a lease at most once at a time.
type PartitionLocker interface {
	// LeasePartitions holds the leases of ps (sorted by table, token and
	// key, distinct), waiting while another process holds one, in that
	// order so that processes cannot deadlock.
	LeasePartitions(ctx context.Context, ps []LogicalPartition, levels RequestLevels) (PartitionLease, error)
}

// PartitionLease is the cluster-wide hold on some logical partitions.
type PartitionLease interface {
	// Fence returns the write timestamp to use for ts under the lease:
	// above every timestamp an earlier holder may write, and within what
	// this holder has announced, so that a stale holder's late write
	// loses last-write-wins to every later holder's.
	Fence(ctx context.Context, ts int64) (int64, error)
	// Release ends this use of the lease. When wrote is set it first
	// confirms that the lease was held until the write was acknowledged,
	// and returns a write timeout (outcome unknown) when it was not.
	Release(ctx context.Context, wrote bool) error
}

// Peer is a live server process as system.peers describes it.
type Peer struct {
	HostID           [16]byte
	Address          net.IP
	Port             int
	DataCenter, Rack string
	ReleaseVersion   string
	SchemaVersion    [16]byte
	Tokens           []int64
}

// Membership is implemented by a backend that several server processes
// share: each announces itself and learns the others.
type Membership interface {
	// Heartbeat records self as live for ttl and returns the other live
	// processes.
	Heartbeat(ctx context.Context, self Peer, ttl time.Duration) ([]Peer, error)
}
