package exec

import (
	"context"
	"time"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/plan"
	"github.com/partita-db/partita/internal/split"
	"github.com/partita-db/partita/internal/systables"
)

// Limits are the thresholds reads and writes enforce (cassandra.yaml).
type Limits struct {
	TombstoneWarn                     int
	TombstoneFailure                  int
	MaxPageBytes                      int
	BatchSizeWarn                     int
	BatchSizeFail                     int
	UnloggedBatchAcrossPartitionsWarn int
}

// Executor runs plans on a split layer and the system tables.
type Executor struct {
	store  *split.Layer
	env    func() *systables.Env
	limits Limits
}

// New returns an executor. env provides the current system table context.
func New(store *split.Layer, env func() *systables.Env, limits Limits) *Executor {
	return &Executor{store: store, env: env, limits: limits}
}

// Request carries what one execution needs besides its plan.
type Request struct {
	Values      []Value
	PageSize    int
	PagingState []byte
	// Statement fingerprints the statement for paging states.
	Statement uint64
	// Timestamp is the client's write timestamp in microseconds (the
	// protocol's default timestamp), set when ClientTimestamp is.
	Timestamp       int64
	ClientTimestamp bool
	// Clock hands out the server's write timestamps, strictly increasing
	// microseconds; nil means the wall clock.
	Clock func() int64
	// Now is the execution's "now"; zero means time.Now().
	Now time.Time
}

func (r *Request) now() time.Time {
	if r.Now.IsZero() {
		r.Now = time.Now()
	}
	return r.Now
}

// writeTimestamp is the timestamp of a write without USING TIMESTAMP: the
// client's, or the server clock's now.
func (r *Request) writeTimestamp() int64 {
	if r.ClientTimestamp {
		return r.Timestamp
	}
	return r.serverTimestamp()
}

func (r *Request) serverTimestamp() int64 {
	if r.Clock != nil {
		return r.Clock()
	}
	return r.now().UnixMicro()
}

// Rows is a SELECT's result page.
type Rows struct {
	Columns     []plan.ResultColumn
	Rows        [][][]byte
	PagingState []byte
	Warnings    []string
	// Read says what a SELECT read to answer (for statement statistics).
	Read ReadSummary
}

// ReadSummary is what one SELECT read: rows read (live rows, and rows read
// and checked against filters), tombstones passed, partitions entered, and
// how: a range scan, an index lookup, filtering.
type ReadSummary struct {
	Rows, Tombstones, Partitions int64
	Range, Index, Filtering      bool
}

// Modify runs an INSERT, UPDATE or DELETE. A conditional statement returns
// its [applied] result; others return nil rows.
func (x *Executor) Modify(ctx context.Context, m *plan.Modify, req *Request) (*Rows, error) {
	w := &writeContext{evaluator: evaluator{values: req.Values}, timestamp: req.writeTimestamp(), now: req.now().Unix()}
	if m.JSON != nil {
		var err error
		if m, err = w.resolveJSON(m); err != nil {
			return nil, err
		}
	}
	if m.NeedsRead() {
		return x.modifyWithRead(ctx, w, m, req)
	}
	muts, err := w.mutations(m)
	if err != nil {
		return nil, err
	}
	return nil, x.applyMaintained(ctx, []*plan.Modify{m}, muts, w.now, false)
}

// resolveJSON evaluates INSERT JSON's text and returns the plain INSERT.
func (w *writeContext) resolveJSON(m *plan.Modify) (*plan.Modify, error) {
	text, unset, err := w.evalValid(m.JSON)
	if err != nil {
		return nil, err
	}
	switch {
	case unset:
		// Cassandra reads the unset marker's empty buffer as the text "".
		text = []byte{}
	case text == nil:
		return nil, cqlerr.Invalidf("Got null for INSERT JSON values")
	}
	return m.ResolveJSON(text)
}
