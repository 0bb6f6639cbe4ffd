package exec

import (
	"bytes"
	"context"
	"fmt"
	"sort"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/plan"
	"github.com/partita-db/partita/internal/token"
	"github.com/partita-db/partita/internal/types"
)

// selectRun is one execution of a SELECT plan: it receives rows partition
// by partition and builds one page.
type selectRun struct {
	x       *Executor
	p       *plan.Select
	ev      *evaluator
	filters []compiledFilter
	now     int64

	pageSize   int   // 0: unlimited
	remaining  int64 // LIMIT left; -1: none
	perPartLim int64 // PER PARTITION LIMIT; -1: none
	maxBytes   int

	out     [][][]byte
	outKeys [][][]byte // clustering values of each output row (post-ordering)
	bytes   int
	hasMore bool
	done    bool

	// position of the last emitted row
	lastPartition     []byte
	lastClustering    []byte
	lastPartRemaining int64
	// current partition
	pk            [][]byte
	pkKey         []byte
	static        *backend.Row
	partEmitted   int64
	partRemaining int64
	resumeClust   []byte // resuming this partition after this clustering key

	// partRead counts the rows read in the current partition, its static
	// row included; partitionDone marks a DISTINCT partition its filters
	// rejected.
	partRead      int64
	partitionDone bool

	// namedKeys are the checked partition keys of a read of named
	// partitions once keysResolved (none when it selects nothing).
	namedKeys    []partitionKey
	keysResolved bool

	agg *aggregation
	// scratch and ckScratch are the row view and clustering values onRow
	// reuses from row to row when there is no aggregation.
	scratch   rowView
	ckScratch [][]byte
	// valueBlock is what is left of rowValues' block, nextBlockRows the
	// rows its next block holds.
	valueBlock    [][]byte
	nextBlockRows int
	tombstones    int64
	liveRows      int64
	wantStatic    bool
	// scanned counts rows read and checked against filters.
	scanned int64
	// partitions counts the partitions entered (ReadSummary).
	partitions int64
	// ctx is the request's: a read past its deadline stops (visited
	// counts the rows between two looks at it, guard.go).
	ctx     context.Context
	visited int
}

// filterWarnRows is how many rows a filtering query may read before its
// read-to-returned ratio is judged.
const filterWarnRows = 1000

// filterWarnRatio: a filtering query that reads this many times more rows
// than it returns gets a client warning.
const filterWarnRatio = 10

// Select runs a SELECT and returns one page.
func (x *Executor) Select(ctx context.Context, p *plan.Select, req *Request) (*Rows, error) {
	ev := &evaluator{values: req.Values}
	r := &selectRun{x: x, p: p, ev: ev, now: req.now().Unix(), remaining: -1, perPartLim: -1, maxBytes: x.limits.MaxPageBytes, ctx: ctx}
	var err error
	if r.remaining, err = ev.limit(p.Limit); err != nil {
		return nil, err
	}
	if r.perPartLim, err = ev.limit(p.PerPartitionLimit); err != nil {
		return nil, err
	}
	r.partRemaining = r.perPartLim
	if r.filters, err = ev.compileFilters(p.Filters); err != nil {
		return nil, err
	}
	if err = ev.checkSubscripts(p.Selection.Selectors); err != nil {
		return nil, err
	}
	r.pageSize = req.PageSize
	if p.PartitionKey != nil && p.Index == nil && !p.Table.Virtual {
		combos, err := r.keyComponents()
		if err != nil {
			return nil, err
		}
		empty, err := r.selectsNothing(combos)
		if err != nil {
			return nil, err
		}
		if empty && !p.Selection.Aggregate && !p.GroupBy {
			return &Rows{Columns: p.Columns()}, nil
		}
		if !empty {
			if r.namedKeys, err = checkedKeys(p.Table, combos); err != nil {
				return nil, err
			}
		}
		r.keysResolved = true
	}
	// Post-ordering drops the row limit from the read (getDataLimits), so
	// any client page size takes the pager, which refuses it whatever the
	// LIMIT, and aggregation queries are paged internally anyway
	// (SelectStatement.execute).
	if len(p.PostOrder) > 0 && r.pageSize > 0 {
		return nil, cqlerr.Invalidf("Cannot page queries with both ORDER BY and a IN restriction on the partition key; you must either remove the ORDER BY or the IN and sort client side, or disable paging for this query")
	}
	if p.Selection.Aggregate || p.GroupBy || len(p.PostOrder) > 0 {
		if !p.GroupBy {
			r.pageSize = 0 // these read everything and return it in one page
		}
		r.agg = newAggregation(r)
	}
	var state *pagingState
	if len(req.PagingState) > 0 && r.pageSize > 0 {
		if state, err = decodePagingState(req.PagingState, req.Statement); err != nil {
			return nil, err
		}
		r.remaining = state.remaining
	}
	r.wantStatic = p.Table.HasStatics()
	switch {
	case p.Table.Virtual:
		err = r.runVirtual(ctx, state)
	case p.Index != nil:
		err = r.runIndex(ctx, state)
	case p.PartitionKey != nil:
		err = r.runKeys(ctx, state)
	default:
		err = r.runRange(ctx, state)
	}
	if err != nil {
		return nil, err
	}
	return r.finish(req)
}

