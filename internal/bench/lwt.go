package bench

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
)

// lwtWorkload races compare-and-set updates on a few rows: each request
// expects the version it last saw and sets the next one
// (UPDATE ... IF version = ?). A server that rejects conditional updates
// as unsupported gets the step reported as skipped.
func lwtWorkload(o Options) *workload {
	t := &table{name: "lwt_state", partition: 1, clustering: 0,
		cols: []column{{"k", colText}, {"version", colBigint}, {"v", colText}}}
	keys := names("k-", o.LWTKeys)
	update := statement{kind: kindWrite, cql: "UPDATE lwt_state SET v = ?, version = ? WHERE k = ? IF version = ?",
		sql: "UPDATE lwt_state SET v = $1, version = $2 WHERE k = $3 AND version = $4"}
	read := statement{kind: kindRead, cql: "SELECT version FROM lwt_state WHERE k = ?"}
	return &workload{
		name:        WorkloadLWT,
		description: fmt.Sprintf("%d requests in flight on %d rows: UPDATE ... SET v = ?, version = ? WHERE k = ? IF version = ?", o.Concurrency, o.LWTKeys),
		tables:      []*table{t},
		probe:       "SELECT version FROM lwt_state WHERE k = 'k-0'",
		steps: []*step{{
			name: "seed", stmt: statement{kind: kindWrite, cql: t.insertCQL(), table: t}, requests: len(keys),
			args: func(i int) [][]any { return one(keys[i], int64(0), "v0") },
		}, {
			name: "contended-update", timed: true, requests: timedRequests,
			build: func(ctx context.Context, sys system) (op, error) { return buildCAS(ctx, sys, update, read, keys) },
			args:  func(i int) [][]any { return one(pick(uint64(i), len(keys))) },
			note: func(r Result) string {
				return fmt.Sprintf("%d of %d conditional updates applied (%.0f%%); throughput counts both", r.Rows, r.Requests,
					100*float64(r.Rows)/float64(max(r.Requests, 1)))
			},
		}},
	}
}

// buildCAS makes the lwt op: request args hold a key index; the op sends
// the update expecting the version last seen for that key and learns the
// current version when the condition fails. It returns 1 when applied.
func buildCAS(ctx context.Context, sys system, update, read statement, keys []string) (op, error) {
	cs, ok := sys.(casSystem)
	if !ok {
		return nil, &skipError{reason: sys.name() + " has no compare-and-set"}
	}
	cas, err := cs.prepareCAS(ctx, update, read)
	if err != nil {
		return nil, err
	}
	// A probe that cannot apply (no row has version -1) tells whether the
	// server supports conditional updates before the step is timed.
	if _, _, err := cas(ctx, []any{"probe", int64(0), keys[0], int64(-1)}); err != nil {
		if unsupported(err) {
			return nil, &skipError{reason: "server does not support LWT yet (" + err.Error() + ")"}
		}
		return nil, fmt.Errorf("conditional update probe: %w", err)
	}
	seen := make([]atomic.Int64, len(keys))
	var seq atomic.Int64
	return func(ctx context.Context, rows [][]any) (int, error) {
		k := rows[0][0].(int)
		expect := seen[k].Load()
		v := "v" + strconv.FormatInt(seq.Add(1), 10)
		applied, cur, err := cas(ctx, []any{v, expect + 1, keys[k], expect})
		if err != nil {
			return 0, err
		}
		if applied {
			seen[k].CompareAndSwap(expect, expect+1)
			return 1, nil
		}
		for old := seen[k].Load(); cur > old && !seen[k].CompareAndSwap(old, cur); old = seen[k].Load() {
		}
		return 0, nil
	}, nil
}
