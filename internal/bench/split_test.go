package bench

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestSplitLayout: the ingest writes every row of every asset once, each
// asset's batches in order, the hot asset's spread over the whole ingest,
// and its rows spread over the day.
func TestSplitLayout(t *testing.T) {
	const hot, other = 5000, 120
	l := newSplitLayout(hot, other)
	if want := batches(hot) + (splitAssets-1)*batches(other); len(l.order) != want {
		t.Fatalf("%d requests, want %d", len(l.order), want)
	}
	next := make([]uint32, splitAssets)
	var hotAt []int
	for i, b := range l.order {
		if b.batch != next[b.asset] {
			t.Fatalf("request %d writes batch %d of asset %d, want batch %d", i, b.batch, b.asset, next[b.asset])
		}
		next[b.asset]++
		if b.asset == 0 {
			hotAt = append(hotAt, i)
		}
	}
	// Interleaved: the hot asset's batches neither lead nor trail the
	// others'.
	if n := len(l.order); hotAt[0] > n/10 || hotAt[len(hotAt)-1] < n*9/10 {
		t.Errorf("the hot asset's batches run from request %d to %d of %d", hotAt[0], hotAt[len(hotAt)-1], n)
	}
	for _, a := range []int{0, 1, splitAssets - 1} {
		for j := 1; j < l.rows[a]; j++ {
			if !l.ts(a, j-1).Before(l.ts(a, j)) {
				t.Fatalf("asset %d: row %d at %v, row %d at %v", a, j-1, l.ts(a, j-1), j, l.ts(a, j))
			}
		}
		if last := l.ts(a, l.rows[a]-1); !last.Before(splitIdleBase) {
			t.Errorf("asset %d: last row at %v, past the day", a, last)
		}
	}
	total := 0
	for h := range 24 {
		from := splitDay.Add(time.Duration(h) * time.Hour)
		total += l.hotRowsIn(from, from.Add(time.Hour))
	}
	if total != hot || l.hotRowsIn(splitDay, splitIdleBase) != hot {
		t.Errorf("the day's hours hold %d rows, the day %d; want %d", total, l.hotRowsIn(splitDay, splitIdleBase), hot)
	}
	if n := l.hotRowsIn(l.ts(0, 10), l.ts(0, 20)); n != 10 {
		t.Errorf("[row 10, row 20) holds %d rows, want 10", n)
	}
}

