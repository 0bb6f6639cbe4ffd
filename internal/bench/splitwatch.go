package bench

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gocql/gocql"
)

// How long the split workload waits for the server: the detector measures
// the whole partition several times before a split starts, and the
// backfill moves it at the policy's rate (4 MiB/s by default).
const (
	splitStartTimeout  = 10 * time.Minute
	splitFinishTimeout = 30 * time.Minute
)

// splitRun is what the split workload learns on Partita and uses after:
// how the split went, and the 8-children range the later reads use on
// every system (Partita runs a workload first, so the range is known before
// PostgreSQL's turn).
type splitRun struct {
	opts    Options
	layout  *splitLayout
	alter   string
	alterAt time.Time
	ran     bool
	summary SplitSummary
	// rangeFrom and rangeTo bound the 8-children range; rangeRows is the
	// number of rows in it (0 until it is known).
	rangeFrom, rangeTo time.Time
	rangeRows          int
}

// timing is the server's split detector timing: the in-process server's,
// or the defaults for an external server.
func (r *splitRun) timing() splitTiming { return r.opts.serverSplitTiming() }

// partitaSession is Partita's session; the other systems do not split
// (ok false).
func partitaSession(sys system) (s *gocql.Session, ok bool) {
	p, ok := sys.(*cqlSystem)
	if !ok || sys.name() != SystemPartita {
		return nil, false
	}
	return p.session, true
}

// enableSplitting turns splitting on for the table on Partita and returns
// once the hot partition's migration has started, so that the writes that
// follow run during its backfill. The other systems write to their
// unsplit partition.
func (r *splitRun) enableSplitting(ctx context.Context, sys system) error {
	s, ok := partitaSession(sys)
	if !ok {
		return nil
	}
	r.alterAt = time.Now()
	if err := s.Query(r.alter).WithContext(ctx).Exec(); err != nil {
		return fmt.Errorf("enable splitting: %w", err)
	}
	r.ran = true
	return poll(ctx, splitStartTimeout, 100*time.Millisecond, "the hot partition's split to start", func() (bool, error) {
		rows, err := readSplits(ctx, s)
		_, found := hotSplit(rows)
		return found, err
	})
}

// awaitSplit runs after the writes during the backfill: it waits until the
// table has no migration under way, then for a quiet period that a
// follow-up split of the partition's growing end (the writes may have
// pushed it over the limit) would interrupt, and reads the audit for the
// figures and the children for the 8-children range.
func (r *splitRun) awaitSplit(ctx context.Context, sys system, res *Result) error {
	stepEnd := time.Now()
	stepStart := stepEnd.Add(-time.Duration(res.Seconds * float64(time.Second)))
	s, ok := partitaSession(sys)
	if !ok {
		res.Note = sys.name() + " does not split: the same writes to the unsplit partition"
		return nil
	}
	// A follow-up split starts a window after the detector (every tick)
	// has measured the grown child; measuring takes a few ticks at most.
	t := r.timing()
	quiet := t.window + 5*t.tick
	var rows []splitRow
	lastBusy := time.Now()
	err := poll(ctx, splitFinishTimeout, 250*time.Millisecond, "the split to finish and settle", func() (bool, error) {
		var err error
		if rows, err = readSplits(ctx, s); err != nil {
			return false, err
		}
		hot, found := hotSplit(rows)
		if !found || len(hot.children) < 2 || slices.ContainsFunc(rows, func(r splitRow) bool { return r.state != "active" }) {
			lastBusy = time.Now()
		}
		return time.Since(lastBusy) >= quiet, nil
	})
	if err != nil {
		return err
	}
	events, err := readSplitHistory(ctx, s)
	if err != nil {
		return err
	}
	hot, _ := hotSplit(rows)
	if err := r.summarize(events, hot, stepStart, stepEnd); err != nil {
		return err
	}
	res.Note = fmt.Sprintf("the split's backfill ran for %.0f%% of the step", 100*r.summary.BackfillShare)
	return r.chooseRange(hot.children)
}

