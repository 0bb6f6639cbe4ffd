package e2e_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/systables"
	"github.com/partita-db/partita/test/internal/partitaproc"
)

// splitCrashTrials is the number of kill -9s of TestSplitSurvivesKill9.
const splitCrashTrials = 20

// splitModel is what the clients of the hot partition know: the rows whose
// insert or delete was acknowledged, and those whose outcome the kill left
// unknown (the request was in flight).
type splitModel struct {
	mu        sync.Mutex
	present   map[int64]string // acknowledged inserts not deleted since
	deleted   map[int64]bool   // acknowledged deletes
	uncertain map[int64]string // in flight at the kill: "" a delete, else the inserted value
}

func (m *splitModel) acked(ts int64, v string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if v == "" {
		delete(m.present, ts)
		m.deleted[ts] = true
	} else {
		m.present[ts] = v
		delete(m.deleted, ts)
	}
}

func (m *splitModel) inFlight(ts int64, v string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.uncertain[ts] = v
}

// settle folds what a read after the restart shows into the model: each
// in-flight write either happened or did not, and from now on it is known.
func (m *splitModel) settle(got map[int64]string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for ts := range m.uncertain {
		if v, ok := got[ts]; ok {
			m.present[ts] = v
			delete(m.deleted, ts)
		} else {
			delete(m.present, ts)
			m.deleted[ts] = true
		}
	}
	m.uncertain = map[int64]string{}
}

// check compares rows read from the server (in read order) with the model:
// no acknowledged row lost, no deleted row back, no row twice, nothing that
// no client wrote, and the clustering order kept.
func (m *splitModel) check(t *testing.T, what string, order []int64, got map[int64]string, desc bool) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(order) != len(got) {
		t.Fatalf("%s: %d rows read but %d distinct: a row came back twice", what, len(order), len(got))
	}
	for i := 1; i < len(order); i++ {
		if (order[i] > order[i-1]) == desc {
			t.Fatalf("%s: rows out of order at %d: %d after %d", what, i, order[i], order[i-1])
		}
	}
	for ts, v := range m.present {
		if _, maybe := m.uncertain[ts]; maybe {
			continue
		}
		if got[ts] != v {
			t.Fatalf("%s: acknowledged row %d lost (read %q, want %q)", what, ts, got[ts], v)
		}
	}
	for ts, v := range got {
		if u, maybe := m.uncertain[ts]; maybe && (u == "" || u == v) {
			continue
		}
		if m.deleted[ts] {
			t.Fatalf("%s: row %d deleted (acknowledged) is back", what, ts)
		}
		if m.present[ts] != v {
			t.Fatalf("%s: row %d = %q, which no client wrote", what, ts, v)
		}
	}
}

// readHot reads the hot partition, paged through its children.
func readHot(t *testing.T, s *gocql.Session, desc bool) ([]int64, map[int64]string) {
	t.Helper()
	q := "SELECT ts, v FROM crash.events WHERE asset = 'hot'"
	if desc {
		q += " ORDER BY ts DESC"
	}
	iter := s.Query(q).PageSize(700).Iter()
	var order []int64
	got := map[int64]string{}
	var ts int64
	var v string
	for iter.Scan(&ts, &v) {
		order = append(order, ts)
		got[ts] = v
	}
	if err := iter.Close(); err != nil {
		t.Fatalf("read the hot partition: %v", err)
	}
	return order, got
}

// verifyHot reads the partition both ways and by COUNT(*), against m.
func verifyHot(t *testing.T, s *gocql.Session, m *splitModel, trial int) map[int64]string {
	t.Helper()
	order, got := readHot(t, s, false)
	m.check(t, fmt.Sprintf("trial %d ascending", trial), order, got, false)
	orderDesc, gotDesc := readHot(t, s, true)
	m.check(t, fmt.Sprintf("trial %d descending", trial), orderDesc, gotDesc, true)
	if len(orderDesc) != len(order) {
		t.Fatalf("trial %d: %d rows ascending, %d descending", trial, len(order), len(orderDesc))
	}
	var n int64
	if err := s.Query("SELECT COUNT(*) FROM crash.events WHERE asset = 'hot'").Scan(&n); err != nil || n != int64(len(order)) {
		t.Fatalf("trial %d: COUNT(*) = %d (%v), read %d rows", trial, n, err, len(order))
	}
	return got
}

// splitAdmin sends an operator split command to the server's HTTP API.
func splitAdmin(httpAddr, op, strategy string) error {
	return partitaproc.AdminSplit(httpAddr, url.Values{"op": {op}, "keyspace": {"crash"}, "table": {"events"}, "key": {"'hot'"}, "strategy": {strategy}})
}

