package e2e_test

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/test/internal/seeds"
)

// adviseReport is the part of `partita advise --json` the tests read.
type adviseReport struct {
	Findings []struct {
		Severity, Check, Keyspace, Table, Problem, Fix string
		Worst                                          []string `json:"worst_partitions"`
		FixCQL                                         string   `json:"fix_cql"`
	} `json:"findings"`
	Tables []struct {
		Table      string `json:"table"`
		Partitions int    `json:"partitions_tracked"`
	} `json:"tables"`
}

func runAdvise(t *testing.T, httpAddr string, args ...string) string {
	t.Helper()
	out, err := exec.Command(partitaBinary(t), append([]string{"advise", "--http-addr", httpAddr}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("partita advise %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func adviseJSON(t *testing.T, httpAddr, keyspace string) adviseReport {
	t.Helper()
	var r adviseReport
	out := runAdvise(t, httpAddr, keyspace, "--json")
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("advise --json: %v\n%s", err, out)
	}
	return r
}

// writeConcurrently runs n statements over 16 workers.
func writeConcurrently(t *testing.T, s *gocql.Session, n int, stmt func(i int) (string, []any)) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 16 {
				q, args := stmt(i)
				if err := s.Query(q, args...).Exec(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// The advisor on seed 001's iot_data_error (one row per device: every
// reading overwrites the last) and on seed 003's hot asset, through the
// server process and `partita advise`.
func TestAdviseSeeds(t *testing.T) {
	p, httpAddr := startWithHTTP(t, t.TempDir())
	s, err := newCluster(p.host, p.port).CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mustExec(t, s, "CREATE KEYSPACE iot WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE KEYSPACE ops WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, strings.Replace(seeds.IoTDataError, "iot_data_error", "iot.iot_data_error", 1))
	mustExec(t, s, strings.Replace(seeds.Seed003Tables[0], "events_by_asset_day", "ops.events_by_asset_day", 1))

	// 20 devices reporting 200 readings each, one a minute.
	start := utc(2026, 5, 1, 0, 0, 0)
	writeConcurrently(t, s, 20*200, func(i int) (string, []any) {
		return "INSERT INTO iot.iot_data_error (device_id, time, temperature, humidity, voltage, signal_strength) VALUES (?, ?, ?, ?, ?, ?)",
			[]any{fmt.Sprintf("device_%d", i%20), start.Add(time.Duration(i/20) * time.Minute), float32(20), float32(40), float32(3.3), float32(-70)}
	})
	// 40 assets with 60 events each over the day, asset-7 with 50x that.
	writeConcurrently(t, s, 39*60+3000, func(i int) (string, []any) {
		asset, n := "asset-7", i-39*60
		if i < 39*60 {
			asset, n = fmt.Sprintf("asset-%d", 8+i%39), i/39
		}
		return "INSERT INTO ops.events_by_asset_day (asset_id, day, event_ts, payload) VALUES (?, '2026-01-20', ?, 'e')",
			[]any{asset, utc(2026, 1, 20, 0, 0, 0).Add(time.Duration(n) * time.Second)}
	})

	iot := adviseJSON(t, httpAddr, "iot")
	if len(iot.Tables) != 1 || iot.Tables[0].Table != "iot_data_error" || iot.Tables[0].Partitions != 20 {
		t.Errorf("iot tables: %+v", iot.Tables)
	}
	var over bool
	for _, f := range iot.Findings {
		if f.Check != "overwrite" {
			continue
		}
		over = true
		if f.Severity != "critical" || !strings.Contains(f.Problem, "4,000 writes were kept as 20 rows") || !strings.Contains(f.Problem, "column time is a timestamp") {
			t.Errorf("overwrite problem: %s: %s", f.Severity, f.Problem)
		}
		// The bucket depends on this test's write rate; the shape is the
		// seed's fix: the device and a time bucket as the partition key,
		// the report time as the clustering column.
		if !strings.Contains(f.FixCQL, "CREATE TABLE iot.iot_data_error_by_") || !strings.Contains(f.FixCQL, "PRIMARY KEY ((device_id, ") ||
			!strings.Contains(f.FixCQL, "), time)") || !strings.Contains(f.FixCQL, "CLUSTERING ORDER BY (time DESC)") {
			t.Errorf("overwrite fix:\n%s", f.FixCQL)
		}
		// The fix is valid CQL.
		mustExec(t, s, f.FixCQL)
	}
	if !over {
		t.Errorf("no overwrite finding for iot_data_error: %+v", iot.Findings)
	}

	hot := func() (sev, fix string) {
		for _, f := range adviseJSON(t, httpAddr, "ops").Findings {
			if f.Check == "hot-partition" && f.Table == "events_by_asset_day" {
				if len(f.Worst) == 0 || f.Worst[0] != "('asset-7', '2026-01-20')" || !strings.Contains(f.Problem, "50x the median") {
					t.Errorf("hot partition: %v %s", f.Worst, f.Problem)
				}
				return f.Severity, f.Fix
			}
		}
		t.Fatalf("no hot-partition finding for events_by_asset_day")
		return "", ""
	}
	// A filtering read that returns nothing of what it reads.
	if n := s.Query("SELECT * FROM ops.events_by_asset_day WHERE payload = 'x' ALLOW FILTERING").Iter().NumRows(); n != 0 {
		t.Fatalf("filtering read returned %d rows", n)
	}
	var filtering bool
	for _, f := range adviseJSON(t, httpAddr, "ops").Findings {
		if f.Check == "filtering" {
			filtering = true
			if !strings.Contains(f.Problem, "SELECT * FROM ops.events_by_asset_day WHERE payload = ? ALLOW FILTERING ran 1 times and read 5,340 rows to return 0") ||
				!strings.Contains(f.FixCQL, "PRIMARY KEY ((payload), asset_id, day, event_ts)") {
				t.Errorf("filtering finding: %s\n%s", f.Problem, f.FixCQL)
			}
			mustExec(t, s, f.FixCQL)
		}
	}
	if !filtering {
		t.Errorf("no filtering finding")
	}
	if sev, _ := hot(); sev != "warning" {
		t.Errorf("unsplit hot partition: severity %s", sev)
	}
	// Once Partita has split the hot partition, the advisor says so.
	out, err := exec.Command(partitaBinary(t), "split", "split", "--http-addr", httpAddr, "--keyspace", "ops",
		"--table", "events_by_asset_day", "--key", "'asset-7', '2026-01-20'", "--strategy", "range").CombinedOutput()
	if err != nil {
		t.Fatalf("split: %v\n%s", err, out)
	}
	if sev, fix := hot(); sev != "info" || !strings.Contains(fix, "Partita has split it into") {
		t.Errorf("split hot partition: %s: %s", sev, fix)
	}
	// The text form names the finding and prints the fix.
	text := runAdvise(t, httpAddr, "iot")
	t.Logf("partita advise iot:\n%s", text)
	t.Logf("partita advise ops:\n%s", runAdvise(t, httpAddr, "ops"))
	for _, want := range []string{"[CRITICAL] iot.iot_data_error: overwrite", "Fix: keep the history", "PRIMARY KEY ((device_id, "} {
		if !strings.Contains(text, want) {
			t.Errorf("advise text lacks %q:\n%s", want, text)
		}
	}
	// A keyspace that does not exist is an error, as in cqlsh.
	if out, err := exec.Command(partitaBinary(t), "advise", "--http-addr", httpAddr, "nope").CombinedOutput(); err == nil || !strings.Contains(string(out), "Keyspace 'nope' does not exist") {
		t.Errorf("advise nope: %v %s", err, out)
	}
}
