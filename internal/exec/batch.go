package exec

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/plan"
	"github.com/partita-db/partita/internal/split"
	"github.com/partita-db/partita/internal/types"
)

// BatchItem is one statement of a batch with its own bound values.
type BatchItem struct {
	Modify *plan.Modify
	Values []Value
}

// Batch runs the statements of a batch as one atomic write with one
// timestamp (invariant 1). timestampTerm is the batch's USING TIMESTAMP,
// evaluated with batchValues. It returns the [applied] result of a
// conditional batch (nil otherwise) and client warnings. Every statement
// but a counter increment sees the data as it was before the batch
// (BatchStatement.getMutations builds all the mutations before applying
// any).
func (x *Executor) Batch(ctx context.Context, typ ast.BatchType, items []BatchItem, timestampTerm *plan.Term, batchValues []Value, req *Request) (*Rows, []string, error) {
	whole := &plan.Batch{Type: typ, Timestamp: timestampTerm}
	for _, it := range items {
		whole.Statements = append(whole.Statements, it.Modify)
	}
	if err := plan.ValidateBatch(whole); err != nil || len(items) == 0 {
		return nil, nil, err
	}
	ts := req.writeTimestamp()
	if timestampTerm != nil {
		w := &writeContext{evaluator: evaluator{values: batchValues}}
		a, err := w.attributes(&plan.Modify{Timestamp: timestampTerm, Table: items[0].Modify.Table})
		if err != nil {
			return nil, nil, err
		}
		ts = a.timestamp
	}
	conditional, reads := false, false
	for _, it := range items {
		conditional = conditional || it.Modify.IsConditional()
		reads = reads || it.Modify.NeedsRead()
	}
	ctxs := make([]*writeContext, len(items))
	for i, it := range items {
		ctxs[i] = &writeContext{evaluator: evaluator{values: it.Values}, timestamp: ts, now: req.now().Unix()}
		if it.Modify.JSON != nil {
			m, err := ctxs[i].resolveJSON(it.Modify)
			if err != nil {
				return nil, nil, err
			}
			items[i].Modify = m
		}
	}
	if conditional {
		return x.conditionalBatch(ctx, items, ctxs, req)
	}
	if reads {
		if timestampTerm != nil {
			// The batch's USING TIMESTAMP is not the server's to choose.
			req = &Request{Timestamp: ts, ClientTimestamp: true}
		}
		warnings, err := x.readingBatch(ctx, typ, items, ctxs, req)
		return nil, warnings, err
	}
	muts, err := batchMutations(items, ctxs)
	if err != nil {
		return nil, nil, err
	}
	warnings, err := x.checkBatch(typ, items, muts)
	if err != nil {
		return nil, nil, err
	}
	return nil, warnings, x.applyMaintained(ctx, batchModifies(items), muts, ctxs[0].now, false)
}

func batchModifies(items []BatchItem) []*plan.Modify {
	ms := make([]*plan.Modify, len(items))
	for i, it := range items {
		ms[i] = it.Modify
	}
	return ms
}

// batchMutations builds every statement's mutations and folds them into
// one per partition.
func batchMutations(items []BatchItem, ctxs []*writeContext) ([]backend.Mutation, error) {
	var muts []backend.Mutation
	for i, it := range items {
		ms, err := ctxs[i].mutations(it.Modify)
		if err != nil {
			return nil, err
		}
		muts = append(muts, ms...)
	}
	return mergeMutations(muts), nil
}

