package exec

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/plan"
)

// BatchItem is one statement of a batch with its own bound values.
type BatchItem struct {
	Modify *plan.Modify
	Values []Value
}

// Batch runs the statements of a batch as one atomic write with one
// timestamp (invariant 1). timestampTerm is the batch's USING TIMESTAMP,
// evaluated with batchValues. It returns client warnings.
func (x *Executor) Batch(ctx context.Context, typ ast.BatchType, items []BatchItem, timestampTerm *plan.Term, batchValues []Value, req *Request) ([]string, error) {
	ts := req.writeTimestamp()
	if timestampTerm != nil {
		w := &writeContext{evaluator: evaluator{values: batchValues}}
		a, err := w.attributes(&plan.Modify{Timestamp: timestampTerm, Table: items[0].Modify.Table})
		if err != nil {
			return nil, err
		}
		ts = a.timestamp
	}
	var muts []backend.Mutation
	for _, it := range items {
		w := &writeContext{evaluator: evaluator{values: it.Values}, timestamp: ts, now: req.now().Unix()}
		ms, err := w.mutations(it.Modify)
		if err != nil {
			return nil, err
		}
		muts = append(muts, ms...)
	}
	warnings, err := x.checkBatchSize(typ, items, muts)
	if err != nil {
		return nil, err
	}
	return warnings, x.apply(ctx, muts)
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
