package seeds

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/test/internal/cqltest"
)

// Seed 003's tables and split metadata rows, as written.
var (
	Seed003Tables = []string{`CREATE TABLE events_by_asset_day (
  asset_id text,
  day date,
  event_ts timestamp,
  payload text,
  PRIMARY KEY ((asset_id, day), event_ts)
) WITH CLUSTERING ORDER BY (event_ts DESC);`, `CREATE TABLE events_by_asset_day_shard (
  asset_id text,
  day date,
  shard int,
  event_ts timestamp,
  payload text,
  PRIMARY KEY ((asset_id, day, shard), event_ts)
) WITH CLUSTERING ORDER BY (event_ts DESC);`, `CREATE TABLE partition_split_metadata (
  asset_id text,
  day date,
  shard int,
  start_ts timestamp,
  end_ts timestamp,
  state text,
  PRIMARY KEY ((asset_id, day), shard)
);`}
	seed003SplitRows = []string{
		`INSERT INTO partition_split_metadata (asset_id, day, shard, start_ts, end_ts, state)
VALUES ('asset-42', '2026-01-20', 0, '2026-01-20T00:00:00Z', '2026-01-20T06:00:00Z', 'active');`,
		`INSERT INTO partition_split_metadata (asset_id, day, shard, start_ts, end_ts, state)
VALUES ('asset-42', '2026-01-20', 1, '2026-01-20T06:00:00Z', '2026-01-20T12:00:00Z', 'active');`,
		`INSERT INTO partition_split_metadata (asset_id, day, shard, start_ts, end_ts, state)
VALUES ('asset-42', '2026-01-20', 2, '2026-01-20T12:00:00Z', '2026-01-20T18:00:00Z', 'active');`,
		`INSERT INTO partition_split_metadata (asset_id, day, shard, start_ts, end_ts, state)
VALUES ('asset-42', '2026-01-20', 3, '2026-01-20T18:00:00Z', '2026-01-21T00:00:00Z', 'active');`,
	}
)

// seed003Events is one event every 20 minutes of 2026-01-20: 18 per shard.
func seed003Events() []time.Time {
	var out []time.Time
	for i := range 72 {
		out = append(out, cqltest.UTC(2026, 1, 20, 0, 0, 0).Add(time.Duration(i)*20*time.Minute))
	}
	return out
}

type assetEvent struct {
	ts      time.Time
	payload string
}