func TestParseChildren(t *testing.T) {
	at := func(s string) time.Time { tm, _ := time.Parse(time.RFC3339Nano, s); return tm }
	for _, tc := range []struct {
		child    string
		from, to time.Time // zero: unbounded
		err      bool
	}{
		// event_ts DESC: [T1, T2) in clustering order holds T1 down to,
		// not including, T2.
		{child: "shard 3: [('2026-01-20T12:00:00.000Z'), ('2026-01-20T10:00:00.000Z'))",
			from: at("2026-01-20T10:00:00.001Z"), to: at("2026-01-20T12:00:00.001Z")},
		// Just after T in clustering order is just older than T.
		{child: "shard 12: [('2026-01-20T12:00:00.000Z')+, ('2026-01-20T10:00:00.000Z')+)",
			from: at("2026-01-20T10:00:00Z"), to: at("2026-01-20T12:00:00Z")},
		{child: "shard 1: [-inf, ('2026-01-20T10:00:00.000Z'))"},
		{child: "shard 2: [('2026-01-20T10:00:00.000Z'), +inf)"},
		{child: "shard 1: hash segment 0 of 8", err: true},
		{child: "shard 1: [('x'), +inf)", err: true},
	} {
		t.Run(tc.child, func(t *testing.T) {
			pieces, err := parseChildren([]string{tc.child})
			if tc.err {
				if err == nil {
					t.Fatalf("parsed as %+v", pieces)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			from, to, ok := descTimeRange(pieces[0].start, pieces[0].end)
			if ok != !tc.from.IsZero() || !from.Equal(tc.from) || !to.Equal(tc.to) {
				t.Errorf("range [%v, %v) ok=%v, want [%v, %v)", from, to, ok, tc.from, tc.to)
			}
		})
	}
}

// descChildren describes a partition of the split workload cut at the
// hours given, newest first, as system_partita.splits does.
func descChildren(hours ...int) []string {
	bound := func(h int) string {
		return "('" + splitDay.Add(time.Duration(h)*time.Hour).Format("2006-01-02T15:04:05.000Z") + "')"
	}
	out := []string{fmt.Sprintf("shard 1: [-inf, %s)", bound(hours[0]))}
	for i := 1; i < len(hours); i++ {
		out = append(out, fmt.Sprintf("shard %d: [%s, %s)", i+1, bound(hours[i-1]), bound(hours[i])))
	}
	return append(out, fmt.Sprintf("shard 0: [%s, +inf)", bound(hours[len(hours)-1])))
}

func TestChooseRange(t *testing.T) {
	o, _ := Options{Quick: true, Peer: PeerNone}.Resolve()
	for _, tc := range []struct {
		name     string
		children []string
		from, to int // hours
		err      bool
	}{
		// 12 children: 10 bounded ones; the middle of the 3 windows of 8.
		{"twelve", descChildren(22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2), 4, 20, false},
		{"exactly eight bounded", descChildren(20, 18, 16, 14, 12, 10, 8, 6, 4), 4, 20, false},
		{"seven bounded", descChildren(18, 16, 14, 12, 10, 8, 6, 4), 0, 0, true},
		// A child reaching past the day holds rows the copy does not.
		{"past the day", descChildren(30, 20, 18, 16, 14, 12, 10, 8, 6, 4), 4, 20, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &splitRun{opts: o, layout: newSplitLayout(24_000, 10)}
			err := r.chooseRange(tc.children)
			if tc.err {
				if err == nil {
					t.Fatalf("chose [%v, %v)", r.rangeFrom, r.rangeTo)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// Clustering bounds at hour h end the range just after h.
			from := splitDay.Add(time.Duration(tc.from)*time.Hour + time.Millisecond)
			to := splitDay.Add(time.Duration(tc.to)*time.Hour + time.Millisecond)
			if !r.rangeFrom.Equal(from) || !r.rangeTo.Equal(to) {
				t.Errorf("range [%v, %v), want [%v, %v)", r.rangeFrom, r.rangeTo, from, to)
			}
			if want := 1000 * (tc.to - tc.from); r.rangeRows != want || len(r.summary.RangeChildren) != splitReadChildren {
				t.Errorf("%d rows over %d children, want %d over 8", r.rangeRows, len(r.summary.RangeChildren), want)
			}
		})
	}
}

func TestSplitSummarize(t *testing.T) {
	alter := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	sec := func(s float64) time.Time { return alter.Add(time.Duration(s * float64(time.Second))) }
	ev := func(at float64, event string, children int64) splitEvent {
		return splitEvent{at: sec(at), key: splitHotKey, event: event, purpose: "split", strategy: "rollover",
			rowsBefore: 1000, rowsMoved: 900, bytesMoved: 9000, children: children}
	}
	events := []splitEvent{
		{at: sec(-60), key: splitHotKey, event: "start", purpose: "split"}, // an earlier run's
		{at: sec(1), key: "'asset-1', '2026-01-20'", event: "start", purpose: "split"},
		ev(10, "start", 0), ev(40, "finish", 14), ev(55, "start", 0), ev(58, "finish", 3),
	}
	for _, tc := range []struct {
		name               string
		stepFrom, stepTo   float64
		share              float64
		migrations, detect int
	}{
		{"inside the backfill", 15, 25, 1, 2, 10},
		{"backfill ends mid-step", 30, 50, 0.5, 2, 10},
		{"after the backfill", 41, 51, 0, 2, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &splitRun{alterAt: alter}
			hot := splitRow{key: splitHotKey, children: descChildren(20, 10)}
			if err := r.summarize(events, hot, sec(tc.stepFrom), sec(tc.stepTo)); err != nil {
				t.Fatal(err)
			}
			sm := r.summary
			if sm.Migrations != tc.migrations || sm.DetectSeconds != float64(tc.detect) || sm.BackfillSeconds != 30 ||
				sm.SettledSeconds != 58 || sm.FirstChildren != 14 || sm.Children != 3 || sm.Strategy != "rollover" {
				t.Errorf("summary %+v", sm)
			}
			if sm.BackfillShare != tc.share {
				t.Errorf("backfill share %v, want %v", sm.BackfillShare, tc.share)
			}
		})
	}
	r := &splitRun{alterAt: alter}
	if err := r.summarize(events[:3], splitRow{}, alter, alter); err == nil || !strings.Contains(err.Error(), "no start and finish") {
		t.Errorf("summary without a finish: %v", err)
	}
}
