package advisor

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)

func iotDataError(devices int, writesEach int64, over time.Duration) Table {
	t := Table{Keyspace: "iot", Name: "iot_data_error",
		PartitionKey: []Column{{Name: "device_id", Type: "text"}},
		Regular: []Column{{Name: "humidity", Type: "float"}, {Name: "signal_strength", Type: "float"},
			{Name: "temperature", Type: "float"}, {Name: "time", Type: "timestamp"}, {Name: "voltage", Type: "float"}},
		Split: SplitPolicy{Enabled: true, MaxRows: 100_000, MaxBytes: 100 << 20}}
	for d := range devices {
		t.Partitions = append(t.Partitions, Partition{Key: fmt.Sprintf("'device_%d'", d), Token: int64(d) * 7919 << 40,
			Rows: 1, Bytes: 60, Measured: true, RowsWritten: writesEach, BytesWritten: writesEach * 60,
			FirstWrite: t0, LastWrite: t0.Add(over)})
	}
	return t
}

func find(r Report, check, table string) *Finding {
	for i := range r.Findings {
		if r.Findings[i].Check == check && r.Findings[i].Table == table {
			return &r.Findings[i]
		}
	}
	return nil
}

// Seed 001's wrong table: one row per device, every reading overwrites
// the last. One reading a minute is 1,440 a day, about 44,640 in a month:
// a month bucket is the coarsest under half of 100k rows, the seed's own
// fix (device_id, year_month).
func TestOverwriteSeed001(t *testing.T) {
	r := Advise(Input{Now: t0, Tables: []Table{iotDataError(20, 1440, 24*time.Hour)}})
	f := find(r, "overwrite", "iot_data_error")
	if f == nil {
		t.Fatalf("no overwrite finding: %+v", r.Findings)
	}
	if f.Severity != Critical || !strings.Contains(f.Problem, "28,800 writes were kept as 20 rows") || !strings.Contains(f.Problem, "loses its history") {
		t.Errorf("problem: %s %s", f.Severity, f.Problem)
	}
	for _, want := range []string{"CREATE TABLE iot.iot_data_error_by_month (", "year_month text,", "PRIMARY KEY ((device_id, year_month), time)", "WITH CLUSTERING ORDER BY (time DESC);", "temperature float,"} {
		if !strings.Contains(f.FixCQL, want) {
			t.Errorf("fix CQL lacks %q:\n%s", want, f.FixCQL)
		}
	}
	if strings.Contains(f.FixCQL, "time timestamp,\n    humidity") && strings.Count(f.FixCQL, "time timestamp") != 1 {
		t.Errorf("time column twice:\n%s", f.FixCQL)
	}
	if !strings.Contains(f.Effect, "1 -> about 44,640 per month") {
		t.Errorf("effect: %s", f.Effect)
	}
	// Ten readings a minute: a month holds 446k, a week 100k, a day 14,400.
	r = Advise(Input{Now: t0, Tables: []Table{iotDataError(20, 14400, 24*time.Hour)}})
	if f := find(r, "overwrite", "iot_data_error"); f == nil || !strings.Contains(f.FixCQL, "day date,") {
		t.Errorf("ten a minute: %+v", f)
	}
	// Rewriting a device's row now and then (a status table) is fine.
	r = Advise(Input{Now: t0, Tables: []Table{iotDataError(20, 3, time.Hour)}})
	if f := find(r, "overwrite", "iot_data_error"); f != nil {
		t.Errorf("three writes per row flagged: %+v", f)
	}
}

