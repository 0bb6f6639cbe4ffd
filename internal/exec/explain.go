package exec

import (
	"context"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/plan"
)

// Access is how a SELECT reaches its rows.
type Access string

const (
	AccessPartitions Access = "partitions" // the named partitions
	AccessIndex      Access = "index"      // a secondary index lookup
	AccessScan       Access = "scan"       // a scan in token order
	AccessVirtual    Access = "virtual"    // a system table answered in memory
)

// Explained is what a SELECT would read, resolved with its bound values
// but without reading anything (EXPLAIN).
type Explained struct {
	Access Access
	// Partitions are the named partitions (AccessPartitions), in the
	// order they would be read; Nothing is set when the restrictions
	// select no row, so nothing would be read.
	Partitions []backend.LogicalPartition
	Nothing    bool
	// Slices are the clustering slices read in each partition.
	Slices []backend.Slice
	// Scan is the token range of a scan (AccessScan).
	Scan backend.ScanCommand
	// Limit and PerPartitionLimit are -1 when absent.
	Limit, PerPartitionLimit int64
	// Filters is the number of restrictions checked on every row read.
	Filters int
}

// Explain resolves a SELECT's partitions, slices and limits with the
// request's values.
func (x *Executor) Explain(ctx context.Context, p *plan.Select, req *Request) (*Explained, error) {
	ev := &evaluator{values: req.Values}
	r := &selectRun{x: x, p: p, ev: ev, now: req.now().Unix(), remaining: -1, perPartLim: -1, ctx: ctx}
	out := &Explained{Filters: len(p.Filters)}
	var err error
	if out.Limit, err = ev.limit(p.Limit); err != nil {
		return nil, err
	}
	if out.PerPartitionLimit, err = ev.limit(p.PerPartitionLimit); err != nil {
		return nil, err
	}
	if _, err = ev.compileFilters(p.Filters); err != nil {
		return nil, err
	}
	if out.Slices, err = r.slices(); err != nil {
		return nil, err
	}
	switch {
	case p.Table.Virtual:
		out.Access = AccessVirtual
	case p.Index != nil:
		out.Access = AccessIndex
	case p.PartitionKey != nil:
		out.Access = AccessPartitions
		combos, err := r.keyComponents()
		if err != nil {
			return nil, err
		}
		if out.Nothing, err = r.selectsNothing(combos); err != nil || out.Nothing {
			return out, err
		}
		keys, err := checkedKeys(p.Table, combos)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			out.Partitions = append(out.Partitions, k.logical)
		}
	default:
		out.Access = AccessScan
		out.Scan = backend.ScanCommand{Table: p.Table.StorageID}
		if err := r.tokenBounds(&out.Scan); err != nil {
			return nil, err
		}
		out.Nothing = r.done
	}
	return out, nil
}

// ScanRange prints the token range of a scan as Cassandra's ranges print,
// "(start, end]" with min and max for open ends.
func (e *Explained) ScanRange() string { return tokenRangeText(e.Scan) }
