package bench

import (
	"fmt"
	"strconv"
	"time"
)

// rowsPerBatch is how many rows one request of a bulk fill carries: a
// single-partition batch, small enough to stay under Cassandra's batch size
// warning (5 KiB) with the rows used here.
const rowsPerBatch = 50

// wideSpacing puts 100 rows in every hour of the wide partition, so that a
// one-hour range reads 100 rows at any width.
const wideSpacing = 36 * time.Second

// widthLabel prints a width as 1k, 20k, 1M, 5M.
func widthLabel(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return strconv.Itoa(n/1_000_000) + "M"
	case n >= 1_000 && n%1_000 == 0:
		return strconv.Itoa(n/1_000) + "k"
	}
	return strconv.Itoa(n)
}

// batchArgs returns the rows [from+i*rowsPerBatch, ...) below to, each made
// by row.
func batchArgs(i, from, to int, row func(j int) []any) [][]any {
	lo := from + i*rowsPerBatch
	hi := min(lo+rowsPerBatch, to)
	out := make([][]any, 0, hi-lo)
	for j := lo; j < hi; j++ {
		out = append(out, row(j))
	}
	return out
}

func batches(rows int) int { return (rows + rowsPerBatch - 1) / rowsPerBatch }

// wideWorkload grows one partition in batches and, at each checkpoint
// width, reads the latest 100 rows in clustering order (a forward scan from
// a bound) and in reverse (ORDER BY DESC), and a one-hour range at a random
// place: latency against partition width is one curve per read.
func wideWorkload(o Options) *workload {
	t := &table{name: "wide_partition", partition: 1, clustering: 1, desc: []bool{false},
		cols: []column{{"k", colText}, {"ts", colTimestamp}, {"v", colText}}}
	const key = "wide-0"
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	ts := func(j int) time.Time { return start.Add(time.Duration(j) * wideSpacing) }
	value := fmt.Sprintf("%-32s", "sensor-frame")
	row := func(j int) []any { return []any{key, ts(j), value} }
	insert := statement{kind: kindWrite, cql: t.insertCQL(), table: t}
	const sel = "SELECT ts, v FROM wide_partition WHERE k = ?"
	checkpoints := WideCheckpoints(o.WideRows, o.Quick)
	w := &workload{
		name: WorkloadWide,
		description: fmt.Sprintf("one partition grown to %s rows in batches of %d; latest-100 ASC/DESC and a 1-hour range (100 rows) at widths %v",
			widthLabel(o.WideRows), rowsPerBatch, labels(checkpoints)),
		tables: []*table{t},
		probe:  "SELECT ts FROM wide_partition WHERE k = 'wide-0' LIMIT 1",
	}
	prev := 0
	for _, width := range checkpoints {
		from, to := prev, width
		w.steps = append(w.steps, &step{
			name: "grow@" + widthLabel(width), stmt: insert, requests: batches(to - from), ingest: true, width: width,
			args: func(i int) [][]any { return batchArgs(i, from, to, row) },
		}, &step{
			name: "latest-100-asc@" + widthLabel(width), timed: true, requests: timedRequests, width: width,
			stmt:   statement{kind: kindRead, cql: sel + " AND ts >= ? ORDER BY ts ASC LIMIT 100"},
			args:   func(int) [][]any { return one(key, ts(width-100)) },
			expect: func(int) int { return 100 },
		}, &step{
			name: "latest-100-desc@" + widthLabel(width), timed: true, requests: timedRequests, width: width,
			stmt:   statement{kind: kindRead, cql: sel + " ORDER BY ts DESC LIMIT 100"},
			args:   func(int) [][]any { return one(key) },
			expect: func(int) int { return 100 },
		}, &step{
			name: "range-1h@" + widthLabel(width), timed: true, requests: timedRequests, width: width,
			stmt: statement{kind: kindRead, cql: sel + " AND ts >= ? AND ts < ?",
				sql: toSQL(sel+" AND ts >= ? AND ts < ?") + " ORDER BY ts"},
			args: func(i int) [][]any {
				from := ts(pick(uint64(i), width-100+1))
				return one(key, from, from.Add(time.Hour))
			},
			expect: func(int) int { return 100 },
		})
		prev = width
	}
	return w
}

func labels(widths []int) []string {
	out := make([]string, len(widths))
	for i, w := range widths {
		out[i] = widthLabel(w)
	}
	return out
}