// limit evaluates LIMIT or PER PARTITION LIMIT (-1 when absent).
func (e *evaluator) limit(t *plan.Term) (int64, error) {
	if t == nil {
		return -1, nil
	}
	v, unset, err := e.evalValid(t)
	if err != nil {
		return 0, err
	}
	if unset {
		return -1, nil
	}
	if v == nil {
		return 0, cqlerr.Invalidf("Invalid null value of limit")
	}
	n, err := types.Int64(types.Int, v)
	if err != nil {
		return 0, err
	}
	if n <= 0 {
		return 0, cqlerr.Invalidf("LIMIT must be strictly positive")
	}
	return n, nil
}

func (r *selectRun) finish(req *Request) (*Rows, error) {
	res := &Rows{Columns: r.p.Columns(), Read: ReadSummary{Rows: max(r.liveRows, r.scanned), Tombstones: r.tombstones,
		Partitions: r.partitions, Range: r.p.PartitionKey == nil && r.p.Index == nil && !r.p.Table.Virtual,
		Index: r.p.Index != nil}}
	res.Read.Filtering = len(r.filters) > 0 || r.p.AllowFiltering && res.Read.Range
	if r.agg != nil {
		rows, err := r.agg.result(r)
		if err != nil {
			return nil, err
		}
		res.Rows = rows
	} else {
		res.Rows = r.out
	}
	if r.hasMore && r.pageSize > 0 {
		st := &pagingState{partition: r.lastPartition, clustering: r.lastClustering,
			remaining: r.remaining, remainingInPartition: r.lastPartRemaining}
		res.PagingState = st.encode(req.Statement)
	}
	if returned := int64(len(res.Rows)); len(r.filters) > 0 && r.scanned >= filterWarnRows && r.scanned > filterWarnRatio*max(returned, 1) {
		res.Warnings = append(res.Warnings, fmt.Sprintf("Filtering query read %d rows and returned %d on %s; a table or index designed for this query would avoid reading the rest",
			r.scanned, returned, r.p.Table.QualifiedName()))
	}
	if r.x.limits.TombstoneWarn > 0 && r.tombstones > int64(r.x.limits.TombstoneWarn) {
		// Cassandra names the token of the partition read last
		// (ReadCommand's metrics recording, onClose).
		res.Warnings = append(res.Warnings, fmt.Sprintf("Read %d live rows and %d tombstone cells for query %s; token %s (see tombstone_warn_threshold)",
			r.liveRows, r.tombstones, r.describe(), token.Of(r.pkKey)))
	}
	return res, nil
}

func (r *selectRun) describe() string {
	return "SELECT * FROM " + r.p.Table.QualifiedName()
}

// checkTombstones enforces tombstone_failure_threshold.
func (r *selectRun) checkTombstones(stats backend.ReadStats) error {
	r.tombstones += stats.Tombstones
	r.liveRows += stats.LiveRows
	if r.x.limits.TombstoneFailure > 0 && r.tombstones > int64(r.x.limits.TombstoneFailure) {
		e := cqlerr.New(cqlerr.ReadFailure, "Operation failed - received 0 responses and 1 failures: READ_TOO_MANY_TOMBSTONES from /127.0.0.1:7000")
		e.Consistency, e.Received, e.BlockFor, e.NumFailures = 1, 0, 1, 1
		return e
	}
	return nil
}

