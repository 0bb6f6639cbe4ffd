package e2e_test

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// mountTmpfs mounts a tmpfs of the given size (e.g. "64m") on a new
// directory and unmounts it when t ends; it skips t when mounting is not
// possible here (not root, or no mount permission in this sandbox).
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput()
	if err != nil {
		t.Skipf("cannot mount a %s tmpfs on %s (needs root and mount permission): %v: %s", size, dir, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// writeFiller writes a file of n random bytes.
func writeFiller(t *testing.T, path string, n int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(f, rand.Reader, n); err != nil {
		f.Close()
		t.Fatalf("filler %s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// freeBytes is the space left on dir's file system for an unprivileged
// writer.
func freeBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bavail) * st.Bsize
}

// cpuSeconds is the user plus system CPU time of process pid so far
// (/proc/PID/stat fields 14 and 15, in clock ticks of 1/100 s).
func cpuSeconds(t *testing.T, pid int) float64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The command name (field 2) may hold spaces; fields after it follow ')'.
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	utime, _ := strconv.ParseFloat(fields[11], 64)
	stime, _ := strconv.ParseFloat(fields[12], 64)
	return (utime + stime) / 100
}

// fullDiskWriter writes rows of about 3 KiB of random text until its first
// error, recording what was acknowledged.
type fullDiskWriter struct {
	mu    sync.Mutex
	acked map[string]string // "w/seq" -> payload
	errs  []error
}

func (fw *fullDiskWriter) run(s *gocql.Session, writers int, prefix string) {
	var wg sync.WaitGroup
	var stop sync.Once
	done := make(chan struct{})
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 2304)
			for seq := 0; ; seq++ {
				select {
				case <-done:
					return
				default:
				}
				rand.Read(buf)
				payload := base64.StdEncoding.EncodeToString(buf)
				key := fmt.Sprintf("%s%d/%d", prefix, w, seq)
				err := s.Query("INSERT INTO s2_full.rows (k, payload) VALUES (?, ?)", key, payload).Exec()
				fw.mu.Lock()
				if err != nil {
					fw.errs = append(fw.errs, err)
					fw.mu.Unlock()
					stop.Do(func() { close(done) })
					return
				}
				fw.acked[key] = payload
				fw.mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

// verify reads every acknowledged row back.
func (fw *fullDiskWriter) verify(t *testing.T, s *gocql.Session) {
	t.Helper()
	fw.mu.Lock()
	defer fw.mu.Unlock()
	got := map[string]string{}
	iter := s.Query("SELECT k, payload FROM s2_full.rows").PageSize(1000).Iter()
	var k, p string
	for iter.Scan(&k, &p) {
		got[k] = p
	}
	if err := iter.Close(); err != nil {
		t.Fatalf("read back: %v", err)
	}
	lost := 0
	for k, want := range fw.acked {
		if got[k] != want {
			lost++
		}
	}
	if lost > 0 {
		t.Fatalf("%d of %d acknowledged rows lost", lost, len(fw.acked))
	}
}

// expectWriteFailures checks every error the writers met is the
// WriteFailure a Cassandra node sends when it cannot apply a mutation
// locally (service/StorageProxy.java LocalMutationRunnable; the message is
// exceptions/RequestFailureException.java's).
func (fw *fullDiskWriter) expectWriteFailures(t *testing.T, p *process) {
	t.Helper()
	if len(fw.errs) == 0 {
		t.Fatal("no write failed")
	}
	for _, err := range fw.errs {
		var wf *gocql.RequestErrWriteFailure
		if !errors.As(err, &wf) {
			t.Fatalf("write error %v (%T), want a WriteFailure (0x1500):\n%s", err, err, p.logs)
		}
		if wf.Code() != 0x1500 || wf.NumFailures != 1 || wf.BlockFor != 1 || wf.Received != 0 ||
			wf.Message() != "Operation failed - received 0 responses and 1 failures: UNKNOWN from /127.0.0.1:7000" {
			t.Fatalf("write failure %#v, want Cassandra's for one replica that failed", wf)
		}
	}
}

func metricValue(t *testing.T, httpAddr, name string) string {
	t.Helper()
	resp, err := http.Get("http://" + httpAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			return v
		}
	}
	t.Fatalf("no metric %s in /metrics", name)
	return ""
}

func startFullDiskNode(t *testing.T, dataDir, cfgPath string) (*process, string, *gocql.Session) {
	t.Helper()
	p, httpAddr := startWithHTTP(t, dataDir, "--config", cfgPath)
	c := newCluster(p.host, p.port)
	c.Timeout = 10 * time.Second
	c.RetryPolicy = nil
	s, err := c.CreateSession()
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, p.logs)
	}
	t.Cleanup(s.Close)
	return p, httpAddr, s
}

