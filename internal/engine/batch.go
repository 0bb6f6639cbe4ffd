package engine

import (
	"context"

	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cql/parser"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/exec"
	"github.com/partita-db/partita/internal/plan"
)

type execItem struct {
	m    *plan.Modify
	vals []exec.Value
}

func parseStatement(q string) (ast.Statement, error) { return parser.Parse(q) }

// runBatch checks a protocol BATCH's statements together (as a BATCH
// statement would be) and runs them.
func (e *Engine) runBatch(ctx context.Context, b *BatchRequest, items []execItem) (*Result, error) {
	typ := ast.BatchType(b.Type)
	if typ > ast.BatchCounter {
		return nil, cqlerr.Protocolf("Invalid batch type %d", b.Type)
	}
	check := &plan.Batch{Type: typ}
	execItems := make([]exec.BatchItem, len(items))
	for i, it := range items {
		if err := plan.CheckBatchStatement(check, it.m); err != nil {
			return nil, err
		}
		check.Statements = append(check.Statements, it.m)
		execItems[i] = exec.BatchItem{Modify: it.m, Values: it.vals}
	}
	if len(items) == 0 {
		return &Result{Kind: ResultVoid}, nil
	}
	opts := &Options{Timestamp: b.Timestamp, HasTimestamp: b.HasTimestamp}
	rows, warnings, err := e.exec.Batch(ctx, typ, execItems, nil, nil, e.request(nil, opts))
	if err != nil {
		return nil, err
	}
	res := rowsOrVoid(rows)
	res.Warnings = warnings
	return res, nil
}