// Seed 003: events_by_asset_day, one asset with 50x the others' writes.
func hotAsset(split int) Table {
	t := Table{Keyspace: "ops", Name: "events_by_asset_day",
		PartitionKey: []Column{{Name: "asset_id", Type: "text"}, {Name: "day", Type: "date"}},
		Clustering:   []Column{{Name: "event_ts", Type: "timestamp", Desc: true}, {Name: "event_id", Type: "timeuuid"}},
		Regular:      []Column{{Name: "payload", Type: "text"}},
		Split:        SplitPolicy{Enabled: true, MaxRows: 100_000, MaxBytes: 100 << 20}}
	for a := range 200 {
		n := int64(2000)
		if a == 17 {
			n = 100_000
		}
		p := Partition{Key: fmt.Sprintf("'asset_%d', '2026-01-20'", a), Token: int64(a)*0x2E3779B97F4A7C1 - 1<<62,
			Rows: n, Bytes: n * 200, Measured: true, RowsWritten: n, BytesWritten: n * 200, Ascending: n,
			FirstWrite: t0, LastWrite: t0.Add(24 * time.Hour), SpanStart: t0, SpanEnd: t0.Add(24 * time.Hour)}
		if a == 17 {
			p.Children = split
		}
		t.Partitions = append(t.Partitions, p)
	}
	return t
}

func TestHotPartitionSeed003(t *testing.T) {
	r := Advise(Input{Now: t0, Tables: []Table{hotAsset(0)}})
	f := find(r, "hot-partition", "events_by_asset_day")
	if f == nil {
		t.Fatalf("no hot-partition finding: %+v", r.Findings)
	}
	if f.Worst[0] != "('asset_17', '2026-01-20')" || !strings.Contains(f.Problem, "50x the median") {
		t.Errorf("worst %v problem %s", f.Worst, f.Problem)
	}
	if !strings.Contains(f.FixCQL, "'partita.split.hash_segments': '32'") || !strings.Contains(f.Effect, "50x the median -> about 1.6x") {
		t.Errorf("fix %s effect %s", f.FixCQL, f.Effect)
	}
	// It is at the 100k-row limit: large-partition is critical, and the day
	// bucket is already there, so no unbounded-growth finding.
	if l := find(r, "large-partition", "events_by_asset_day"); l == nil || l.Severity != Warning && l.Severity != Critical {
		t.Errorf("large-partition: %+v", l)
	}
	if u := find(r, "unbounded-growth", "events_by_asset_day"); u != nil {
		t.Errorf("a bucketed table flagged as unbounded: %+v", u)
	}
	// Once Partita has split it, both findings say so and are info only.
	r = Advise(Input{Now: t0, Tables: []Table{hotAsset(8)}})
	if f := find(r, "hot-partition", "events_by_asset_day"); f == nil || f.Severity != Info || !strings.Contains(f.Fix, "split it into 8") {
		t.Errorf("split hot partition: %+v", f)
	}
}

// A time series keyed by device alone grows without end.
func TestUnboundedGrowth(t *testing.T) {
	tb := Table{Keyspace: "iot", Name: "readings",
		PartitionKey: []Column{{Name: "device_id", Type: "text"}},
		Clustering:   []Column{{Name: "ts", Type: "timestamp"}},
		Regular:      []Column{{Name: "v", Type: "double"}}}
	// 30 days of one reading a minute: 43,200 rows, 1,440 a day; the
	// limit is 56,800 rows away, 39.4 days.
	tb.Partitions = []Partition{{Key: "'d1'", Rows: 43_200, Bytes: 43_200 * 40, RowsWritten: 43_200, Ascending: 43_199,
		SpanStart: t0, SpanEnd: t0.Add(30 * 24 * time.Hour)}}
	r := Advise(Input{Now: t0, Tables: []Table{tb}})
	f := find(r, "unbounded-growth", "readings")
	if f == nil {
		t.Fatalf("no finding: %+v", r.Findings)
	}
	if f.Severity != Warning || !strings.Contains(f.Problem, "gains 1,440 rows") || !strings.Contains(f.Problem, "in 39.4 days") {
		t.Errorf("%s: %s", f.Severity, f.Problem)
	}
	if !strings.Contains(f.FixCQL, "PRIMARY KEY ((device_id, year_month), ts)") {
		t.Errorf("fix: %s", f.FixCQL)
	}
	// With a TTL the partition is bounded.
	tb.DefaultTTL = 86400
	if f := find(Advise(Input{Now: t0, Tables: []Table{tb}}), "unbounded-growth", "readings"); f != nil {
		t.Errorf("TTL table flagged: %+v", f)
	}
}

