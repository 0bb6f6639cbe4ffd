package bench

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"time"
)

// The split workload's data: seed 003's events_by_asset_day, one hot asset
// among 200, one day.
const (
	splitAssets = 200
	splitTable  = "events_by_asset_day"
	// splitCopyTable holds the hot partition's ingested rows again, with
	// splitting disabled: the unsplit side of the 8-children read.
	splitCopyTable = "events_by_asset_day_unsplit"
	splitDayMillis = 24 * 60 * 60 * 1000
	// splitReadChildren is how many children the fan-out read spans.
	splitReadChildren = 8
)

var (
	splitDay = time.Date(2026, 1, 20, 0, 0, 0, 0, time.UTC)
	// The hot writes after the ingest take new timestamps past the day's
	// rows, so every 1-hour range and the 8-children range read ingested
	// rows only (the same rows in every table and system); the writes
	// during the backfill come 12 hours after the idle ones, so the two
	// steps never write the same key.
	splitIdleBase     = splitDay.Add(24 * time.Hour)
	splitBackfillBase = splitDay.Add(36 * time.Hour)
)

// splitHotKey is the hot partition as system_partita prints partition keys.
var splitHotKey = fmt.Sprintf("'asset-0', '%s'", splitDay.Format("2006-01-02"))

// splitLayout places the ingest's rows: asset a has rows[a] rows spread
// evenly over the day (row j at j × day ÷ rows[a]), written in batches of
// rowsPerBatch, the assets' batches interleaved in proportion to their
// sizes so that every asset's day advances together.
type splitLayout struct {
	ids   []string
	rows  []int
	order []splitBatch // the ingest's requests
}

type splitBatch struct {
	asset uint16
	batch uint32
}

func newSplitLayout(hotRows, otherRows int) *splitLayout {
	l := &splitLayout{ids: names("asset-", splitAssets), rows: make([]int, splitAssets)}
	for a := range l.rows {
		l.rows[a] = otherRows
	}
	l.rows[0] = hotRows
	type placed struct {
		at float64
		splitBatch
	}
	var all []placed
	for a, n := range l.rows {
		nb := batches(n)
		for b := range nb {
			all = append(all, placed{(float64(b) + 0.5) / float64(nb), splitBatch{uint16(a), uint32(b)}})
		}
	}
	slices.SortFunc(all, func(x, y placed) int {
		return cmp.Or(cmp.Compare(x.at, y.at), cmp.Compare(x.asset, y.asset))
	})
	l.order = make([]splitBatch, len(all))
	for i, p := range all {
		l.order[i] = p.splitBatch
	}
	return l
}

// ts is the timestamp of asset a's row j.
func (l *splitLayout) ts(a, j int) time.Time {
	return splitDay.Add(time.Duration(int64(j)*splitDayMillis/int64(l.rows[a])) * time.Millisecond)
}

// hotRowsIn counts the hot asset's ingested rows in [from, to).
func (l *splitLayout) hotRowsIn(from, to time.Time) int {
	n := l.rows[0]
	first := func(t time.Time) int { return sort.Search(n, func(j int) bool { return !l.ts(0, j).Before(t) }) }
	return max(first(to)-first(from), 0)
}