// TestSplitSurvivesKill9 kills the server with SIGKILL 20 times at random
// moments while clients write and delete rows of one hot partition and an
// operator splits it by range, by hash and by roll-over, reverts and merges
// it back, with data moving slowly so that kills land inside migrations.
// After every restart the partition must hold every acknowledged write and
// no deleted or duplicated row, in both directions and by COUNT(*); the
// migration under way resumes (or its revert continues) by itself. At the
// end, with no kill pending, the test finishes one split and reverts
// another (finishBothWays), so that both outcomes are exercised however the
// random trials went: on a loaded machine no migration may finish between
// two kills.
func TestSplitSurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("20 kill -9 trials")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	dir := t.TempDir()
	cfgPath := filepath.Join(t.TempDir(), "partita.yaml")
	// Slow data movement (a 1000-row step about every 0.1 s), so that kills
	// land inside migrations; some may finish between kills, or none on a
	// loaded machine (finishBothWays makes both outcomes happen).
	if err := os.WriteFile(cfgPath, []byte("split_bytes_per_second: 512KiB\nsplit_max_partition_rows: 100000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &splitModel{present: map[int64]string{}, deleted: map[int64]bool{}, uncertain: map[int64]string{}}
	var next int64 // the next fresh clustering value; writers draw from it under m.mu
	strategies := []string{"range", "hash", "rollover"}
	ops, kills := map[string]int{}, 0
	for trial := 0; trial <= splitCrashTrials; trial++ {
		p, httpAddr, s := startSplitNode(t, dir, cfgPath, trial)
		if trial == 0 {
			mustExec(t, s, "CREATE KEYSPACE crash WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
			mustExec(t, s, "CREATE TABLE crash.events (asset text, ts bigint, v text, PRIMARY KEY (asset, ts))")
		} else {
			got := verifyHot(t, s, m, trial)
			m.settle(got)
		}
		if trial == splitCrashTrials {
			// The last restart: let the migration under way finish, then
			// compare once more.
			waitNoMigration(t, p, httpAddr, "the migration under way after the last restart")
			verifyHot(t, s, m, trial)
			finishBothWays(t, p, httpAddr, s, dir, cfgPath, m)
			break
		}

		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				r := rand.New(rand.NewPCG(seed+uint64(trial*10+w), 7))
				for {
					select {
					case <-stop:
						return
					default:
					}
					m.mu.Lock()
					var ts int64
					v := fmt.Sprintf("t%d-w%d-%d", trial, w, r.IntN(1000))
					switch {
					case r.IntN(8) == 0 && len(m.present) > 0:
						// Delete an acknowledged row (any one of them).
						for k := range m.present {
							ts = k
							break
						}
						v = ""
					case r.IntN(2) == 0:
						ts = next // appended at the end
						next++
					default:
						ts = -1 - r.Int64N(1<<40) // spread over the past
					}
					if _, busy := m.uncertain[ts]; busy {
						m.mu.Unlock()
						continue
					}
					m.uncertain[ts] = v // in flight
					m.mu.Unlock()
					var err error
					if v == "" {
						err = s.Query("DELETE FROM crash.events WHERE asset = 'hot' AND ts = ?", ts).Exec()
					} else {
						err = s.Query("INSERT INTO crash.events (asset, ts, v) VALUES ('hot', ?, ?)", ts, v).Exec()
					}
					if err != nil {
						return // the server is gone: ts stays in flight
					}
					m.mu.Lock()
					delete(m.uncertain, ts)
					m.mu.Unlock()
					m.acked(ts, v)
				}
			}(w)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(trial)))
			for {
				select {
				case <-stop:
					return
				case <-time.After(time.Duration(100+r.IntN(900)) * time.Millisecond):
				}
				op := []string{"split", "split", "revert", "merge"}[r.IntN(4)]
				strategy := strategies[r.IntN(len(strategies))]
				if splitAdmin(httpAddr, op, strategy) == nil {
					ops[op+" "+strategy]++
				}
			}
		}()
		time.Sleep(time.Duration(300+rng.IntN(1700)) * time.Millisecond)
		var exitErr *exec.ExitError
		if err := p.kill(t, syscall.SIGKILL); !errors.As(err, &exitErr) {
			t.Fatalf("trial %d: after SIGKILL: %v", trial, err)
		}
		kills++
		close(stop)
		wg.Wait()
		s.Close()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	t.Logf("%d kills; %d rows present, %d deleted; operator commands accepted during the trials: %v", kills, len(m.present), len(m.deleted), ops)
}

// startSplitNode starts the server of a trial with the configuration at
// cfgPath and connects to it.
func startSplitNode(t *testing.T, dir, cfgPath string, trial int) (*process, string, *gocql.Session) {
	t.Helper()
	p, httpAddr := startWithHTTP(t, dir, "--config", cfgPath)
	cluster := newCluster(p.host, p.port)
	cluster.Timeout = 10 * time.Second
	s, err := cluster.CreateSession()
	if err != nil {
		t.Fatalf("trial %d: connect: %v\n%s", trial, err, p.logs)
	}
	return p, httpAddr, s
}