// readingBatch runs a batch with counter or list-index statements under
// the locks of every partition it touches. List operations read the data
// as it was before the batch, as Cassandra's do, and share one timestamp
// taken under the locks (Request.lockedTimestamp); counter increments,
// which this store keeps as totals, are applied one statement after the
// other, each stamped above the total it read, so that two increments of
// one counter add up.
func (x *Executor) readingBatch(ctx context.Context, typ ast.BatchType, items []BatchItem, ctxs []*writeContext, req *Request) ([]string, error) {
	ctx = backend.WithReadModifyWrite(ctx)
	lock, err := x.lockItems(ctx, items, ctxs)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	for i, it := range items {
		if it.Modify.NeedsRead() {
			if err := x.readFor(ctx, ctxs[i], it.Modify); err != nil {
				return nil, err
			}
		}
	}
	ts, err := lock.Timestamp(ctx, req.lockedTimestamp(rmwList, backend.NoTimestamp))
	if err != nil {
		return nil, err
	}
	for _, w := range ctxs {
		w.timestamp = ts
	}
	muts, err := batchMutations(items, ctxs)
	if err != nil {
		return nil, err
	}
	warnings, err := x.checkBatch(typ, items, muts)
	if err != nil {
		return nil, err
	}
	if !items[0].Modify.Table.IsCounter {
		if err := x.applyMaintained(ctx, batchModifies(items), muts, ctxs[0].now, true); err != nil {
			return nil, err
		}
		return warnings, lock.Release(ctx, true)
	}
	if err := checkWrite(ctx, batchModifies(items), muts); err != nil {
		return nil, err
	}
	for i, it := range items {
		if i == 1 {
			// The increments are applied one statement after the other:
			// once the first is in, the rest are no longer abandoned at
			// the request's timeout.
			ctx = context.WithoutCancel(ctx)
		}
		w := ctxs[i]
		if err := x.readFor(ctx, w, it.Modify); err != nil {
			return nil, err
		}
		if w.timestamp, err = lock.Timestamp(ctx, req.lockedTimestamp(rmwCounter, w.current.newest())); err != nil {
			return nil, err
		}
		ms, err := w.mutations(it.Modify)
		if err != nil {
			return nil, err
		}
		if err := x.apply(ctx, ms); err != nil {
			return nil, err
		}
	}
	return warnings, lock.Release(ctx, true)
}

func (x *Executor) lockItems(ctx context.Context, items []BatchItem, ctxs []*writeContext) (*split.PartitionLock, error) {
	var logical []backend.LogicalPartition
	for i, it := range items {
		pks, err := ctxs[i].partitionKeys(it.Modify.Table, it.Modify.PartitionKey)
		if err != nil {
			return nil, err
		}
		for _, pk := range pks {
			logical = append(logical, pk.logical)
		}
	}
	return x.lockPartitions(ctx, logical)
}

// readFor reads what statement m needs to see.
func (x *Executor) readFor(ctx context.Context, w *writeContext, m *plan.Modify) error {
	pks, cks, err := w.keysOf(m)
	if err != nil {
		return err
	}
	w.current, err = x.readCurrent(ctx, m.Table, pks, cks, w.now)
	return err
}

func (x *Executor) apply(ctx context.Context, muts []backend.Mutation) error {
	if len(muts) == 0 {
		return nil
	}
	tr := TraceFrom(ctx)
	if tr == nil {
		return x.store.Apply(ctx, &backend.WriteBatch{Mutations: muts})
	}
	traceApply(tr, len(muts))
	start := time.Now()
	err := x.store.Apply(ctx, &backend.WriteBatch{Mutations: muts})
	if err == nil {
		tr.Eventf("Synced WAL (the commit waited %d µs)", time.Since(start).Microseconds())
	}
	return err
}

