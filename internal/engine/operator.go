package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/cql/parser"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/plan"
	"github.com/partita-db/partita/internal/split"
	"github.com/partita-db/partita/internal/systables"
	"github.com/partita-db/partita/internal/token"
	"github.com/partita-db/partita/internal/types"
)

// ResolvePartition finds the logical partition an operator names: a table
// and its partition key values written as CQL literals ('a', 2).
func (e *Engine) ResolvePartition(keyspace, table, key string) (backend.LogicalPartition, error) {
	t := e.catalog.Current().Table(keyspace, table)
	if t == nil || t.Virtual {
		return backend.LogicalPartition{}, cqlerr.Invalidf("table %s.%s does not exist", keyspace, table)
	}
	cols := ""
	for i, c := range t.PartitionKey {
		if i > 0 {
			cols += ", "
		}
		cols += types.QuoteIdent(c.Name)
	}
	q := fmt.Sprintf("SELECT * FROM %s WHERE token(%s) = token(%s)", t.QualifiedName(), cols, key)
	stmt, err := parser.Parse(q)
	if err != nil {
		return backend.LogicalPartition{}, cqlerr.Invalidf("invalid partition key %q: %v", key, err)
	}
	p, err := plan.Plan(stmt, e.catalog.Current(), "")
	if err != nil {
		return backend.LogicalPartition{}, err
	}
	sel, ok := p.(*plan.Select)
	if !ok || sel.Token == nil || sel.Token.Value == nil || sel.Token.Value.Kind != plan.TermFunc {
		return backend.LogicalPartition{}, cqlerr.Invalidf("invalid partition key %q", key)
	}
	comps := make([][]byte, len(sel.Token.Value.Args))
	for i, a := range sel.Token.Value.Args {
		if !a.IsConst() || a.Value == nil {
			return backend.LogicalPartition{}, cqlerr.Invalidf("partition key values must be literals")
		}
		comps[i] = a.Value
	}
	k := token.SerializeKey(comps)
	return backend.LogicalPartition{Table: t.StorageID, Token: token.Of(k), Key: k}, nil
}

// SplitOperation runs an operator's split command on one partition:
// "split" (strategy "", "range", "rollover" or "hash"), "revert" or "merge".
func (e *Engine) SplitOperation(ctx context.Context, op, keyspace, table, key, strategy string) error {
	p, err := e.ResolvePartition(keyspace, table, key)
	if err != nil {
		return err
	}
	switch op {
	case "split":
		_, err = e.split.Force(ctx, p, strategy, e.splitPolicy(p.Table))
	case "revert":
		err = e.split.Revert(ctx, p, "operator")
	case "merge":
		_, err = e.split.MergeBack(ctx, p, "operator")
	default:
		err = fmt.Errorf("unknown split operation %q", op)
	}
	return err
}

// LargePartitions lists the tracked partitions, largest first
// (system_partita.large_partitions).
func (e *Engine) LargePartitions() []systables.LargePartition {
	return partitaSource{e}.LargePartitions()
}

// SplitStatus lists the split partitions (system_partita.splits).
func (e *Engine) SplitStatus() []systables.SplitInfo { return partitaSource{e}.Splits() }

// SplitHistory lists the splits, merges and reverts
// (system_partita.split_history).
func (e *Engine) SplitHistory() []systables.SplitEvent { return partitaSource{e}.SplitHistory() }

// StepSplits advances every migration under way until each finishes (for
// tests and operators who do not wait for the background work).
func (e *Engine) StepSplits(ctx context.Context, chunkRows int) error {
	for _, s := range e.split.States() {
		if s.Migration != nil {
			if err := e.split.Finish(ctx, s, chunkRows); err != nil {
				return err
			}
		}
	}
	return nil
}

// MeasurePartition measures each physical partition of a logical one
// exactly (it reads the whole partition).
func (e *Engine) MeasurePartition(ctx context.Context, keyspace, table, key string) ([]split.ChildSize, error) {
	p, err := e.ResolvePartition(keyspace, table, key)
	if err != nil {
		return nil, err
	}
	return e.split.MeasureChildren(ctx, p)
}

// EvaluateSplits runs the split detector once.
func (e *Engine) EvaluateSplits(ctx context.Context) ([]*split.State, error) {
	return e.split.Evaluate(ctx, timeNow())
}

func timeNow() time.Time { return time.Now() }