// runKeys reads the partitions named by the partition key restriction.
func (r *selectRun) runKeys(ctx context.Context, state *pagingState) error {
	keys := r.namedKeys
	if !r.keysResolved {
		var err error
		if keys, err = r.keys(); err != nil {
			return err
		}
	}
	slices, err := r.slices()
	if err != nil {
		return err
	}
	start := 0
	if state != nil {
		start = len(keys)
		for i, k := range keys {
			if bytes.Equal(k.logical.Key, state.partition) {
				start = i
				break
			}
		}
	}
	for i := start; i < len(keys) && !r.done; i++ {
		readSlices := slices
		r.resumeClust = nil
		r.partRemaining = r.perPartLim
		if state != nil && i == start {
			if state.clustering == nil {
				continue // that partition was finished
			}
			r.resumeClust = state.clustering
			r.partRemaining = state.remainingInPartition
			readSlices = resumeSlices(slices, state.clustering, r.p.Reversed)
		}
		if err := r.readPartition(ctx, keys[i], readSlices); err != nil {
			return err
		}
	}
	return nil
}

// keys are the partitions a query names, in the order it reads them, less
// those outside its token() range (a token range beside a complete key
// narrows the named partitions: Cassandra's TokenFilter).
func (r *selectRun) keys() ([]partitionKey, error) {
	combos, err := r.keyComponents()
	if err != nil {
		return nil, err
	}
	return checkedKeys(r.p.Table, combos)
}

// keyComponents are the components of the keys a query names, less those
// outside its token() range, before the keys are checked: the token of an
// empty or oversized key is that of its bytes, as Cassandra filters them.
func (r *selectRun) keyComponents() ([][][]byte, error) {
	combos, err := r.ev.partitionKeyComponents(r.p.Table, r.p.PartitionKey)
	if err != nil || r.p.Token == nil {
		return combos, err
	}
	allowed, err := r.tokenFilter()
	if err != nil {
		return nil, err
	}
	kept := combos[:0]
	for _, c := range combos {
		if allowed(token.Of(token.SerializeKey(c))) {
			kept = append(kept, c)
		}
	}
	return kept, nil
}