// conditionalBatch checks every statement's conditions against the data as
// it was before the batch, then applies all of it atomically or nothing
// (BatchStatement.executeWithConditions), at one timestamp chosen above
// everything the statements read (Request.lockedTimestamp).
func (x *Executor) conditionalBatch(ctx context.Context, items []BatchItem, ctxs []*writeContext, req *Request) (*Rows, []string, error) {
	ctx = backend.WithReadModifyWrite(ctx)
	lock, err := x.lockItems(ctx, items, ctxs)
	if err != nil {
		return nil, nil, err
	}
	defer lock.Unlock()
	cas, err := newCASRequest(items, ctxs)
	if err != nil {
		return nil, nil, err
	}
	tr := TraceFrom(ctx)
	if tr != nil {
		tr.Event("Reading existing values for CAS precondition")
	}
	newest := backend.NoTimestamp
	for i, it := range items {
		w := ctxs[i]
		if err := x.readFor(ctx, w, it.Modify); err != nil {
			return nil, nil, err
		}
		newest = max(newest, w.current.newest())
	}
	applied, err := checkBatchConditions(items, ctxs)
	if err != nil {
		return nil, nil, err
	}
	traceCAS(tr, applied)
	if !applied {
		res, err := x.casFailure(ctx, cas, ctxs[0].now)
		if err == nil {
			err = lock.Release(ctx, false)
		}
		return res, nil, err
	}
	ts, err := lock.Timestamp(ctx, req.lockedTimestamp(rmwConditional, newest))
	if err != nil {
		return nil, nil, err
	}
	for _, w := range ctxs {
		w.timestamp = ts
	}
	muts, err := batchMutations(items, ctxs)
	if err != nil {
		return nil, nil, err
	}
	for i := range muts {
		withTimestamp(&muts[i], ts)
	}
	if err := x.applyMaintained(ctx, batchModifies(items), muts, ctxs[0].now, true); err != nil {
		return nil, nil, err
	}
	if err := lock.Release(ctx, true); err != nil {
		return nil, nil, err
	}
	if tr != nil {
		tr.Event("CAS successful")
	}
	return appliedResult(cas.table, true), nil, nil
}