// underWay reports whether splits list a migration under way.
func underWay(splits []systables.SplitInfo) bool {
	for _, sp := range splits {
		if sp.State != "active" {
			return true
		}
	}
	return false
}

// waitNoMigration waits until the server reports no migration under way.
// The bound only turns a stuck migration into a failure: data moves at
// the configured rate, a few seconds for the hot partition.
func waitNoMigration(t *testing.T, p *process, httpAddr, what string) {
	t.Helper()
	if !waitFor(5*time.Minute, func() bool {
		splits, err := partitaproc.Splits(httpAddr)
		return err == nil && !underWay(splits)
	}) {
		t.Fatalf("%s did not finish:\n%s", what, p.logs)
	}
}

// migrationInProgress reports whether the server lists a migration under
// way.
func migrationInProgress(t *testing.T, httpAddr string) bool {
	t.Helper()
	splits, err := partitaproc.Splits(httpAddr)
	if err != nil {
		t.Fatal(err)
	}
	return underWay(splits)
}

// isSplit reports whether the server lists a split partition (the hot one
// is the test's only partition).
func isSplit(t *testing.T, httpAddr string) bool {
	t.Helper()
	splits, err := partitaproc.Splits(httpAddr)
	if err != nil {
		t.Fatalf("/admin/splits: %v", err)
	}
	return len(splits) > 0
}

// splitEvents counts the hot table's split history by event.
func splitEvents(t *testing.T, s *gocql.Session) map[string]int {
	t.Helper()
	events := map[string]int{}
	iter := s.Query("SELECT event FROM system_partita.split_history WHERE keyspace_name = 'crash' AND table_name = 'events'").Iter()
	var ev string
	for iter.Scan(&ev) {
		events[ev]++
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	return events
}

// finishBothWays makes both outcomes of a migration happen, with no kill
// pending, on the server p of the last trial (no migration under way, no
// client writing): after merging back whatever split the trials left, a
// split that the background worker moves to its end, and a split reverted
// before any of it moves. The revert is certain to
// find its migration under way because the server it is sent to runs with
// split_enabled: false (no background worker; operator commands still
// work); the next server, with the worker, completes the revert. The hot
// partition is compared with the model after each.
func finishBothWays(t *testing.T, p *process, httpAddr string, s *gocql.Session, dir, cfgPath string, m *splitModel) {
	t.Helper()
	before := splitEvents(t, s)
	t.Logf("split history of the trials: %v", before)
	if isSplit(t, httpAddr) {
		// Whatever split the trials left (a hash split cannot be cut
		// further by range), merged back first.
		if err := splitAdmin(httpAddr, "merge", ""); err != nil {
			t.Fatalf("merge back with no migration under way: %v", err)
		}
		waitNoMigration(t, p, httpAddr, "the merge back")
		verifyHot(t, s, m, splitCrashTrials)
	}
	if err := splitAdmin(httpAddr, "split", "range"); err != nil {
		t.Fatalf("split with no migration under way: %v", err)
	}
	waitNoMigration(t, p, httpAddr, "the final split")
	verifyHot(t, s, m, splitCrashTrials)
	restart := func(cfg string) {
		t.Helper()
		s.Close()
		if err := p.kill(t, syscall.SIGTERM); err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, p.logs)
		}
		p, httpAddr, s = startSplitNode(t, dir, cfg, splitCrashTrials)
		verifyHot(t, s, m, splitCrashTrials)
	}

	noWorker := filepath.Join(filepath.Dir(cfgPath), "no-worker.yaml")
	if err := os.WriteFile(noWorker, []byte("split_enabled: false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The worker may have started merging the final split back (it is below
	// the merge threshold) before the restart; a server without a worker
	// would never finish that merge, so it is finished first.
	for attempt := 0; ; attempt++ {
		restart(noWorker)
		if !migrationInProgress(t, httpAddr) {
			break
		}
		if attempt == 3 {
			t.Fatalf("a migration was under way at each of %d restarts", attempt+1)
		}
		restart(cfgPath)
		waitNoMigration(t, p, httpAddr, "the automatic merge back")
	}
	if err := splitAdmin(httpAddr, "split", "range"); err != nil {
		t.Fatalf("split to revert: %v", err)
	}
	if err := splitAdmin(httpAddr, "revert", ""); err != nil {
		t.Fatalf("revert of the split just started: %v", err)
	}
	verifyHot(t, s, m, splitCrashTrials)

	restart(cfgPath)
	defer s.Close()
	waitNoMigration(t, p, httpAddr, "the revert")
	verifyHot(t, s, m, splitCrashTrials)
	after := splitEvents(t, s)
	t.Logf("split history: %v", after)
	for _, ev := range []string{"finish", "revert", "reverted"} {
		if after[ev] <= before[ev] {
			t.Errorf("split history: %d %q events after the final migrations, %d before", after[ev], ev, before[ev])
		}
	}
}
