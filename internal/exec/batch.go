package exec

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/plan"
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
// conditional batch (nil otherwise) and client warnings.
func (x *Executor) Batch(ctx context.Context, typ ast.BatchType, items []BatchItem, timestampTerm *plan.Term, batchValues []Value, req *Request) (*Rows, []string, error) {
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
		return x.conditionalBatch(ctx, items, ctxs)
	}
	if reads {
		return nil, nil, x.readingBatch(ctx, items, ctxs)
	}
	var muts []backend.Mutation
	for i, it := range items {
		ms, err := ctxs[i].mutations(it.Modify)
		if err != nil {
			return nil, nil, err
		}
		muts = append(muts, ms...)
	}
	warnings, err := x.checkBatchSize(typ, items, muts)
	if err != nil {
		return nil, nil, err
	}
	return nil, warnings, x.apply(ctx, muts)
}

// readingBatch runs a batch with counter or list-index statements: each
// statement reads the data as the previous ones left it, under the locks
// of every partition the batch touches.
func (x *Executor) readingBatch(ctx context.Context, items []BatchItem, ctxs []*writeContext) error {
	unlock, err := x.lockItems(items, ctxs)
	if err != nil {
		return err
	}
	defer unlock()
	for i, it := range items {
		w := ctxs[i]
		if it.Modify.NeedsRead() {
			if err := x.readFor(ctx, w, it.Modify); err != nil {
				return err
			}
		}
		muts, err := w.mutations(it.Modify)
		if err != nil {
			return err
		}
		if err := x.apply(ctx, muts); err != nil {
			return err
		}
	}
	return nil
}

func (x *Executor) lockItems(items []BatchItem, ctxs []*writeContext) (func(), error) {
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
	return x.store.LockPartitions(logical), nil
}

// conditionalBatch checks every statement's conditions against the data as
// it was before the batch, then applies all of it atomically or nothing
// (BatchStatement.executeWithConditions).
func (x *Executor) conditionalBatch(ctx context.Context, items []BatchItem, ctxs []*writeContext) (*Rows, []string, error) {
	unlock, err := x.lockItems(items, ctxs)
	if err != nil {
		return nil, nil, err
	}
	defer unlock()
	if err := checkConditionalBatch(items, ctxs); err != nil {
		return nil, nil, err
	}
	var failed []*Rows
	anyExists := false
	for i, it := range items {
		w := ctxs[i]
		if err := x.readFor(ctx, w, it.Modify); err != nil {
			return nil, nil, err
		}
		anyExists = anyExists || it.Modify.IfExists || it.Modify.IfNotExists
		if !it.Modify.IsConditional() {
			continue
		}
		pks, cks, err := w.keysOf(it.Modify)
		if err != nil {
			return nil, nil, err
		}
		applied, res, err := w.checkConditions(it.Modify, pks[0], cks)
		if err != nil {
			return nil, nil, err
		}
		if !applied {
			failed = append(failed, w.batchFailureRow(it.Modify, pks[0], cks, res))
		}
	}
	t := items[0].Modify.Table
	if len(failed) > 0 {
		return mergeFailures(t, failed, anyExists), nil, nil
	}
	var muts []backend.Mutation
	for i, it := range items {
		ms, err := ctxs[i].mutations(it.Modify)
		if err != nil {
			return nil, nil, err
		}
		muts = append(muts, ms...)
	}
	if err := x.apply(ctx, muts); err != nil {
		return nil, nil, err
	}
	return appliedResult(t, true), nil, nil
}

