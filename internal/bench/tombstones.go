package bench

import "fmt"

// tombstonesWorkload reads a 100-row slice that sits behind many rows
// removed by one range deletion (DELETE ... WHERE k = ? AND c < ?), and the
// same slice in a partition that never held the deleted rows.
func tombstonesWorkload(o Options) *workload {
	t := &table{name: "tombstone_slices", partition: 1, clustering: 1, desc: []bool{false},
		cols: []column{{"k", colText}, {"c", colBigint}, {"v", colText}}}
	deleted := o.TombstoneRows
	value := fmt.Sprintf("%-32s", "payload")
	row := func(k string) func(int) []any {
		return func(j int) []any { return []any{k, int64(j), value} }
	}
	insert := statement{kind: kindWrite, cql: t.insertCQL(), table: t}
	const slice = "SELECT c, v FROM tombstone_slices WHERE k = ?"
	sliceStmt := statement{kind: kindRead, cql: slice + " LIMIT 100", sql: toSQL(slice) + " ORDER BY c LIMIT 100"}
	hundred := func(int) int { return 100 }
	return &workload{
		name:        WorkloadTombstones,
		description: fmt.Sprintf("a 100-row slice behind %s range-deleted rows vs the same slice in a clean partition", widthLabel(deleted)),
		tables:      []*table{t},
		probe:       "SELECT c FROM tombstone_slices WHERE k = 'clean' LIMIT 1",
		steps: []*step{{
			name: "fill", stmt: insert, requests: batches(deleted + 100), ingest: true,
			args: func(i int) [][]any { return batchArgs(i, 0, deleted+100, row("dirty")) },
		}, {
			name: "fill-clean", stmt: insert, requests: batches(100), ingest: true,
			args: func(i int) [][]any { return batchArgs(i, deleted, deleted+100, row("clean")) },
		}, {
			name: "range-delete", requests: 1, concurrency: 1,
			stmt: statement{kind: kindDelete, cql: "DELETE FROM tombstone_slices WHERE k = ? AND c < ?"},
			args: func(int) [][]any { return one("dirty", int64(deleted)) },
		}, {
			name: "slice-behind-deleted", timed: true, requests: timedRequests, stmt: sliceStmt,
			args: func(int) [][]any { return one("dirty") }, expect: hundred,
		}, {
			name: "slice-clean", timed: true, requests: timedRequests, stmt: sliceStmt,
			args: func(int) [][]any { return one("clean") }, expect: hundred,
		}},
	}
}