// TestDiskFull fills a small real file system with the server's own
// writes: writes then fail with WriteFailure, reads still answer, every
// acknowledged row is there, and once a file is deleted writes succeed
// again without a restart. A restart on the nearly full disk answers
// reads (read-only: Pebble cannot flush the log it replays) and stays idle
// instead of retrying failed flushes in a loop; once space is freed, a
// restart accepts writes again.
func TestDiskFull(t *testing.T) {
	fsDir := mountTmpfs(t, "128m")
	dataDir := filepath.Join(fsDir, "data")
	// Two fillers: one freed while the node runs, one freed before the
	// last restart, so that there is room to flush what the node replays.
	filler, spare := filepath.Join(fsDir, "filler"), filepath.Join(fsDir, "spare")
	writeFiller(t, filler, 16<<20)
	writeFiller(t, spare, 48<<20)
	cfgPath := filepath.Join(t.TempDir(), "partita.yaml")
	// 8MiB is raised to the size of a memtable flush, 36MiB (storage.Open).
	if err := os.WriteFile(cfgPath, []byte("min_free_space_per_drive: 8MiB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, httpAddr, s := startFullDiskNode(t, dataDir, cfgPath)
	mustExec(t, s, "CREATE KEYSPACE s2_full WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE s2_full.rows (k text PRIMARY KEY, payload text)")

	fw := &fullDiskWriter{acked: map[string]string{}}
	start := time.Now()
	fw.run(s, 4, "a")
	t.Logf("disk full after %d acknowledged rows in %s; %d bytes free", len(fw.acked), time.Since(start).Round(time.Millisecond), freeBytes(t, fsDir))
	fw.expectWriteFailures(t, p)
	if v := metricValue(t, httpAddr, "partita_storage_disk_full"); v != "1" {
		t.Fatalf("partita_storage_disk_full = %s while writes fail, want 1", v)
	}
	if !strings.Contains(p.logs.String(), "writes are refused until space is freed") {
		t.Fatalf("no log line says why writes fail:\n%s", p.logs)
	}
	// Reads go on.
	fw.verify(t, s)

	// Space returns: writes succeed again without a restart.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if !waitFor(15*time.Second, func() bool {
		return s.Query("INSERT INTO s2_full.rows (k, payload) VALUES ('after', 'space returned')").Exec() == nil
	}) {
		t.Fatalf("writes still fail 15 s after space was freed:\n%s", p.logs)
	}
	fw.acked["after"] = "space returned"

	// Fill it again, kill the server, and leave only about 1 MiB free.
	fw.errs = nil
	fw.run(s, 4, "b")
	fw.expectWriteFailures(t, p)
	s.Close()
	_ = p.kill(t, syscall.SIGKILL)
	if free := freeBytes(t, fsDir); free > 1<<20 {
		writeFiller(t, filler, free-(1<<20))
	}
	t.Logf("%d acknowledged rows; restarting with %d bytes free", len(fw.acked), freeBytes(t, fsDir))

	// With no room to flush the write-ahead log it replays, the node opens
	// read-only: reads answer, writes fail as before.
	p, httpAddr, s = startFullDiskNode(t, dataDir, cfgPath)
	fw.verify(t, s)
	if v := metricValue(t, httpAddr, "partita_storage_read_only"); v != "1" {
		t.Fatalf("partita_storage_read_only = %s after a start on a full disk, want 1", v)
	}
	// Idle on a full disk: Pebble's failed flushes must not turn into a
	// busy loop. A loop burns about a core (5 s of CPU in 5 s).
	time.Sleep(2 * time.Second)
	before := cpuSeconds(t, p.cmd.Process.Pid)
	time.Sleep(5 * time.Second)
	used := cpuSeconds(t, p.cmd.Process.Pid) - before
	t.Logf("CPU over 5 s idle on the full disk: %.2f s", used)
	if used > 0.5 {
		t.Fatalf("the server used %.2f s of CPU in 5 s idle on a full disk (bound 0.5 s):\n%s", used, p.logs)
	}
	if n := strings.Count(p.logs.String(), "no space left on device"); n > 5 {
		t.Fatalf("%d log lines about the full disk within seconds; want them rate-limited:\n%s", n, p.logs)
	}
	var wf *gocql.RequestErrWriteFailure
	if err := s.Query("INSERT INTO s2_full.rows (k, payload) VALUES ('full', 'x')").Exec(); !errors.As(err, &wf) {
		t.Fatalf("write on the full disk after restart: %v, want WriteFailure", err)
	}
	// Once space is freed, a restart accepts writes again and has every
	// acknowledged row.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(spare); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := p.kill(t, syscall.SIGTERM); err != nil {
		t.Fatalf("stop: %v\n%s", err, p.logs)
	}
	p, httpAddr, s = startFullDiskNode(t, dataDir, cfgPath)
	mustExec(t, s, "INSERT INTO s2_full.rows (k, payload) VALUES ('after2', 'x')")
	fw.acked["after2"] = "x"
	fw.verify(t, s)
	if v := metricValue(t, httpAddr, "partita_storage_read_only"); v != "0" {
		t.Fatalf("partita_storage_read_only = %s after a start with room, want 0", v)
	}
}