// readEvents is the seed's read path in Go: look the shards up, read the
// overlapping ones concurrently (at most 8 at once) with LIMIT ?, merge
// newest first and cut at the limit. An unsplit partition is shard 0.
func readEvents(t *testing.T, s *gocql.Session, asset, day string, start, end time.Time, limit int) []assetEvent {
	t.Helper()
	type shard struct {
		id         int
		start, end time.Time
	}
	var shards []shard
	iter := s.Query("SELECT shard, start_ts, end_ts FROM partition_split_metadata WHERE asset_id = ? AND day = ?", asset, day).Iter()
	var sh shard
	for iter.Scan(&sh.id, &sh.start, &sh.end) {
		shards = append(shards, sh)
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if len(shards) == 0 {
		shards = []shard{{0, start, end}}
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		rows []assetEvent
		errs []error
		sem  = make(chan struct{}, 8)
	)
	for _, sh := range shards {
		from, to := maxTime(start, sh.start), minTime(end, sh.end)
		if !from.Before(to) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			iter := s.Query(`SELECT event_ts, payload
FROM events_by_asset_day_shard
WHERE asset_id = ? AND day = ? AND shard = ?
  AND event_ts >= ? AND event_ts < ?
LIMIT ?`, asset, day, sh.id, from, to, limit).Iter()
			var part []assetEvent
			var e assetEvent
			for iter.Scan(&e.ts, &e.payload) {
				part = append(part, e)
			}
			mu.Lock()
			defer mu.Unlock()
			rows = append(rows, part...)
			if err := iter.Close(); err != nil {
				errs = append(errs, err)
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	slices.SortFunc(rows, func(a, b assetEvent) int { return b.ts.Compare(a.ts) })
	return rows[:min(limit, len(rows))]
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// seed003Session returns a session in the keyspace holding seed 003's
// tables, created once for all the seed 003 tests.
func seed003Session(t *testing.T, tg *cqltest.Target) *gocql.Session {
	t.Helper()
	return tg.SharedKeyspace(t, "go_seed003", Seed003Tables...)
}

func newestFirst(ts []time.Time) []time.Time {
	out := slices.Clone(ts)
	slices.Reverse(out)
	return out
}

func eventTimes(rows []assetEvent) []time.Time {
	var out []time.Time
	for _, r := range rows {
		out = append(out, r.ts)
	}
	return out
}

// events_by_asset_day reads newest first, with LIMIT, ranges and ORDER BY ASC.
func Seed003EventsByAssetDay(t *testing.T, tg *cqltest.Target) {
	s := seed003Session(t, tg)
	newest := newestFirst(seed003Events())
	events := seed003Events()
	for _, ts := range events {
		cqltest.MustExec(t, s, "INSERT INTO events_by_asset_day (asset_id, day, event_ts, payload) VALUES (?, ?, ?, ?)",
			"asset-7", "2026-01-20", ts, ts.Format("15:04"))
	}
	cqltest.MustExec(t, s, "INSERT INTO events_by_asset_day (asset_id, day, event_ts, payload) VALUES ('asset-7', '2026-01-21', '2026-01-21', 'next day')")
	rows := cqltest.SelectMaps(t, s, "SELECT event_ts, payload FROM events_by_asset_day WHERE asset_id = 'asset-7' AND day = '2026-01-20' LIMIT 5")
	cqltest.Equal(t, "latest five", cqltest.Column[time.Time](t, rows, "event_ts"), newest[:5])
	rows = cqltest.SelectMaps(t, s, "SELECT payload FROM events_by_asset_day WHERE asset_id = 'asset-7' AND day = '2026-01-20' "+
		"AND event_ts >= '2026-01-20T10:00:00Z' AND event_ts < '2026-01-20T11:00:00Z'")
	cqltest.Equal(t, "range", cqltest.Column[string](t, rows, "payload"), []string{"10:40", "10:20", "10:00"})
	rows = cqltest.SelectMaps(t, s, "SELECT payload FROM events_by_asset_day WHERE asset_id = 'asset-7' AND day = '2026-01-20' ORDER BY event_ts ASC LIMIT 2")
	cqltest.Equal(t, "ascending", cqltest.Column[string](t, rows, "payload"), []string{"00:00", "00:20"})
}

// partition_split_metadata takes the seed's ISO-8601 timestamps.
func Seed003SplitMetadata(t *testing.T, tg *cqltest.Target) {
	s := seed003Session(t, tg)
	for _, stmt := range seed003SplitRows {
		cqltest.MustExec(t, s, stmt)
	}
	rows := cqltest.SelectMaps(t, s, "SELECT shard, start_ts, end_ts, state FROM partition_split_metadata WHERE asset_id = 'asset-42' AND day = '2026-01-20'")
	cqltest.Equal(t, "shards", cqltest.Column[int](t, rows, "shard"), []int{0, 1, 2, 3})
	cqltest.Equal(t, "start_ts", cqltest.Column[time.Time](t, rows, "start_ts"),
		[]time.Time{cqltest.UTC(2026, 1, 20, 0, 0, 0), cqltest.UTC(2026, 1, 20, 6, 0, 0), cqltest.UTC(2026, 1, 20, 12, 0, 0), cqltest.UTC(2026, 1, 20, 18, 0, 0)})
	cqltest.Equal(t, "end_ts", cqltest.Column[time.Time](t, rows, "end_ts")[3], cqltest.UTC(2026, 1, 21, 0, 0, 0))
}

// The seed's client-side fan-out over the four children of asset-42.
func Seed003ReadPath(t *testing.T, tg *cqltest.Target) {
	s := seed003Session(t, tg)
	newest := newestFirst(seed003Events())
	events := seed003Events()
	for _, stmt := range seed003SplitRows {
		cqltest.MustExec(t, s, stmt) // idempotent: the same rows as TestSeed003SplitMetadata
	}
	for _, ts := range events {
		cqltest.MustExec(t, s, "INSERT INTO events_by_asset_day_shard (asset_id, day, shard, event_ts, payload) VALUES (?, ?, ?, ?, ?)",
			"asset-42", "2026-01-20", ts.Hour()/6, ts, "e-"+ts.Format("15:04"))
	}
	start, end := cqltest.UTC(2026, 1, 20, 10, 0, 0), cqltest.UTC(2026, 1, 20, 14, 0, 0)
	var want []time.Time
	for _, ts := range newest {
		if !ts.Before(start) && ts.Before(end) {
			want = append(want, ts)
		}
	}
	got := readEvents(t, s, "asset-42", "2026-01-20", start, end, 20)
	cqltest.Equal(t, "window", eventTimes(got), want)
	cqltest.Equal(t, "first payload", got[0].payload, "e-13:40")
	cqltest.Equal(t, "limit 5", eventTimes(readEvents(t, s, "asset-42", "2026-01-20", start, end, 5)), want[:5])
	day := cqltest.UTC(2026, 1, 20, 0, 0, 0)
	cqltest.Equal(t, "whole day", eventTimes(readEvents(t, s, "asset-42", "2026-01-20", day, day.Add(24*time.Hour), 100)), newest)
}

// The read path of a partition with no metadata rows reads shard 0.
func Seed003ReadPathUnsplit(t *testing.T, tg *cqltest.Target) {
	s := seed003Session(t, tg)
	events := seed003Events()
	for _, ts := range events[:10] {
		cqltest.MustExec(t, s, "INSERT INTO events_by_asset_day_shard (asset_id, day, shard, event_ts, payload) VALUES (?, ?, 0, ?, 'x')",
			"asset-1", "2026-01-20", ts)
	}
	day := cqltest.UTC(2026, 1, 20, 0, 0, 0)
	got := readEvents(t, s, "asset-1", "2026-01-20", day, day.Add(2*time.Hour), 4)
	want := slices.Clone(events[:6])
	slices.Reverse(want)
	cqltest.Equal(t, "unsplit", eventTimes(got), want[:4])
}