func checkedKeys(t *catalog.Table, combos [][][]byte) ([]partitionKey, error) {
	keys := make([]partitionKey, 0, len(combos))
	for _, c := range combos {
		k, err := newPartitionKey(t, c)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// selectsNothing reports that a read of named partitions cannot return a
// row: no key is left, or its clustering restrictions select nothing.
// Cassandra then runs an empty query (SelectStatement.getSliceCommands,
// ReadQuery.empty) before it checks the keys ("Key may not be empty") and
// the paging of a post-ordered query, which its row limit of 0 skips. An
// IN () naming every clustering column (a names filter) still reads the
// partitions, and so checks their keys, when the query fetches static
// columns (makeClusteringIndexFilter).
func (r *selectRun) selectsNothing(combos [][][]byte) (bool, error) {
	if len(combos) == 0 {
		return true, nil
	}
	if r.p.Distinct || len(r.p.Clustering) == 0 {
		return false, nil // DISTINCT reads every row of a partition
	}
	if _, err := r.slices(); err != nil {
		return false, err
	}
	empty, err := r.ev.clusteringEmpty(r.p.Table, r.p.Clustering)
	if err != nil || !empty {
		return false, err
	}
	return !namesFilter(r.p) || !fetchesStatics(r.p), nil
}

// namesFilter reports that the clustering restrictions name whole rows:
// every clustering column is restricted by EQ or IN
// (StatementRestrictions.isColumnRange is false).
func namesFilter(p *plan.Select) bool {
	n := 0
	for _, c := range p.Clustering {
		if c.Kind != plan.RestrictEQ && c.Kind != plan.RestrictIN {
			return false
		}
		n += len(c.Columns)
	}
	return n == len(p.Table.Clustering)
}

// fetchesStatics reports that a read fetches the table's static columns:
// it selects every column, or a static column, or reads no regular or
// static column at all (only key columns or none, so Cassandra fetches all),
// counting those its filters read (observed on 5.0.6).
func fetchesStatics(p *plan.Select) bool {
	if !p.Table.HasStatics() {
		return false
	}
	if p.Selection.Wildcard {
		return true
	}
	cols := append([]*catalog.Column(nil), p.Selection.Columns...)
	for _, f := range p.Filters {
		cols = append(cols, f.Columns...)
	}
	regular := false
	for _, c := range cols {
		switch c.Kind {
		case catalog.Static:
			return true
		case catalog.Regular:
			regular = true
		}
	}
	return !regular
}

// slices are the clustering slices a query reads in each partition.
func (r *selectRun) slices() ([]backend.Slice, error) {
	if len(r.p.Clustering) == 0 {
		return []backend.Slice{backend.FullSlice}, nil
	}
	return r.ev.clusteringSlices(r.p.Table, r.p.Clustering)
}

// resumeSlices keeps what lies strictly after the last clustering key
// returned (before it, when reading in reverse).
func resumeSlices(slices []backend.Slice, last []byte, reverse bool) []backend.Slice {
	bound := backend.Slice{Start: append(append([]byte(nil), last...), 0x00)}
	if reverse {
		bound = backend.Slice{Start: nil, End: last}
	}
	var out []backend.Slice
	for _, s := range slices {
		if x := s.Intersect(bound); !x.IsEmpty() {
			out = append(out, x)
		}
	}
	return out
}

func (r *selectRun) readPartition(ctx context.Context, k partitionKey, slices []backend.Slice) error {
	tr := TraceFrom(ctx)
	if tr != nil {
		traceSinglePartition(tr, r.x, r.p.Table.Name, k, slices)
	}
	it, err := r.x.store.Read(ctx, backend.ReadCommand{Partition: k.logical.Physical(backend.HomeShard),
		Slices: slices, Reverse: r.p.Reversed, Static: r.wantStatic, Now: r.now})
	if err != nil {
		return err
	}
	it = strictLiveness(r.p.Table, hideDropped(r.p.Table, it, r.now))
	defer it.Close()
	r.beginPartition(k.components, k.logical.Key)
	for !r.done && it.Next() {
		if err := r.onRow(it.Row()); err != nil {
			return err
		}
		if r.partitionFull() {
			break
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	if tr != nil {
		st := it.Stats()
		traceReadStats(tr, st.LiveRows, st.Tombstones)
	}
	if err := r.checkTombstones(it.Stats()); err != nil {
		return err
	}
	return r.endPartition()
}

// runRange scans partitions in token order.
func (r *selectRun) runRange(ctx context.Context, state *pagingState) error {
	t := r.p.Table
	cmd := backend.ScanCommand{Table: t.StorageID, Static: r.wantStatic, Now: r.now}
	if err := r.tokenBounds(&cmd); err != nil || r.done {
		return err
	}
	if state != nil {
		tok := token.Of(state.partition)
		cmd.Start = &backend.TokenBound{Token: tok, Key: state.partition, Inclusive: state.clustering != nil}
		cmd.After = state.clustering
	}
	// A scan reads whole partitions: the clustering slices, which a
	// partition read would seek to, are kept here, and a partition is left
	// once its rows are past them.
	sliced := len(r.p.Clustering) > 0
	var inside sliceSet
	if sliced {
		slices, err := r.slices()
		if err != nil {
			return err
		}
		inside = slices
	}
	tr := TraceFrom(ctx)
	if tr != nil {
		tr.Eventf("Scanning token range %s on %s", tokenRangeText(cmd), t.Name)
	}
	it, err := r.x.store.Scan(ctx, cmd)
	if err != nil {
		return err
	}
	it = strictLiveness(t, hideDropped(t, it, r.now))
	defer it.Close()
	var current []byte
	for !r.done && it.Next() {
		part := it.Partition()
		if current == nil || !bytes.Equal(part.Key, current) {
			if current != nil {
				if err := r.endPartition(); err != nil {
					return err
				}
				if r.done {
					break
				}
			}
			current = append(current[:0], part.Key...)
			r.resumeClust, r.partRemaining = nil, r.perPartLim
			if state != nil && state.clustering != nil && bytes.Equal(part.Key, state.partition) {
				r.resumeClust, r.partRemaining = state.clustering, state.remainingInPartition
			}
			comps, err := token.SplitKey(part.Key, len(t.PartitionKey))
			if err != nil {
				return err
			}
			r.beginPartition(comps, part.Key)
		}
		row := it.Row()
		if sliced && row.Clustering != nil && !inside.contains(row.Clustering) {
			r.scanned++
			if inside.past(row.Clustering) {
				it.SkipPartition()
			}
			continue
		}
		if err := r.onRow(row); err != nil {
			return err
		}
		if r.partitionFull() {
			it.SkipPartition()
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	if tr != nil {
		st := it.Stats()
		traceReadStats(tr, st.LiveRows, st.Tombstones)
	}
	if err := r.checkTombstones(it.Stats()); err != nil {
		return err
	}
	if current != nil && !r.done {
		return r.endPartition()
	}
	return nil
}

// tokenRestriction evaluates a token() restriction into its bounds, each
// nil when absent (an EQ gives both, inclusive).
func (r *selectRun) tokenRestriction() (start, end *backend.TokenBound, err error) {
	tr := r.p.Token
	bound := func(t *plan.Term, inclusive bool) (*backend.TokenBound, error) {
		v, unset, err := r.ev.evalValid(t)
		if err != nil {
			return nil, err
		}
		if unset || v == nil {
			return nil, cqlerr.Invalidf("Invalid null token value")
		}
		n, err := types.Int64(types.Bigint, v)
		if err != nil {
			return nil, err
		}
		return &backend.TokenBound{Token: token.Token(n), Inclusive: inclusive}, nil
	}
	if tr.Kind == plan.RestrictEQ {
		if start, err = bound(tr.Value, true); err != nil {
			return nil, nil, err
		}
		return start, &backend.TokenBound{Token: start.Token, Inclusive: true}, nil
	}
	if tr.Start.Value != nil {
		if start, err = bound(tr.Start.Value, tr.Start.Inclusive); err != nil {
			return nil, nil, err
		}
	}
	if tr.End.Value != nil {
		if end, err = bound(tr.End.Value, tr.End.Inclusive); err != nil {
			return nil, nil, err
		}
	}
	return start, end, nil
}

// tokenBounds applies a token() restriction to a scan. The scan reads a
// ring range (SelectStatement.getPartitionKeyBoundsForTokenRestrictions):
// the minimum token, which no key has, as a start bound is the start of
// the ring and as an end bound its end, so token(k) = MIN and
// token(k) > MIN AND token(k) < MIN read every partition. A start above
// the end, neither being the minimum, reads nothing (the backend's empty
// range).
func (r *selectRun) tokenBounds(cmd *backend.ScanCommand) error {
	if r.p.Token == nil {
		return nil
	}
	start, end, err := r.tokenRestriction()
	if err != nil {
		return err
	}
	if start != nil && start.Token == token.MinToken {
		start = nil
	}
	if end != nil && end.Token == token.MinToken {
		end = nil
	}
	cmd.Start, cmd.End = start, end
	return nil
}

// tokenFilter keeps the named partitions whose token a token() restriction
// allows (TokenFilter.toRangeSet): here the bounds are plain token ranges,
// the minimum token included, and a start above the end wraps around the
// ring (tokens up to the end or from the start).
func (r *selectRun) tokenFilter() (func(token.Token) bool, error) {
	start, end, err := r.tokenRestriction()
	if err != nil {
		return nil, err
	}
	if start != nil && end != nil {
		switch {
		case start.Token == end.Token && (!start.Inclusive || !end.Inclusive):
			return func(token.Token) bool { return false }, nil
		case start.Token > end.Token:
			return func(t token.Token) bool {
				return inTokenRange(t, nil, end) || inTokenRange(t, start, nil)
			}, nil
		}
	}
	return func(t token.Token) bool { return inTokenRange(t, start, end) }, nil
}

func (r *selectRun) beginPartition(components [][]byte, key []byte) {
	r.pk = components
	r.pkKey = append(r.pkKey[:0], key...)
	r.static = nil
	r.partEmitted, r.partRead, r.partitionDone = 0, 0, false
	r.partitions++
}

// partitionFull reports that no further row of the current partition can
// be returned: PER PARTITION LIMIT is reached, or a DISTINCT query has
// returned or rejected the partition.
func (r *selectRun) partitionFull() bool {
	if r.partitionDone {
		return true
	}
	if r.p.GroupBy {
		// PER PARTITION LIMIT counts groups: the last one runs to its end.
		return r.p.Distinct && r.partEmitted > 0 || r.agg.group.partitionFull(r.pkKey)
	}
	return r.p.Distinct && r.partEmitted > 0 || r.partRemaining == 0
}

// onRow handles one row from storage (the static row comes first).
func (r *selectRun) onRow(row *backend.Row) error {
	if r.visited++; r.visited%deadlineCheckRows == 0 && r.ctx != nil {
		if err := r.ctx.Err(); err != nil {
			return err
		}
	}
	if row.Clustering == nil {
		r.partRead++
		st := *row
		st.Cells = append([]backend.Cell(nil), row.Cells...)
		r.static = &st
		return nil
	}
	r.partRead++
	if r.p.Distinct {
		// One row per partition, from its key and static row: DISTINCT
		// restricts only those, and they are the same for every row.
		v := r.view(nil, nil)
		r.scanned++
		if !allMatch(r.filters, v) {
			r.partitionDone = true
			return nil
		}
		return r.emit(v)
	}
	// ckScratch stays nil under an aggregation, which may keep a row's
	// view and values past emit.
	ck, err := decodeClustering(r.p.Table, row.Clustering, r.ckScratch)
	if err != nil {
		return err
	}
	var v *rowView
	if r.agg == nil {
		// Without an aggregation, emit copies what it keeps out of the
		// view (project's values, the clustering key for paging) before
		// the next row: one view and one clustering slice serve every row.
		r.ckScratch = ck
		r.scratch = r.viewOf(row, ck)
		v = &r.scratch
	} else {
		v = r.view(row, ck)
	}
	r.scanned++
	for i := range r.filters {
		if !r.filters[i].matches(v) {
			return nil
		}
	}
	return r.emit(v)
}

func (r *selectRun) view(row *backend.Row, ck [][]byte) *rowView {
	v := r.viewOf(row, ck)
	return &v
}

func (r *selectRun) viewOf(row *backend.Row, ck [][]byte) rowView {
	v := rowView{table: r.p.Table, pk: r.pk, pkKey: r.pkKey, ck: ck, row: row, static: r.static, now: r.now}
	if row != nil {
		v.ckKey = row.Clustering
	}
	return v
}

// endPartition emits the static-only row of a partition that has a static
// row and no clustering row, when the query selects whole partitions
// (plan.Select.StaticOnlyPartitions), whatever columns it selects: Cassandra
// fetches the static columns for that (ColumnFilter.allRegularColumnsBuilder
// with returnStaticContentOnPartitionWithNoRows; observed on 5.0.6 with
// SELECT v, v a regular column).
func (r *selectRun) endPartition() error {
	if r.partEmitted > 0 || r.static == nil || r.resumeClust != nil || r.done || r.partitionDone {
		return nil
	}
	if !r.p.StaticOnlyPartitions || r.partRead > 1 {
		return nil
	}
	v := r.view(nil, nil)
	if !allMatch(r.filters, v) {
		return nil
	}
	return r.emit(v)
}

// emit adds a row to the page, or to the aggregation.
func (r *selectRun) emit(v *rowView) error {
	if r.p.GroupBy {
		return r.agg.addGrouped(r, v) // counts groups, not rows
	}
	if r.partRemaining == 0 {
		return nil // PER PARTITION LIMIT reached
	}
	if r.agg != nil {
		if err := r.agg.add(r, v); err != nil || r.done {
			return err
		}
		r.partEmitted++
		if r.partRemaining > 0 {
			r.partRemaining--
		}
		return nil
	}
	if r.pageSize > 0 && len(r.out) >= r.pageSize || r.maxBytes > 0 && r.bytes >= r.maxBytes && len(r.out) > 0 {
		r.hasMore, r.done = true, true
		return nil
	}
	row, err := r.project(v)
	if err != nil {
		return err
	}
	if r.out == nil && r.pageCapacity() > 0 {
		r.out = make([][][]byte, 0, r.pageCapacity())
	}
	r.out = append(r.out, row)
	for _, c := range row {
		r.bytes += len(c) + 4
	}
	r.partEmitted++
	if r.partRemaining > 0 {
		r.partRemaining--
	}
	r.lastPartition = append(r.lastPartition[:0], r.pkKey...)
	r.lastPartRemaining = r.partRemaining
	if v.ckKey != nil {
		r.lastClustering = append(r.lastClustering[:0], v.ckKey...)
	} else {
		r.lastClustering = nil
	}
	if r.remaining > 0 {
		r.remaining--
		if r.remaining == 0 {
			r.done = true
		}
	}
	return nil
}

// Bounds of what a page preallocates: rows up to its LIMIT (a read without
// one grows as append grows it), and value slices in blocks of rows that
// double from one row, or from the LIMIT, up to valueBlockRows.
const (
	maxPresizedRows = 1024
	valueBlockRows  = 32
)

// pageCapacity is the rows a page with a LIMIT can hold, 0 without one.
func (r *selectRun) pageCapacity() int {
	if r.remaining <= 0 {
		return 0
	}
	n := min(r.remaining, maxPresizedRows)
	if r.pageSize > 0 {
		n = min(n, int64(r.pageSize))
	}
	return int(n)
}

// rowValues returns a row of n values, cut from a block shared by rows of
// the page (each row's capacity ends at its own values, so no append
// reaches the next row's).
func (r *selectRun) rowValues(n int) [][]byte {
	if len(r.valueBlock) < n {
		rows := r.nextBlockRows
		if rows == 0 {
			rows = max(1, min(r.pageCapacity(), valueBlockRows))
		}
		r.nextBlockRows = min(2*rows, valueBlockRows)
		r.valueBlock = make([][]byte, n*rows)
	}
	row := r.valueBlock[:n:n]
	r.valueBlock = r.valueBlock[n:]
	return row
}

// project computes the selected values of a row.
func (r *selectRun) project(v *rowView) ([][]byte, error) {
	sels := r.p.Selection.Visible()
	row := r.rowValues(len(sels))
	for i, s := range sels {
		val, err := r.ev.selectValue(s, v)
		if err != nil {
			return nil, err
		}
		row[i] = val
	}
	if r.p.Json {
		ts := make([]*types.Type, len(sels))
		names := make([]string, len(sels))
		for i, s := range sels {
			ts[i], names[i] = s.Type, s.Name
		}
		return [][]byte{[]byte(types.FormatJSONRow(names, ts, row))}, nil
	}
	return row, nil
}

func allMatch(fs []compiledFilter, v *rowView) bool {
	for i := range fs {
		if !fs[i].matches(v) {
			return false
		}
	}
	return true
}

// keyFilters turns the key restrictions of a plan into filters (used where
// the rows are not read by key, as for system tables).
func (e *evaluator) keyFilters(p *plan.Select) ([]compiledFilter, error) {
	var rs []*plan.Restriction
	for i, vals := range p.PartitionKey {
		c := p.Table.PartitionKey[i]
		rs = append(rs, &plan.Restriction{Kind: plan.RestrictIN, Columns: []*catalog.Column{c}, Values: vals})
	}
	rs = append(rs, p.Clustering...)
	return e.compileKeyFilters(rs)
}

// sortRows orders rows by the post-ordering columns (IN + ORDER BY).
func sortRows(p *plan.Select, rows [][][]byte, keys [][][]byte) {
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ka, kb := keys[idx[a]], keys[idx[b]]
		for i, c := range p.PostOrder {
			var cmp int
			hasA, hasB := c.Position < len(ka), c.Position < len(kb)
			switch {
			case !hasA || !hasB:
				// A static-only row has no clustering values: Cassandra's
				// comparator puts null first, then reverses it all for a
				// reversed query (SelectStatement.ColumnComparator).
				if hasA {
					cmp = 1
				} else if hasB {
					cmp = -1
				}
				if p.Reversed {
					cmp = -cmp
				}
			case p.PostOrderDesc[i]:
				cmp = -types.Compare(c.Type, ka[c.Position], kb[c.Position])
			default:
				cmp = types.Compare(c.Type, ka[c.Position], kb[c.Position])
			}
			if cmp != 0 {
				return cmp < 0
			}
		}
		return false
	})
	sorted := make([][][]byte, len(rows))
	for i, j := range idx {
		sorted[i] = rows[j]
	}
	copy(rows, sorted)
}
