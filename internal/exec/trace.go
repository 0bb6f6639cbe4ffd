package exec

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/types"
)

// Trace records the events of one traced request (system_traces.events).
// The engine starts one when a request asks for tracing (or is picked by
// trace_probability) and puts it in the request's context; code that does
// something worth reporting looks it up with TraceFrom and, only when it is
// non-nil, formats an event. An untraced request therefore pays one
// context lookup per trace point and formats nothing.
type Trace struct {
	start time.Time
	mu    sync.Mutex
	// events are in the order they were recorded.
	events []TraceEvent
}

// TraceEvent is one row of system_traces.events.
type TraceEvent struct {
	// ID is the event's timeuuid (event_id), taken when it happened, so a
	// session's events sort in the order they were recorded.
	ID       []byte
	Activity string
	// Elapsed is the time since the request started (source_elapsed, in
	// µs).
	Elapsed time.Duration
}

// NewTrace starts a trace whose elapsed times count from start.
func NewTrace(start time.Time) *Trace { return &Trace{start: start} }

type traceKey struct{}

// WithTrace returns ctx carrying t.
func WithTrace(ctx context.Context, t *Trace) context.Context {
	return context.WithValue(ctx, traceKey{}, t)
}

// TraceFrom returns the trace of ctx's request, or nil when it is not
// traced.
func TraceFrom(ctx context.Context) *Trace {
	t, _ := ctx.Value(traceKey{}).(*Trace)
	return t
}

// Event records activity now. A nil Trace records nothing.
func (t *Trace) Event(activity string) {
	if t == nil {
		return
	}
	now := time.Now()
	id := types.NewTimeUUID()
	t.mu.Lock()
	t.events = append(t.events, TraceEvent{ID: id, Activity: activity, Elapsed: now.Sub(t.start)})
	t.mu.Unlock()
}

// Eventf records a formatted activity. Callers check for a nil Trace first
// so that an untraced request does not build the arguments.
func (t *Trace) Eventf(format string, args ...any) {
	if t == nil {
		return
	}
	t.Event(fmt.Sprintf(format, args...))
}

// Events returns a copy of the events recorded so far.
func (t *Trace) Events() []TraceEvent {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]TraceEvent(nil), t.events...)
}

// Start is when the traced request started.
func (t *Trace) Start() time.Time { return t.start }

// The trace points of reads and writes. Each is called with the request's
// trace, nil when untraced; the activities follow Cassandra's where it has
// one (db/SinglePartitionReadCommand, db/ReadCommand, db/Keyspace.applyInternal).

func traceSinglePartition(tr *Trace, x *Executor, table string, k partitionKey, slices []backend.Slice) {
	tr.Event("Executing single-partition query on " + table)
	if s := x.store.State(k.logical); s != nil {
		tr.Eventf("Split partition (epoch %d): %d children, the slices open %d of them",
			s.Epoch, len(s.Current.AllShards()), len(s.ShardsRead(slices)))
	}
}

// traceCAS records a condition's outcome as Cassandra's Paxos round does
// (service/StorageProxy.cas); Partita has no ballot to name.
func traceCAS(tr *Trace, applied bool) {
	if tr == nil {
		return
	}
	if applied {
		tr.Event("CAS precondition is met; proposing client-requested updates")
	} else {
		tr.Event("CAS precondition does not match current values")
	}
}

func traceReadStats(tr *Trace, live, tombstones int64) {
	tr.Eventf("Read %d live rows and %d tombstone cells", live, tombstones)
}

func traceApply(tr *Trace, muts int) {
	tr.Eventf("Appending to WAL (%d partition mutations)", muts)
}

// tokenRangeText writes a scan's token range as Cassandra's ranges print:
// "(start, end]" with min and max for unbounded ends.
func tokenRangeText(cmd backend.ScanCommand) string {
	open, start := "(", "min"
	if cmd.Start != nil {
		start = strconv.FormatInt(int64(cmd.Start.Token), 10)
		if cmd.Start.Inclusive {
			open = "["
		}
	}
	end, closing := "max", "]"
	if cmd.End != nil {
		end = strconv.FormatInt(int64(cmd.End.Token), 10)
		if !cmd.End.Inclusive {
			closing = ")"
		}
	}
	return open + start + ", " + end + closing
}