// summarize fills the summary from the audit of the hot partition.
func (r *splitRun) summarize(events []splitEvent, hot splitRow, stepStart, stepEnd time.Time) error {
	var start, finish, last *splitEvent
	for i := range events {
		e := &events[i]
		if e.key != splitHotKey || e.at.Before(r.alterAt.Add(-time.Second)) || e.purpose != "split" {
			continue
		}
		switch e.event {
		case "start":
			r.summary.Migrations++
			if start == nil {
				start = e
			}
		case "finish":
			if start != nil && finish == nil {
				finish = e
			}
			last = e
		}
	}
	if start == nil || finish == nil {
		return fmt.Errorf("system_partita.split_history has no start and finish of the split of %s", splitHotKey)
	}
	sm := &r.summary
	sm.Strategy, sm.RowsBefore = start.strategy, start.rowsBefore
	sm.RowsMoved, sm.BytesMoved, sm.FirstChildren = finish.rowsMoved, finish.bytesMoved, int(finish.children)
	sm.DetectSeconds = start.at.Sub(r.alterAt).Seconds()
	sm.BackfillSeconds = finish.at.Sub(start.at).Seconds()
	sm.SettledSeconds = last.at.Sub(r.alterAt).Seconds()
	sm.Children = len(hot.children)
	if span := stepEnd.Sub(stepStart); span > 0 {
		from, to := later(start.at, stepStart), earlier(finish.at, stepEnd)
		sm.BackfillShare = max(0, min(1, to.Sub(from).Seconds()/span.Seconds()))
	}
	return nil
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// chooseRange picks 8 consecutive children inside the ingested rows, in
// the middle of the partition, and the time range they cover.
func (r *splitRun) chooseRange(children []string) error {
	pieces, err := parseChildren(children)
	if err != nil {
		return err
	}
	type candidate struct {
		from, to time.Time
		first    int
	}
	var cands []candidate
	for i := 0; i+splitReadChildren <= len(pieces); i++ {
		from, to, ok := descTimeRange(pieces[i].start, pieces[i+splitReadChildren-1].end)
		if ok && !from.Before(splitDay) && !to.After(splitIdleBase) {
			cands = append(cands, candidate{from, to, i})
		}
	}
	if len(cands) == 0 {
		return fmt.Errorf("no %d children of %s lie inside the ingested rows: %v", splitReadChildren, splitHotKey, children)
	}
	c := cands[len(cands)/2]
	r.rangeFrom, r.rangeTo = c.from, c.to
	r.rangeRows = r.layout.hotRowsIn(c.from, c.to)
	sm := &r.summary
	sm.RangeFrom, sm.RangeTo, sm.RangeRows = c.from, c.to, r.rangeRows
	sm.RangeChildren = slices.Clone(children[c.first : c.first+splitReadChildren])
	return nil
}

// needRange skips the 8-children reads when Partita's split gave no range.
func (r *splitRun) needRange(context.Context, system) error {
	if r.rangeRows == 0 {
		return &skipError{reason: "no 8-children range: the hot partition did not split on Partita"}
	}
	return nil
}

// finish reports the split on the workload's result.
func (r *splitRun) finish(wr *WorkloadResult) {
	if r.ran {
		sm := r.summary
		wr.Split = &sm
	}
}

// poll calls done every interval until it reports true or fails, or until
// timeout has passed.
func poll(ctx context.Context, timeout, every time.Duration, what string, done func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := done()
		if err != nil || ok {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("gave up waiting for %s after %v", what, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(every):
		}
	}
}

// splitRow is a row of system_partita.splits of the workload's table.
type splitRow struct {
	key, state, strategy string
	children             []string
}

func readSplits(ctx context.Context, s *gocql.Session) ([]splitRow, error) {
	iter := s.Query("SELECT keyspace_name, table_name, partition_key, state, strategy, children FROM system_partita.splits").
		WithContext(ctx).Iter()
	var out []splitRow
	var ks, tbl string
	var r splitRow
	for iter.Scan(&ks, &tbl, &r.key, &r.state, &r.strategy, &r.children) {
		if ks == Keyspace && tbl == splitTable {
			out = append(out, r)
		}
		r = splitRow{}
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read system_partita.splits: %w", err)
	}
	return out, nil
}

func hotSplit(rows []splitRow) (splitRow, bool) {
	for _, r := range rows {
		if r.key == splitHotKey {
			return r, true
		}
	}
	return splitRow{}, false
}

// splitEvent is a row of system_partita.split_history of the workload's
// table.
type splitEvent struct {
	at                                          time.Time
	key, event, purpose, strategy               string
	rowsBefore, rowsMoved, bytesMoved, children int64
}

func readSplitHistory(ctx context.Context, s *gocql.Session) ([]splitEvent, error) {
	iter := s.Query("SELECT keyspace_name, table_name, at, partition_key, event, purpose, strategy, rows_before, " +
		"rows_moved, bytes_moved, children FROM system_partita.split_history").WithContext(ctx).Iter()
	var out []splitEvent
	var ks, tbl string
	var e splitEvent
	for iter.Scan(&ks, &tbl, &e.at, &e.key, &e.event, &e.purpose, &e.strategy, &e.rowsBefore,
		&e.rowsMoved, &e.bytesMoved, &e.children) {
		if ks == Keyspace && tbl == splitTable {
			out = append(out, e)
		}
		e = splitEvent{}
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read system_partita.split_history: %w", err)
	}
	slices.SortStableFunc(out, func(a, b splitEvent) int { return a.at.Compare(b.at) })
	return out, nil
}

// childBound is one end of a range child as system_partita.splits prints
// it: -inf, +inf, a clustering value ('...') or just after one ('...')+.
type childBound struct {
	inf   int // -1: -inf, 1: +inf, 0: at
	at    time.Time
	after bool
}

type childPiece struct{ start, end childBound }

var childRE = regexp.MustCompile(`^shard \d+: \[(-inf|\('[^']*'\)\+?), (\+inf|\('[^']*'\)\+?)\)$`)

// parseChildren reads the range children of a partition clustered by one
// timestamp, in clustering order.
func parseChildren(children []string) ([]childPiece, error) {
	out := make([]childPiece, 0, len(children))
	for _, c := range children {
		m := childRE.FindStringSubmatch(c)
		if m == nil {
			return nil, fmt.Errorf("child %q is not a range of one timestamp", c)
		}
		start, err1 := parseChildBound(m[1])
		end, err2 := parseChildBound(m[2])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("child %q: %v %v", c, err1, err2)
		}
		out = append(out, childPiece{start, end})
	}
	return out, nil
}

func parseChildBound(s string) (childBound, error) {
	switch s {
	case "-inf":
		return childBound{inf: -1}, nil
	case "+inf":
		return childBound{inf: 1}, nil
	}
	b := childBound{after: strings.HasSuffix(s, "+")}
	lit := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(s, "('"), "+"), "')")
	at, err := time.Parse("2006-01-02T15:04:05.000Z", lit)
	b.at = at
	return b, err
}

// descTimeRange turns the clustering range [start, end) of a table
// clustered by event_ts DESC into the time range [from, to) it holds: a
// clustering bound at T starts with T itself (the newest first) and ends
// before it; "just after T" in clustering order is just older than T.
// Timestamps have millisecond precision. ok is false for an unbounded
// range.
func descTimeRange(start, end childBound) (from, to time.Time, ok bool) {
	if start.inf != 0 || end.inf != 0 {
		return from, to, false
	}
	to = start.at.Add(time.Millisecond) // event_ts <= T
	if start.after {
		to = start.at // event_ts < T
	}
	from = end.at.Add(time.Millisecond) // event_ts > T
	if end.after {
		from = end.at // event_ts >= T
	}
	return from, to, from.Before(to)
}