// splitWorkload is seed 003's scenario: one asset's day grows far past the
// split threshold while 199 others write alongside, in a table created with
// splitting disabled; latest-100 and 1-hour reads of the hot asset are timed
// before and after splitting is enabled, writes to the hot partition idle
// and while the split's backfill runs, and a range spanning 8 children
// against the same range in an unsplit copy.
func splitWorkload(o Options) *workload {
	ext := func(enabled bool) string {
		return fmt.Sprintf("extensions = {'partita.split.enabled': '%t', 'partita.split.max_rows': '%d'}", enabled, o.SplitMaxRows)
	}
	cols := []column{{"asset_id", colText}, {"day", colDate}, {"event_ts", colTimestamp}, {"payload", colText}}
	t := &table{name: splitTable, partition: 2, clustering: 1, desc: []bool{true}, cols: cols, cqlOptions: ext(false)}
	cp := &table{name: splitCopyTable, partition: 2, clustering: 1, desc: []bool{true}, cols: cols, cqlOptions: ext(false)}
	l := newSplitLayout(o.SplitRows, o.SplitOtherRows)
	run := &splitRun{opts: o, layout: l, alter: fmt.Sprintf("ALTER TABLE %s WITH %s", splitTable, ext(true)),
		summary: SplitSummary{Partition: splitHotKey, MaxRows: o.SplitMaxRows}}
	payload := fmt.Sprintf("%-100s", `{"kind":"playback","bitrate":4300}`)
	row := func(a int) func(j int) []any {
		return func(j int) []any { return []any{l.ids[a], splitDay, l.ts(a, j), payload} }
	}
	insert := statement{kind: kindWrite, cql: t.insertCQL(), table: t}
	hotWrite := func(base time.Time) func(int) [][]any {
		return func(i int) [][]any {
			return one(l.ids[0], splitDay, base.Add(time.Duration(i)*time.Millisecond), payload)
		}
	}
	w := &workload{
		name: WorkloadSplit,
		description: fmt.Sprintf("asset-0 grown to %s rows among %d assets of %s rows (batches of %d, interleaved) with splitting off; "+
			"reads and writes of asset-0 before, while and after it splits at %s rows; a range over %d children vs an unsplit copy",
			widthLabel(o.SplitRows), splitAssets-1, widthLabel(o.SplitOtherRows), rowsPerBatch, widthLabel(o.SplitMaxRows), splitReadChildren),
		tables:  []*table{t, cp},
		probe:   fmt.Sprintf("SELECT event_ts FROM %s WHERE asset_id = 'asset-0' AND day = '%s' LIMIT 1", splitTable, splitDay.Format("2006-01-02")),
		noFloor: true,
		finish:  run.finish,
	}
	partitaOnly := func(st *step, why string) *step { st.only, st.onlyWhy = []string{SystemPartita}, why; return st }
	w.steps = append(w.steps, &step{
		name: "ingest", stmt: insert, requests: len(l.order), ingest: true,
		args: func(i int) [][]any {
			b := l.order[i]
			return batchArgs(int(b.batch), 0, l.rows[b.asset], row(int(b.asset)))
		},
	}, partitaOnly(&step{
		name: "ingest-unsplit-copy", requests: batches(o.SplitRows),
		stmt: statement{kind: kindWrite, cql: cp.insertCQL(), table: cp},
		args: func(i int) [][]any { return batchArgs(i, 0, o.SplitRows, row(0)) },
	}, "only Partita reads the unsplit copy"))
	// The reads before the split follow a burst of writes to the hot
	// partition, as the reads after it do.
	w.steps = append(w.steps, &step{
		name: "hot-writes-idle", stmt: insert, timed: true, requests: timedRequests, args: hotWrite(splitIdleBase),
	})
	w.steps = append(w.steps, splitReads(l, "before")...)
	// Every system runs the writes of the backfill step; only Partita
	// splits during them: the others' hot partition just grows.
	w.steps = append(w.steps, &step{
		name: "hot-writes-backfill", stmt: insert, timed: true, requests: timedRequests, args: hotWrite(splitBackfillBase),
		before: run.enableSplitting, after: run.awaitSplit,
	})
	w.steps = append(w.steps, splitReads(l, "after")...)
	return append8ChildrenReads(w, run)
}

// splitReads are the timed reads of the hot partition: the latest 100 rows
// and a 1-hour range at a random hour of the day.
func splitReads(l *splitLayout, when string) []*step {
	sel := "SELECT event_ts, payload FROM " + splitTable + " WHERE asset_id = ? AND day = ?"
	hour := func(i int) time.Time { return splitDay.Add(time.Duration(pick(uint64(i), 24)) * time.Hour) }
	return []*step{{
		name: "latest-100-" + when, timed: true, requests: timedRequests,
		stmt:   statement{kind: kindRead, cql: sel + " LIMIT 100", sql: toSQL(sel) + " ORDER BY event_ts DESC LIMIT 100"},
		args:   func(int) [][]any { return one(l.ids[0], splitDay) },
		expect: func(int) int { return 100 },
	}, {
		name: "range-1h-" + when, timed: true, requests: timedRequests,
		stmt: statement{kind: kindRead, cql: sel + " AND event_ts >= ? AND event_ts < ?",
			sql: toSQL(sel+" AND event_ts >= ? AND event_ts < ?") + " ORDER BY event_ts DESC"},
		args:   func(i int) [][]any { return one(l.ids[0], splitDay, hour(i), hour(i).Add(time.Hour)) },
		expect: func(i int) int { return l.hotRowsIn(hour(i), hour(i).Add(time.Hour)) },
	}}
}

// append8ChildrenReads adds the reads of one clustering range that spans
// exactly 8 children of the split hot partition (found once it split):
// whole, one read in flight, so that each request's time is the read's
// own; and with LIMIT 100, which returns the newest 100 rows of the range
// (all from its first child) but opens every child the range covers: the
// fixed cost of the fan-out. Each runs on the split table and on the
// unsplit copy, which hold the same rows in the range.
func append8ChildrenReads(w *workload, run *splitRun) *workload {
	bounds := " AND event_ts >= ? AND event_ts < ?"
	for _, v := range []struct {
		suffix, limit string
		conc          int
		expect        func() int
	}{
		{"", "", 1, func() int { return run.rangeRows }},
		{"-limit-100", " LIMIT 100", 0, func() int { return min(100, run.rangeRows) }},
	} {
		for _, tbl := range []string{splitTable, splitCopyTable} {
			sel := "SELECT event_ts, payload FROM " + tbl + " WHERE asset_id = ? AND day = ?" + bounds
			st := &step{
				name: "range-8-children" + v.suffix, timed: true, requests: timedRequests, concurrency: v.conc,
				stmt:   statement{kind: kindRead, cql: sel + v.limit, sql: toSQL(sel) + " ORDER BY event_ts DESC" + v.limit},
				args:   func(int) [][]any { return one(run.layout.ids[0], splitDay, run.rangeFrom, run.rangeTo) },
				expect: func(int) int { return v.expect() },
				before: run.needRange,
			}
			if tbl == splitCopyTable {
				st.name += "-unsplit"
				st.only, st.onlyWhy = []string{SystemPartita}, "only Partita reads the unsplit copy"
			}
			w.steps = append(w.steps, st)
		}
	}
	return w
}