func TestTombstonesAndImbalance(t *testing.T) {
	tb := Table{Keyspace: "q", Name: "jobs", PartitionKey: []Column{{Name: "queue", Type: "text"}},
		Clustering: []Column{{Name: "id", Type: "int"}}}
	for i := range 60 {
		p := Partition{Key: fmt.Sprintf("'q%d'", i), Token: int64(i-30) * (1 << 57), Rows: 10, Bytes: 1000}
		if i == 3 {
			p.Tombstones, p.Bytes = 50_000, 500<<20
		}
		tb.Partitions = append(tb.Partitions, p)
	}
	r := Advise(Input{Now: t0, Tables: []Table{tb}})
	if f := find(r, "tombstones", "jobs"); f == nil || f.Worst[0] != "('q3')" {
		t.Errorf("tombstones: %+v", f)
	}
	if f := find(r, "token-imbalance", "jobs"); f == nil || !strings.Contains(f.Problem, "busiest node") {
		t.Errorf("imbalance: %+v %+v", f, r.Tables[0].Imbalance)
	}
	// Even partitions: the ring's own unevenness is not a finding.
	for i := range tb.Partitions {
		tb.Partitions[i].Tombstones, tb.Partitions[i].Bytes = 0, 1000
	}
	if f := find(Advise(Input{Now: t0, Tables: []Table{tb}}), "token-imbalance", "jobs"); f != nil {
		t.Errorf("even data flagged: %+v", f)
	}
}

func TestWriteText(t *testing.T) {
	var sb strings.Builder
	if err := Advise(Input{Now: t0, Tables: []Table{iotDataError(3, 1440, 24*time.Hour)}}).WriteText(&sb); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, want := range []string{"1. [CRITICAL] iot.iot_data_error: overwrite", "Fix: keep the history", "      PRIMARY KEY ((device_id, year_month), time)", "iot.iot_data_error"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}

// A filtering read that returns a few of the rows it reads gets its own
// query table, keyed by what it restricts.
func TestFilteringStatement(t *testing.T) {
	tb := hotAsset(0)
	tb.Statements = []Statement{
		{Text: "SELECT * FROM ops.events_by_asset_day WHERE payload = ? AND event_ts > ? ALLOW FILTERING", Count: 3,
			RowsRead: 30_000, RowsReturned: 12, RangeScans: 3, Filtered: 3,
			EqualityColumns: []string{"payload"}, RangeColumns: []string{"event_ts"}},
		// It returns what it reads: fine.
		{Text: "SELECT * FROM ops.events_by_asset_day WHERE payload = ? ALLOW FILTERING", Count: 1, RowsRead: 500, RowsReturned: 400, Filtered: 1, RangeScans: 1,
			EqualityColumns: []string{"payload"}},
	}
	var got []Finding
	for _, f := range Advise(Input{Now: t0, Tables: []Table{tb}}).Findings {
		if f.Check == "filtering" {
			got = append(got, f)
		}
	}
	if len(got) != 1 {
		t.Fatalf("filtering findings: %+v", got)
	}
	f := got[0]
	if !strings.Contains(f.Problem, "read 30,000 rows to return 12 (2500x)") || f.Effect != "rows read per returned row: 2500x -> 1x" {
		t.Errorf("problem %s effect %s", f.Problem, f.Effect)
	}
	want := "CREATE TABLE ops.events_by_asset_day_by_payload (\n    payload text,\n    event_ts timestamp,\n    asset_id text,\n    day date,\n    event_id timeuuid,\n" +
		"    PRIMARY KEY ((payload), event_ts, asset_id, day, event_id)\n) WITH CLUSTERING ORDER BY (event_ts DESC, asset_id ASC, day ASC, event_id ASC);"
	if f.FixCQL != want {
		t.Errorf("fix:\n%s\nwant:\n%s", f.FixCQL, want)
	}
}