// checkBatchConditions evaluates the conditions of a batch's statements
// in Cassandra's order (CQL3CasRequest.appliesTo): all are bound first,
// then the static row's conditions are evaluated, then each row's in
// clustering order (statement by statement for a row), up to the first
// that does not hold.
func checkBatchConditions(items []BatchItem, ctxs []*writeContext) (bool, error) {
	type rowConditions struct {
		item int
		pk   partitionKey
		cks  [][]byte
		row  []byte
	}
	var rows []rowConditions
	for i, it := range items {
		m, w := it.Modify, ctxs[i]
		if !m.IsConditional() {
			continue
		}
		if err := w.bindConditions(m); err != nil {
			return false, err
		}
		pks, cks, err := w.keysOf(m)
		if err != nil {
			return false, err
		}
		r := rowConditions{item: i, pk: pks[0], cks: cks}
		if len(cks) > 0 {
			r.row = cks[0]
		}
		rows = append(rows, r)
	}
	for _, r := range rows {
		if ok, err := ctxs[r.item].checkRowConditions(items[r.item].Modify, r.pk, r.cks, true); err != nil || !ok {
			return false, err
		}
	}
	sort.SliceStable(rows, func(a, b int) bool { return bytes.Compare(rows[a].row, rows[b].row) < 0 })
	for _, r := range rows {
		if ok, err := ctxs[r.item].checkRowConditions(items[r.item].Modify, r.pk, r.cks, false); err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// casKind is what a conditional batch asks of one row
// (CQL3CasRequest.RowCondition).
type casKind uint8

const (
	casNone casKind = iota
	casColumns
	casExists
	casNotExists
)

// casRequest gathers the conditions of a conditional batch (or of one
// conditional statement), one entry per row, as CQL3CasRequest does; it
// also decides what the read for the result of one that does not apply
// returns.
type casRequest struct {
	table *catalog.Table
	pk    partitionKey
	rows  map[string]casKind // by encoded clustering
	// static is the static row's condition.
	static casKind
	// columns are the condition columns of the result in the order of the
	// IF clauses; allColumns replaces them with every column once a
	// statement uses IF [NOT] EXISTS.
	columns    []*catalog.Column
	allColumns bool
	// conditionColumns, updatesRegular and updatesStatic decide the columns
	// the read fetches (CQL3CasRequest.columnsToRead).
	conditionColumns map[*catalog.Column]bool
	updatesRegular   bool
	updatesStatic    bool
	// batch: the result of a batch names the primary key columns before
	// the condition columns, to tell its rows apart.
	batch bool
}

// newCASRequest checks a conditional batch's statements in
// BatchStatement.makeCasRequest's order and collects their conditions.
func newCASRequest(items []BatchItem, ctxs []*writeContext) (*casRequest, error) {
	var cas *casRequest
	for i, it := range items {
		m, w := it.Modify, ctxs[i]
		pks, err := w.partitionKeys(m.Table, m.PartitionKey)
		if err != nil {
			return nil, err
		}
		if partitionKeyIN(m) || len(pks) != 1 {
			// makeCasRequest throws IllegalArgumentException here, which
			// reaches the client as a server error.
			return nil, cqlerr.Serverf("java.lang.IllegalArgumentException: Batch with conditions cannot span multiple partitions (you cannot use IN on the partition key)")
		}
		if cas == nil {
			cas = &casRequest{table: m.Table, pk: pks[0], rows: map[string]casKind{}, conditionColumns: map[*catalog.Column]bool{}, batch: true}
		} else if !bytes.Equal(cas.pk.logical.Key, pks[0].logical.Key) {
			return nil, cqlerr.Invalidf("Batch with conditions cannot span multiple partitions")
		}
		if err := checkConditionalKeys(m); err != nil {
			return nil, err
		}
		cas.updatesRegular = cas.updatesRegular || len(m.Table.Clustering) == 0 || len(m.Clustering) > 0
		if !m.IsConditional() {
			continue
		}
		_, cks, err := w.keysOf(m)
		if err != nil {
			return nil, err
		}
		if err := cas.add(m, cks); err != nil {
			return nil, err
		}
	}
	return cas, nil
}

func partitionKeyIN(m *plan.Modify) bool {
	for _, vals := range m.PartitionKey {
		if len(vals) != 1 || vals[0].Kind == plan.TermBindList {
			return true
		}
	}
	return false
}

// add records the conditions of statement m, whose clustering keys are cks.
func (cas *casRequest) add(m *plan.Modify, cks [][]byte) error {
	for _, op := range m.Operations {
		cas.updatesStatic = cas.updatesStatic || op.Column.Kind == catalog.Static
		if readsBeforeWrite(op) {
			cas.conditionColumns[op.Column] = true
		}
	}
	static := m.StaticOnly && len(m.Clustering) == 0
	row := ""
	if !static && len(cks) > 0 {
		row = string(cks[0])
	}
	switch {
	case m.IfExists:
		cas.allColumns = true
		return cas.setExists(static, row, casExists)
	case m.IfNotExists:
		cas.allColumns = true
		return cas.setExists(static, row, casNotExists)
	}
	var regular, statics []*catalog.Column
	for _, c := range m.Conditions {
		cas.conditionColumns[c.Column] = true
		if c.Column.Kind == catalog.Static {
			statics = append(statics, c.Column)
		} else {
			regular = append(regular, c.Column)
		}
	}
	if len(regular) > 0 {
		if err := cas.setColumns(false, row); err != nil {
			return err
		}
	}
	if len(statics) > 0 {
		if err := cas.setColumns(true, ""); err != nil {
			return err
		}
	}
	if !cas.allColumns {
		cas.columns = append(append(cas.columns, regular...), statics...)
	}
	return nil
}

func readsBeforeWrite(op plan.Operation) bool {
	t := op.Column.Type
	return t.Kind == types.KindList && t.IsMultiCell() &&
		(op.Kind == plan.OpSetElement || op.Kind == plan.OpDeleteElement || op.Kind == plan.OpSubtract)
}

func (cas *casRequest) kind(static bool, row string) casKind {
	if static {
		return cas.static
	}
	return cas.rows[row]
}

func (cas *casRequest) set(static bool, row string, k casKind) {
	if static {
		cas.static = k
	} else {
		cas.rows[row] = k
	}
}

// setExists is CQL3CasRequest.addExistsCondition.
func (cas *casRequest) setExists(static bool, row string, k casKind) error {
	switch prev := cas.kind(static, row); {
	case prev == casNone:
		cas.set(static, row, k)
	case prev == k:
	case prev != casColumns:
		return cqlerr.Invalidf("Cannot mix IF EXISTS and IF NOT EXISTS conditions for the same row")
	case k == casNotExists:
		return cqlerr.Invalidf("Cannot mix IF conditions and IF NOT EXISTS for the same row")
	default:
		return cqlerr.Invalidf("Cannot mix IF conditions and IF EXISTS for the same row")
	}
	return nil
}

// setColumns is CQL3CasRequest.addConditions, whose message names IF NOT
// EXISTS whichever existence condition came first.
func (cas *casRequest) setColumns(static bool, row string) error {
	switch cas.kind(static, row) {
	case casNone:
		cas.set(static, row, casColumns)
	case casColumns:
	default:
		return cqlerr.Invalidf("Cannot mix IF conditions and IF NOT EXISTS for the same row")
	}
	return nil
}

// fetches reports whether the read for conditions returns column c
// (CQL3CasRequest.columnsToRead).
func (cas *casRequest) fetches(c *catalog.Column) bool {
	if c.Kind == catalog.Static {
		return cas.updatesStatic || cas.conditionColumns[c]
	}
	return cas.updatesRegular || cas.conditionColumns[c]
}

// casFailure is the result of a conditional batch (or statement) that does
// not apply: [applied] false with the rows the read for its conditions found
// (ModificationStatement.buildCasFailureResultSet). The read fetches the
// rows with conditions, or, when only the static row has some, the first
// live row of the partition; a partition with static data and no such row
// gives one row with null clustering columns; no data gives [applied]
// alone.
func (x *Executor) casFailure(ctx context.Context, cas *casRequest, now int64) (*Rows, error) {
	t := cas.table
	var cols []*catalog.Column
	if cas.allColumns {
		cols = t.Columns
	} else {
		var keys []*catalog.Column
		if cas.batch {
			keys = append(append(keys, t.PartitionKey...), t.Clustering...)
		}
		seen := map[*catalog.Column]bool{}
		for _, c := range append(keys, cas.columns...) {
			if !seen[c] {
				seen[c] = true
				cols = append(cols, c)
			}
		}
	}
	static, rows, err := x.casRead(ctx, cas, now)
	if err != nil {
		return nil, err
	}
	res := appliedResult(t, false)
	if len(rows) == 0 && static == nil {
		return res, nil
	}
	for _, c := range cols {
		res.Columns = append(res.Columns, plan.ResultColumn{Keyspace: t.Keyspace, Table: t.Name, Name: c.Name, Type: c.Type})
	}
	views := make([]*rowView, 0, len(rows)+1)
	for _, r := range rows {
		ck, err := decodeClustering(t, r.Clustering, nil)
		if err != nil {
			return nil, err
		}
		views = append(views, &rowView{table: t, pk: cas.pk.components, pkKey: cas.pk.logical.Key, ck: ck, ckKey: r.Clustering, row: r, static: static, now: now})
	}
	if len(views) == 0 {
		views = append(views, &rowView{table: t, pk: cas.pk.components, pkKey: cas.pk.logical.Key, static: static, now: now})
	}
	res.Rows = res.Rows[:0]
	for _, v := range views {
		row := [][]byte{types.EncodeBoolean(false)}
		for _, c := range cols {
			row = append(row, v.value(c))
		}
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}

// casRead reads the static row (nil when it holds nothing the read
// fetches) and the live rows CQL3CasRequest.readCommand returns, with only
// the columns it fetches.
func (x *Executor) casRead(ctx context.Context, cas *casRequest, now int64) (*backend.Row, []*backend.Row, error) {
	t := cas.table
	keys := make([]string, 0, len(cas.rows))
	for k := range cas.rows {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	slices := []backend.Slice{backend.FullSlice}
	if len(keys) > 0 {
		slices = slices[:0]
		for _, k := range keys {
			slices = append(slices, backend.PrefixSlice([]byte(k)))
		}
	}
	it, err := x.store.Read(ctx, backend.ReadCommand{Partition: cas.pk.logical.Physical(backend.HomeShard),
		Slices: normalizeSlices(slices), Static: t.HasStatics(), Now: now})
	if err != nil {
		return nil, nil, err
	}
	it = hideDropped(t, it, now)
	defer it.Close()
	var static *backend.Row
	var rows []*backend.Row
	for it.Next() {
		r := cas.fetched(it.Row(), now)
		if r.Clustering == nil {
			if len(r.Cells) > 0 {
				static = r
			}
			continue
		}
		if !r.Liveness.IsLive(now) && len(r.Cells) == 0 {
			continue
		}
		if len(keys) > 0 {
			if _, ok := cas.rows[string(r.Clustering)]; !ok {
				continue
			}
		}
		rows = append(rows, r)
		if len(keys) == 0 {
			break // the first live row (DataLimits.cqlLimits(1))
		}
	}
	return static, rows, it.Err()
}

// fetched copies r with only the live cells of the columns the read for
// conditions fetches.
func (cas *casRequest) fetched(r *backend.Row, now int64) *backend.Row {
	out := copyRow(r)
	kept := out.Cells[:0]
	for _, c := range out.Cells {
		if col := cas.table.ColumnByID(c.Column); col != nil && cas.fetches(col) && c.IsLive(now) {
			kept = append(kept, c)
		}
	}
	out.Cells = kept
	return out
}

// mergeMutations folds the mutations of each partition into one, as the
// PartitionUpdate.Builder of a batch does: a row written by several
// statements becomes one row, reconciled cell by cell.
func mergeMutations(muts []backend.Mutation) []backend.Mutation {
	var out []backend.Mutation
	byPartition := map[string]int{}
	byRow := map[string]int{}
	for _, m := range muts {
		pid := fmt.Sprintf("%d/%d/%x", m.Partition.Table, m.Partition.Shard, m.Partition.Key)
		i, ok := byPartition[pid]
		if !ok {
			i = len(out)
			byPartition[pid] = i
			out = append(out, backend.Mutation{Partition: m.Partition, PartitionDeletion: m.PartitionDeletion})
		}
		dst := &out[i]
		dst.PartitionDeletion = dst.PartitionDeletion.Max(m.PartitionDeletion)
		dst.RangeTombstones = append(dst.RangeTombstones, m.RangeTombstones...)
		if m.Static != nil {
			if dst.Static == nil {
				s := *m.Static
				dst.Static = &s
			} else {
				backend.MergeInto(dst.Static, m.Static, nil)
			}
		}
		for _, r := range m.Rows {
			rid := pid + "/" + string(r.Clustering)
			if j, ok := byRow[rid]; ok {
				backend.MergeInto(&dst.Rows[j], &r, nil)
				continue
			}
			byRow[rid] = len(dst.Rows)
			dst.Rows = append(dst.Rows, r)
		}
	}
	for i := range out {
		rows := out[i].Rows
		sort.SliceStable(rows, func(a, b int) bool { return bytes.Compare(rows[a].Clustering, rows[b].Clustering) < 0 })
	}
	return out
}

// withTimestamp gives everything a conditional statement or batch writes
// the timestamp chosen for it where Cassandra uses its Paxos ballot's
// (Request.lockedTimestamp), as PartitionUpdate.updateAllTimestamp does:
// live data gets ts, every deletion (partition, range, row, cell,
// collection) ts-1, so that the write's own deletions, which win ties,
// cannot delete its own data.
func withTimestamp(m *backend.Mutation, ts int64) {
	if !m.PartitionDeletion.IsLive() {
		m.PartitionDeletion.MarkedForDeleteAt = ts - 1
	}
	for i := range m.RangeTombstones {
		m.RangeTombstones[i].Deletion.MarkedForDeleteAt = ts - 1
	}
	if m.Static != nil {
		rowWithTimestamp(m.Static, ts)
	}
	for i := range m.Rows {
		rowWithTimestamp(&m.Rows[i], ts)
	}
}

func rowWithTimestamp(r *backend.Row, ts int64) {
	if !r.Liveness.IsEmpty() {
		r.Liveness.Timestamp = ts
	}
	if !r.Deletion.IsLive() {
		r.Deletion.MarkedForDeleteAt = ts - 1
	}
	for i := range r.Cells {
		if r.Cells[i].IsTombstone() {
			r.Cells[i].Timestamp = ts - 1
		} else {
			r.Cells[i].Timestamp = ts
		}
	}
	for i := range r.ComplexDeletions {
		r.ComplexDeletions[i].Deletion.MarkedForDeleteAt = ts - 1
	}
}

// checkBatch returns the warnings of a batch without conditions and
// refuses one over batch_size_fail_threshold, in the order
// BatchStatement.getMutations, verifyBatchSize and verifyBatchType add
// them. muts holds one mutation per partition.
func (x *Executor) checkBatch(typ ast.BatchType, items []BatchItem, muts []backend.Mutation) ([]string, error) {
	tables := map[backend.TableID]*catalog.Table{}
	var warnings []string
	var lowGCGrace []string
	for _, it := range items {
		t := it.Modify.Table
		if tables[t.StorageID] == nil {
			tables[t.StorageID] = t
			if typ == ast.BatchLogged && t.Options.GCGraceSeconds == 0 {
				lowGCGrace = append(lowGCGrace, tableName(t))
			}
		}
	}
	if len(lowGCGrace) > 0 {
		warnings = append(warnings, fmt.Sprintf("Executing a LOGGED BATCH on table%s %s, configured with a gc_grace_seconds of 0. "+
			"The gc_grace_seconds is used to TTL batchlog entries, so setting gc_grace_seconds too low on tables involved in an "+
			"atomic batch might cause batchlog entries to expire before being replayed.", plural(len(lowGCGrace)), javaHashSet(lowGCGrace)))
	}
	// Cassandra makes one Mutation per keyspace and partition key, holding
	// one update per table; its keys are compared without their table.
	mutations := map[string]bool{}
	keys := map[string]bool{}
	var names []string
	size := 0
	for i := range muts {
		t := tables[muts[i].Partition.Table]
		if t == nil {
			continue // a secondary index's entries
		}
		mutations[t.Keyspace+"\x00"+string(muts[i].Partition.Key)] = true
		keys[string(muts[i].Partition.Key)] = true
		if !contains(names, tableName(t)) {
			names = append(names, tableName(t))
		}
		size += updateSize(t, &muts[i])
	}
	if len(mutations) <= 1 {
		return warnings, nil
	}
	if x.limits.BatchSizeFail > 0 && size > x.limits.BatchSizeFail {
		return nil, cqlerr.Invalidf("Batch too large")
	}
	if x.limits.BatchSizeWarn > 0 && size > x.limits.BatchSizeWarn {
		warnings = append(warnings, fmt.Sprintf("Batch for %s is of size %d, exceeding specified threshold of %d by %d.",
			javaHashSet(names), size, x.limits.BatchSizeWarn, size-x.limits.BatchSizeWarn))
	}
	if typ != ast.BatchLogged && x.limits.UnloggedBatchAcrossPartitionsWarn > 0 && len(keys) > x.limits.UnloggedBatchAcrossPartitionsWarn {
		warnings = append(warnings, fmt.Sprintf("Unlogged batch covering %d partitions detected against table%s %s. "+
			"You should use a logged batch for atomicity, or asynchronous writes for performance.",
			len(keys), plural(len(names)), javaHashSet(names)))
	}
	return warnings, nil
}

// tableName is TableMetadata.toString.
func tableName(t *catalog.Table) string {
	return types.QuoteIdent(t.Keyspace) + "." + types.QuoteIdent(t.Name)
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

func plural(n int) string {
	if n > 1 {
		return "s"
	}
	return ""
}

// javaHashSet prints names as a java.util.HashSet of them prints itself:
// in the order of their hash buckets (String.hashCode spread as HashMap
// does), names of one bucket in the order given.
func javaHashSet(names []string) string {
	capacity := 16
	for len(names) > capacity*3/4 {
		capacity *= 2
	}
	bucket := func(s string) int {
		var h int32
		for _, u := range utf16.Encode([]rune(s)) {
			h = 31*h + int32(u)
		}
		spread := uint32(h) ^ uint32(h)>>16
		return int(spread & uint32(capacity-1))
	}
	ordered := append([]string(nil), names...)
	sort.SliceStable(ordered, func(i, j int) bool { return bucket(ordered[i]) < bucket(ordered[j]) })
	return "[" + strings.Join(ordered, ", ") + "]"
}

// Sizes of Cassandra 5.0's PartitionUpdate.dataSize (measured against
// 5.0.6's batch size warnings): a cell counts its timestamp, TTL and a
// long local deletion time besides its value and path; a row its
// liveness timestamp and its deletion (a timestamp, a local deletion
// time and the shadowable flag), and an expiring liveness its TTL and
// long expiry time; a complex column its deletion time; a range
// tombstone its bounds, timestamp and local deletion time.
const (
	rowDeletionSize     = 13
	complexDeletionSize = 12
	rangeDeletionSize   = 12
	cellSize            = 20
	livenessSize        = 8
	expiringSize        = 12
	// counterUpdateSize is the counter context of an increment
	// (CounterContext.createUpdate: a header and one local shard).
	counterUpdateSize = 36
)

// updateSize is Cassandra's PartitionUpdate.dataSize for m: the partition
// deletion's timestamp, the range tombstones, the static row (even absent)
// and the rows, counting values and clusterings without their encoding.
func updateSize(t *catalog.Table, m *backend.Mutation) int {
	size := 8
	if len(m.RangeTombstones) > 0 {
		size += 4
		for _, rt := range m.RangeTombstones {
			size += clusteringSize(t, rt.Slice.Start) + clusteringSize(t, rt.Slice.End) + rangeDeletionSize
		}
	}
	if m.Static != nil {
		size += rowSize(t, m.Static)
	} else {
		size += livenessSize + rowDeletionSize
	}
	for i := range m.Rows {
		size += rowSize(t, &m.Rows[i])
	}
	return size
}

// rowSize is BTreeRow.dataSize.
func rowSize(t *catalog.Table, r *backend.Row) int {
	size := clusteringSize(t, r.Clustering) + livenessSize + rowDeletionSize
	if r.Liveness.IsExpiring() {
		size += expiringSize
	}
	complex := map[backend.ColumnID]bool{}
	for _, d := range r.ComplexDeletions {
		complex[d.Column] = true
	}
	for i := range r.Cells {
		c := &r.Cells[i]
		col := t.ColumnByID(c.Column)
		value := len(c.Value)
		if col != nil && col.Type.IsCounter() && !c.IsTombstone() {
			value = counterUpdateSize
		}
		size += cellSize + value
		if col != nil && col.Type.IsMultiCell() {
			size += pathSize(col.Type, c.Path)
			complex[c.Column] = true
		}
	}
	return size + complexDeletionSize*len(complex)
}

// pathSize is the size of a cell path as Cassandra stores it: a list
// element's time UUID, a set element or map key's value, a UDT field's
// 2-byte index.
func pathSize(t *types.Type, path []byte) int {
	if t.Kind == types.KindSet || t.Kind == types.KindMap {
		if v, _, err := types.DecodeKey(t.Elems[0], path, false); err == nil {
			return len(v)
		}
	}
	return len(path)
}

// clusteringSize is ClusteringPrefix.dataSize: its values' bytes.
func clusteringSize(t *catalog.Table, key []byte) int {
	vals, err := decodeClustering(t, key, nil)
	if err != nil {
		return len(key)
	}
	size := 0
	for _, v := range vals {
		size += len(v)
	}
	return size
}