// checkConditionalBatch applies BatchStatement's rules for batches with
// conditions: one table, one partition, and no mixing of IF EXISTS, IF NOT
// EXISTS and IF conditions on the same row.
func checkConditionalBatch(items []BatchItem, ctxs []*writeContext) error {
	var partition []byte
	kinds := map[string]string{}
	for i, it := range items {
		m := it.Modify
		if m.Table != items[0].Modify.Table {
			return cqlerr.Invalidf("Batch with conditions cannot span multiple tables")
		}
		pks, cks, err := ctxs[i].keysOf(m)
		if err != nil {
			return err
		}
		if len(pks) != 1 || (partition != nil && !bytes.Equal(partition, pks[0].logical.Key)) {
			return cqlerr.Invalidf("Batch with conditions cannot span multiple partitions")
		}
		partition = pks[0].logical.Key
		if len(cks) > 1 {
			return cqlerr.Invalidf("IN on the clustering key columns is not supported with conditional updates")
		}
		if !m.IsConditional() {
			continue
		}
		kind := "IF conditions"
		switch {
		case m.IfExists:
			kind = "IF EXISTS"
		case m.IfNotExists:
			kind = "IF NOT EXISTS"
		}
		var row string
		if len(cks) == 1 {
			row = string(cks[0])
		}
		if prev, ok := kinds[row]; ok && prev != kind {
			a, b := prev, kind
			if a == "IF conditions" || (a == "IF NOT EXISTS" && b == "IF EXISTS") {
				a, b = b, a
			}
			switch {
			case a == "IF EXISTS" && b == "IF NOT EXISTS":
				return cqlerr.Invalidf("Cannot mix IF EXISTS and IF NOT EXISTS conditions for the same row")
			default:
				return cqlerr.Invalidf("Cannot mix IF conditions and %s for the same row", a)
			}
		}
		kinds[row] = kind
	}
	return nil
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

// batchFailureRow is the result row of one failed statement of a
// conditional batch: the primary key columns, then the condition columns
// (or every column for IF [NOT] EXISTS).
func (w *writeContext) batchFailureRow(m *plan.Modify, pk partitionKey, cks [][]byte, res *Rows) *Rows {
	t := m.Table
	var ck []byte
	if len(cks) > 0 {
		ck = cks[0]
	}
	v := w.current.view(pk, ck)
	if m.IfExists || m.IfNotExists {
		return w.currentValues(t, v, t.Columns)
	}
	var cols []*catalog.Column
	cols = append(cols, t.PartitionKey...)
	cols = append(cols, t.Clustering...)
	for _, c := range res.Columns[1:] {
		cols = append(cols, t.Column(c.Name))
	}
	out := w.currentValues(t, v, cols)
	for i, c := range t.PartitionKey {
		out.Rows[0][1+i] = pk.components[c.Position]
	}
	ckVals, _ := decodeClustering(t, ck, nil)
	for i := range t.Clustering {
		if i < len(ckVals) {
			out.Rows[0][1+len(t.PartitionKey)+i] = ckVals[i]
		}
	}
	return out
}

// mergeFailures builds one result set from the failed rows.
func mergeFailures(t *catalog.Table, failed []*Rows, allColumns bool) *Rows {
	if allColumns {
		res := &Rows{Columns: failed[0].Columns}
		for _, f := range failed {
			if len(f.Columns) == len(res.Columns) {
				res.Rows = append(res.Rows, f.Rows...)
			} else {
				row := make([][]byte, len(res.Columns))
				row[0] = types.EncodeBoolean(false)
				res.Rows = append(res.Rows, row)
			}
		}
		return res
	}
	names := map[string]bool{}
	res := appliedResult(t, false)
	res.Rows = nil
	for _, c := range t.Columns {
		for _, f := range failed {
			for _, fc := range f.Columns[1:] {
				if fc.Name == c.Name && !names[c.Name] {
					names[c.Name] = true
					res.Columns = append(res.Columns, fc)
				}
			}
		}
	}
	for _, f := range failed {
		row := make([][]byte, len(res.Columns))
		row[0] = types.EncodeBoolean(false)
		for i, c := range res.Columns[1:] {
			for j, fc := range f.Columns {
				if fc.Name == c.Name {
					row[1+i] = f.Rows[0][j]
				}
			}
		}
		res.Rows = append(res.Rows, row)
	}
	return res
}

func (x *Executor) apply(ctx context.Context, muts []backend.Mutation) error {
	if len(muts) == 0 {
		return nil
	}
	return x.store.Apply(ctx, &backend.WriteBatch{Mutations: muts})
}

// mutationSize approximates Cassandra's PartitionUpdate.dataSize: the
// bytes of keys, values and their timestamps.
func mutationSize(m *backend.Mutation) int {
	size := len(m.Partition.Key)
	rowSize := func(r *backend.Row) {
		size += len(r.Clustering)
		if !r.Liveness.IsEmpty() {
			size += 8
		}
		for i := range r.Cells {
			size += len(r.Cells[i].Path) + len(r.Cells[i].Value) + 8
			if r.Cells[i].TTL != 0 {
				size += 8
			}
		}
	}
	if m.Static != nil {
		rowSize(m.Static)
	}
	for i := range m.Rows {
		rowSize(&m.Rows[i])
	}
	return size
}

// checkBatchSize applies batch_size_warn/fail_threshold and the unlogged
// batch partition warning (BatchStatement.verifyBatchSize), only to batches
// that write more than one partition.
func (x *Executor) checkBatchSize(typ ast.BatchType, items []BatchItem, muts []backend.Mutation) ([]string, error) {
	partitions := map[string]bool{}
	size := 0
	for i := range muts {
		partitions[fmt.Sprintf("%d/%x", muts[i].Partition.Table, muts[i].Partition.Key)] = true
		size += mutationSize(&muts[i])
	}
	if len(partitions) <= 1 {
		return nil, nil
	}
	tables := map[string]bool{}
	for _, it := range items {
		tables[it.Modify.Table.Keyspace+"."+it.Modify.Table.Name] = true
	}
	names := make([]string, 0, len(tables))
	for n := range tables {
		names = append(names, n)
	}
	sort.Strings(names)
	var warnings []string
	if x.limits.BatchSizeFail > 0 && size > x.limits.BatchSizeFail {
		return nil, cqlerr.Invalidf("Batch too large")
	}
	if x.limits.BatchSizeWarn > 0 && size > x.limits.BatchSizeWarn {
		warnings = append(warnings, fmt.Sprintf("Batch for [%s] is of size %d, exceeding specified threshold of %d by %d.",
			strings.Join(names, ", "), size, x.limits.BatchSizeWarn, size-x.limits.BatchSizeWarn))
	}
	if typ == ast.BatchUnlogged && x.limits.UnloggedBatchAcrossPartitionsWarn > 0 && len(partitions) > x.limits.UnloggedBatchAcrossPartitionsWarn {
		warnings = append(warnings, fmt.Sprintf("Unlogged batch covering %d partitions detected against table%s [%s]. You should use a logged batch for atomicity, or asynchronous writes for performance.",
			len(partitions), plural(len(names)), strings.Join(names, ", ")))
	}
	return warnings, nil
}

func plural(n int) string {
	if n > 1 {
		return "s"
	}
	return ""
}
