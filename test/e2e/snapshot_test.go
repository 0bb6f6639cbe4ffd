package e2e_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/systables"
)

// snapWrite is one row a writer sent: when it was sent and whether (and
// when) it was acknowledged.
type snapWrite struct {
	key     string
	sent    time.Time
	acked   time.Time
	ackedOK bool
}

// runPartitaCLI runs the partita binary with args and returns its output.
func runPartitaCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command(partitaBinary(t), args...).CombinedOutput()
	return string(out), err
}

func fetchSplitInfos(t *testing.T, httpAddr string) []systables.SplitInfo {
	t.Helper()
	resp, err := http.Get("http://" + httpAddr + "/admin/splits")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []systables.SplitInfo
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSnapshotRestore takes a snapshot with `partita snapshot` while
// writers run, writes more, restores the snapshot into a new directory
// with `partita restore` and starts a server on it: every row acknowledged
// before the snapshot began is there, no row sent after it ended is, and
// the schema and a split partition's state came along.
func TestSnapshotRestore(t *testing.T) {
	dataDir := t.TempDir()
	cfgPath := filepath.Join(t.TempDir(), "partita.yaml")
	if err := os.WriteFile(cfgPath, []byte("split_max_partition_rows: 100000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, httpAddr, s := startSplitNode(t, dataDir, cfgPath, 0)
	defer s.Close()
	mustExec(t, s, "CREATE KEYSPACE s2_snap WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE s2_snap.rows (w int, seq int, payload text, PRIMARY KEY (w, seq))")
	mustExec(t, s, "CREATE TABLE s2_snap.hot (p text, c int, v text, PRIMARY KEY (p, c))")
	for c := range 2000 {
		mustExec(t, s, "INSERT INTO s2_snap.hot (p, c, v) VALUES ('p1', ?, ?)", c, fmt.Sprint("v", c))
	}
	if out, err := runPartitaCLI(t, "split", "split", "--http-addr", httpAddr, "--keyspace", "s2_snap", "--table", "hot", "--key", "'p1'", "--strategy", "range"); err != nil {
		t.Fatalf("partita split: %v\n%s", err, out)
	}
	splitBefore := fetchSplitInfos(t, httpAddr)
	if len(splitBefore) != 1 || len(splitBefore[0].Children) < 2 {
		t.Fatalf("split state before the snapshot: %+v", splitBefore)
	}

	// Writers run throughout.
	var mu sync.Mutex
	var writes []*snapWrite
	var stop atomic.Bool
	var wg sync.WaitGroup
	var writeErr atomic.Value
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seq := 0; !stop.Load(); seq++ {
				sw := &snapWrite{key: fmt.Sprintf("%d/%d", w, seq), sent: time.Now()}
				err := s.Query("INSERT INTO s2_snap.rows (w, seq, payload) VALUES (?, ?, ?)", w, seq, sw.key).Exec()
				sw.acked, sw.ackedOK = time.Now(), err == nil
				if err != nil {
					writeErr.Store(err)
				}
				mu.Lock()
				writes = append(writes, sw)
				mu.Unlock()
			}
		}()
	}
	time.Sleep(time.Second)
	began := time.Now()
	out, err := runPartitaCLI(t, "snapshot", "--http-addr", httpAddr, "-t", "before")
	ended := time.Now()
	if err != nil {
		t.Fatalf("partita snapshot: %v\n%s", err, out)
	}
	snapDir := filepath.Join(dataDir, "snapshots", "before")
	if !strings.Contains(out, snapDir) {
		t.Fatalf("partita snapshot printed %q, want the directory %s", out, snapDir)
	}
	time.Sleep(time.Second)
	// After the snapshot: more rows, a schema change and a merge of the
	// split partition, none of which the restored node may show.
	mustExec(t, s, "CREATE TABLE s2_snap.later (k int PRIMARY KEY)")
	stop.Store(true)
	wg.Wait()
	if err := writeErr.Load(); err != nil {
		t.Fatalf("a write failed: %v", err)
	}
	if out, err := runPartitaCLI(t, "split", "merge", "--http-addr", httpAddr, "--keyspace", "s2_snap", "--table", "hot", "--key", "'p1'"); err != nil {
		t.Fatalf("partita split merge: %v\n%s", err, out)
	}
	if got := fetchSplitInfos(t, httpAddr); len(got) != 0 {
		t.Fatalf("split state after the merge: %+v", got)
	}

	out, err = runPartitaCLI(t, "listsnapshots", "--http-addr", httpAddr)
	if err != nil || !strings.Contains(out, "before") || !strings.Contains(out, snapDir) {
		t.Fatalf("partita listsnapshots: %v\n%s", err, out)
	}
	// A tag is taken once.
	if out, err := runPartitaCLI(t, "snapshot", "--http-addr", httpAddr, "-t", "before"); err == nil {
		t.Fatalf("a second snapshot with the tag before succeeded:\n%s", out)
	}
	s.Close()
	if err := p.kill(t, syscall.SIGTERM); err != nil {
		t.Fatalf("stop: %v\n%s", err, p.logs)
	}

	// Restore refuses a directory that is not empty.
	busy := t.TempDir()
	if err := os.WriteFile(filepath.Join(busy, "x"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := runPartitaCLI(t, "restore", "--snapshot", snapDir, "--data-dir", busy); err == nil || !strings.Contains(out, "not empty") {
		t.Fatalf("restore into a non-empty directory: %v\n%s", err, out)
	}
	restored := filepath.Join(t.TempDir(), "restored")
	if out, err := runPartitaCLI(t, "restore", "--snapshot", snapDir, "--data-dir", restored); err != nil {
		t.Fatalf("partita restore: %v\n%s", err, out)
	}

	p2, httpAddr2, s2 := startSplitNode(t, restored, cfgPath, 1)
	defer s2.Close()
	present := map[string]bool{}
	iter := s2.Query("SELECT payload FROM s2_snap.rows").PageSize(1000).Iter()
	var payload string
	for iter.Scan(&payload) {
		present[payload] = true
	}
	if err := iter.Close(); err != nil {
		t.Fatalf("read the restored rows: %v\n%s", err, p2.logs)
	}
	var before, after, between, betweenIn int
	for _, w := range writes {
		switch {
		case w.ackedOK && w.acked.Before(began):
			before++
			if !present[w.key] {
				t.Errorf("row %s acknowledged before the snapshot began is missing", w.key)
			}
		case w.sent.After(ended):
			after++
			if present[w.key] {
				t.Errorf("row %s sent after the snapshot ended is in it", w.key)
			}
		default:
			between++
			if present[w.key] {
				betweenIn++
			}
		}
	}
	t.Logf("rows acknowledged before the snapshot: %d, sent after it: %d, in between: %d (%d of them in it); snapshot took %s",
		before, after, between, betweenIn, ended.Sub(began).Round(time.Millisecond))
	if before == 0 || after == 0 {
		t.Fatalf("the writers did not run on both sides of the snapshot (%d before, %d after)", before, after)
	}
	// Schema: the table created after the snapshot is not there.
	if err := s2.Query("SELECT * FROM s2_snap.later").Exec(); err == nil {
		t.Fatal("table created after the snapshot exists in the restored node")
	}
	// The split partition's state: split as at the snapshot, every row there.
	got := fetchSplitInfos(t, httpAddr2)
	if len(got) != 1 || got[0].Table != "hot" || got[0].State != "active" || len(got[0].Children) != len(splitBefore[0].Children) {
		t.Fatalf("restored split state %+v, want %+v", got, splitBefore)
	}
	var n int
	if err := s2.Query("SELECT COUNT(*) FROM s2_snap.hot WHERE p = 'p1'").Scan(&n); err != nil || n != 2000 {
		t.Fatalf("restored split partition: %d rows (%v), want 2000", n, err)
	}

	// clearsnapshot removes it.
	if out, err := runPartitaCLI(t, "clearsnapshot", "--http-addr", httpAddr2, "--all"); err != nil {
		t.Fatalf("clearsnapshot --all on a node with none: %v\n%s", err, out)
	}
	if out, err := runPartitaCLI(t, "snapshot", "--http-addr", httpAddr2, "-t", "second"); err != nil {
		t.Fatalf("snapshot on the restored node: %v\n%s", err, out)
	}
	if out, err := runPartitaCLI(t, "clearsnapshot", "--http-addr", httpAddr2, "-t", "second"); err != nil || !strings.Contains(out, "removed snapshot second") {
		t.Fatalf("clearsnapshot -t second: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(restored, "snapshots", "second")); !os.IsNotExist(err) {
		t.Fatalf("snapshot directory still there after clearsnapshot: %v", err)
	}
}
