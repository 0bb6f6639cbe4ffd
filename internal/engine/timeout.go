package engine

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/exec"
	"github.com/partita-db/partita/internal/plan"
)

// Timeouts are how long a request may run before it is abandoned and
// answered with ReadTimeout or WriteTimeout (cassandra.yaml's
// read_request_timeout, range_request_timeout, write_request_timeout,
// counter_write_request_timeout, cas_contention_timeout and
// truncate_request_timeout). Zero means no timeout.
type Timeouts struct {
	Read, Range, Write, CounterWrite, CASContention, Truncate time.Duration
}

// DefaultTimeouts are Cassandra 5.0's (conf/cassandra.yaml).
func DefaultTimeouts() Timeouts {
	return Timeouts{Read: 5 * time.Second, Range: 10 * time.Second, Write: 2 * time.Second,
		CounterWrite: 5 * time.Second, CASContention: time.Second, Truncate: time.Minute}
}

// Write types of a WriteTimeout (native_protocol_v4.spec §9, WriteType.java).
const (
	writeSimple        = "SIMPLE"
	writeBatch         = "BATCH"
	writeUnloggedBatch = "UNLOGGED_BATCH"
	writeCounter       = "COUNTER"
	writeCAS           = "CAS"
)

// requestTimeout is what a statement's timeout is and how it is reported.
type requestTimeout struct {
	limit time.Duration
	// read: ReadTimeout; otherwise WriteTimeout of writeType.
	read      bool
	writeType string
	// lock bounds the wait for a read-modify-write's partition locks
	// (cas_contention_timeout for a conditional write).
	lock        time.Duration
	consistency Consistency
	keyspace    *catalog.Keyspace
}

// timeoutOf is the timeout of plan p. As in StorageProxy, a read of
// partitions by key uses read_request_timeout and a scan (key range,
// index query) range_request_timeout; a conditional write waits for its
// partitions at most cas_contention_timeout and then has
// write_request_timeout to commit.
func (e *Engine) timeoutOf(p plan.Statement, opts *Options) *requestTimeout {
	t := e.cfg.Timeouts
	schema := e.catalog.Current()
	rt := &requestTimeout{consistency: opts.Consistency}
	switch p := p.(type) {
	case *plan.Select:
		rt.read, rt.limit, rt.keyspace = true, t.Read, schema.Keyspace(p.Table.Keyspace)
		if p.IsKeyRange || p.Index != nil {
			rt.limit = t.Range
		}
		if p.Table.Virtual {
			return nil
		}
	case *plan.Modify:
		rt.keyspace = schema.Keyspace(p.Table.Keyspace)
		rt.limit, rt.writeType = t.Write, writeSimple
		switch {
		case p.IsConditional():
			rt.writeType, rt.lock, rt.consistency = writeCAS, t.CASContention, serialConsistency(opts.SerialConsistency)
			rt.limit = addTimeouts(t.CASContention, t.Write)
		case p.Table.IsCounter:
			rt.limit, rt.writeType = t.CounterWrite, writeCounter
		}
	case *plan.Batch:
		rt.limit, rt.writeType = t.Write, writeBatch
		if len(p.Statements) > 0 {
			rt.keyspace = schema.Keyspace(p.Statements[0].Table.Keyspace)
		}
		conditional := false
		for _, m := range p.Statements {
			conditional = conditional || m.IsConditional()
		}
		switch {
		case conditional:
			rt.writeType, rt.lock, rt.consistency = writeCAS, t.CASContention, serialConsistency(opts.SerialConsistency)
			rt.limit = addTimeouts(t.CASContention, t.Write)
		case p.Type == ast.BatchCounter:
			rt.limit, rt.writeType = t.CounterWrite, writeCounter
		case p.Type == ast.BatchUnlogged:
			rt.writeType = writeUnloggedBatch
		}
	default:
		return nil
	}
	if rt.limit <= 0 {
		return nil
	}
	return rt
}

// addTimeouts adds two timeouts, either of which may be 0 (none).
func addTimeouts(a, b time.Duration) time.Duration {
	if a <= 0 || b <= 0 {
		return 0
	}
	return a + b
}

func serialConsistency(c Consistency) Consistency {
	if c == LocalSerial {
		return LocalSerial
	}
	return Serial
}

// withTimeout runs f under the request's timeout and turns a run past it
// into the timeout error. A read that finishes after its deadline is
// abandoned too; a write that was applied is reported applied (the
// backend applies a write batch whole or not at all, so a write cut short
// has written nothing).
func (rt *requestTimeout) run(ctx context.Context, f func(context.Context) (*Result, error)) (*Result, error) {
	if rt == nil {
		return f(ctx)
	}
	tctx, cancel := context.WithTimeout(ctx, rt.limit)
	defer cancel()
	if rt.lock > 0 {
		tctx = exec.WithLockTimeout(tctx, rt.lock)
	}
	res, err := f(tctx)
	if ctx.Err() != nil {
		return res, err // the client went away: not a timeout
	}
	lockTimedOut := errors.Is(err, exec.ErrLockTimeout)
	expired := tctx.Err() != nil
	if !lockTimedOut && !(expired && (err != nil || rt.read)) {
		return res, err
	}
	return nil, rt.error()
}

// error is the timeout error as Cassandra's coordinator sends it when no
// replica answered in time: ReadTimeoutException or
// WriteTimeoutException (CasWriteTimeoutException for a CAS, which protocol
// v4 carries as a WriteTimeout of type CAS), with 0 responses received of
// the consistency level's blockFor, and Cassandra's message
// (exceptions/RequestTimeoutException.java).
func (rt *requestTimeout) error() error {
	blockFor := blockFor(rt.consistency, rt.keyspace)
	if rt.read {
		return cqlerr.NewReadTimeout(uint16(rt.consistency), 0, blockFor, false)
	}
	return cqlerr.NewWriteTimeout(uint16(rt.consistency), 0, blockFor, rt.writeType)
}

// blockFor is ConsistencyLevel.blockFor: the replicas a level waits for
// in keyspace ks.
func blockFor(c Consistency, ks *catalog.Keyspace) int32 {
	rf, local := replicas(ks)
	switch c {
	case Any, One, LocalOne:
		return 1
	case Two:
		return 2
	case Three:
		return 3
	case Quorum, Serial, EachQuorum:
		return rf/2 + 1
	case LocalQuorum, LocalSerial:
		return local/2 + 1
	case All:
		return rf
	}
	return 1
}

// replicas is a keyspace's replication factor in all and in its first
// data center ("3" or, for transient replication, "3/1").
func replicas(ks *catalog.Keyspace) (total, local int32) {
	if ks == nil {
		return 1, 1
	}
	for k, v := range ks.Replication {
		if k == "class" {
			continue
		}
		head, _, _ := strings.Cut(v, "/")
		n, err := strconv.Atoi(head)
		if err != nil {
			continue
		}
		total += int32(n)
		if local == 0 || k == "replication_factor" {
			local = int32(n)
		}
	}
	if total == 0 {
		return 1, 1
	}
	return total, local
}
