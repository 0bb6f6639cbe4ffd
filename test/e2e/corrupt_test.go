package e2e_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/storage"
)

// damagedStore makes a data directory holding an sstable (a large
// partition deletion flushes the memtable), a WAL with writes after it, a
// MANIFEST and an OPTIONS file, written by a server that then stopped.
func damagedStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	p := startPartita(t, dir)
	s := connectProcess(t, p)
	mustExec(t, s, "CREATE KEYSPACE s2_corrupt WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE s2_corrupt.rows (p int, c int, v text, PRIMARY KEY (p, c))")
	for c := range 1500 {
		mustExec(t, s, "INSERT INTO s2_corrupt.rows (p, c, v) VALUES (1, ?, 'gone')", c)
	}
	for c := range 200 {
		mustExec(t, s, "INSERT INTO s2_corrupt.rows (p, c, v) VALUES (2, ?, 'kept')", c)
	}
	mustExec(t, s, "DELETE FROM s2_corrupt.rows WHERE p = 1")
	if !waitFor(10*time.Second, func() bool { return len(storeFiles(t, dir, ".sst")) > 0 }) {
		t.Fatalf("no sstable after a large deletion")
	}
	// More than one 32 KiB block of WAL: Pebble tells damage from a torn
	// tail by the valid blocks after it.
	for c := range 1000 {
		mustExec(t, s, "INSERT INTO s2_corrupt.rows (p, c, v) VALUES (3, ?, 'in the WAL')", c)
	}
	s.Close()
	if err := p.kill(t, syscall.SIGTERM); err != nil {
		t.Fatalf("stop: %v\n%s", err, p.logs)
	}
	return dir
}

// storeFiles lists the files of dir whose names end in pattern (or start
// with it, for MANIFEST- and OPTIONS-), newest (highest number) first:
// Pebble keeps an older MANIFEST and recycles old WAL files, which it does
// not read at start. The MANIFEST in use is the one its marker names.
func storeFiles(t *testing.T, dir, pattern string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if pattern == "MANIFEST-" && strings.HasPrefix(name, "marker.manifest.") {
			return []string{name[strings.Index(name, "MANIFEST-"):]}
		}
		if e.Type().IsRegular() && (strings.HasSuffix(name, pattern) || strings.HasPrefix(name, pattern)) {
			out = append(out, name)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(out)))
	return out
}

func copyDir(t *testing.T, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "data")
	if out, err := exec.Command("cp", "-a", from, to).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	return to
}

func truncateHalf(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, fi.Size()/2); err != nil {
		t.Fatal(err)
	}
}

// scribbleAt overwrites n bytes at off (from the end when negative).
func scribbleAt(t *testing.T, path string, off int64, n int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if off < 0 {
		fi, _ := f.Stat()
		off += fi.Size()
	}
	if _, err := f.WriteAt([]byte(strings.Repeat("\xde\xad\xbe\xef", n/4+1)[:n]), off); err != nil {
		t.Fatal(err)
	}
}

// scribble overwrites n bytes in the middle of a file, keeping its size.
func scribble(t *testing.T, path string, n int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	junk := []byte(strings.Repeat("\xde\xad\xbe\xef", n/4+1)[:n])
	if _, err := f.WriteAt(junk, fi.Size()/2-int64(n)/2); err != nil {
		t.Fatal(err)
	}
}

// serveUntilExit runs `partita serve` on dir and returns what it printed
// when it exits; it fails t if the server starts serving instead.
func serveUntilExit(t *testing.T, dir string) (string, error) {
	t.Helper()
	cmd := exec.Command(partitaBinary(t), "serve", "--data-dir", dir,
		"--cql-addr", "127.0.0.1:0", "--http-addr", "", "--log-level", "info")
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case err := <-exited:
			return out.String(), err
		case <-deadline:
			cmd.Process.Kill()
			<-exited
			t.Fatalf("the server did not exit within 60 s on a damaged directory:\n%s", out.String())
		case <-time.After(50 * time.Millisecond):
			if listeningLine.MatchString(out.String()) {
				cmd.Process.Kill()
				<-exited
				t.Fatalf("the server started serving on a damaged directory:\n%s", out.String())
			}
		}
	}
}

// TestCorruptFilesAtStart damages each kind of file of a data directory
// and starts the built binary on it: the server exits with an error that
// names the file and says what to do, never a panic.
func TestCorruptFilesAtStart(t *testing.T) {
	base := damagedStore(t)
	cases := []struct {
		name   string
		damage func(t *testing.T, dir string) string // returns the file damaged
	}{
		{"truncated sstable", func(t *testing.T, dir string) string {
			f := storeFiles(t, dir, ".sst")[0]
			truncateHalf(t, filepath.Join(dir, f))
			return f
		}},
		{"corrupted sstable footer", func(t *testing.T, dir string) string {
			f := storeFiles(t, dir, ".sst")[0]
			scribbleAt(t, filepath.Join(dir, f), -48, 32)
			return f
		}},
		{"corrupted sstable block", func(t *testing.T, dir string) string {
			f := storeFiles(t, dir, ".sst")[0]
			scribbleAt(t, filepath.Join(dir, f), 16, 32)
			return f
		}},
		{"truncated MANIFEST", func(t *testing.T, dir string) string {
			f := storeFiles(t, dir, "MANIFEST-")[0]
			truncateHalf(t, filepath.Join(dir, f))
			return f
		}},
		{"corrupted MANIFEST", func(t *testing.T, dir string) string {
			f := storeFiles(t, dir, "MANIFEST-")[0]
			scribble(t, filepath.Join(dir, f), 16)
			return f
		}},
		// Pebble would replay up to the damage and take the rest for a
		// crash's torn tail, dropping acknowledged rows; valid records of
		// the log after the damage tell it apart.
		{"corrupted WAL", func(t *testing.T, dir string) string {
			f := storeFiles(t, dir, ".log")[0]
			scribbleAt(t, filepath.Join(dir, f), 1024, 64)
			return f
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyDir(t, base)
			file := c.damage(t, dir)
			out, err := serveUntilExit(t, dir)
			t.Logf("output:\n%s", out)
			checkDamageExit(t, out, err, file)
		})
	}
	// Pebble writes a new OPTIONS file at every start and only compares
	// the old one's comparer and merger names: a damaged one does no harm.
	for _, damage := range []func(*testing.T, string){truncateHalf, func(t *testing.T, path string) { scribble(t, path, 64) }} {
		t.Run("damaged OPTIONS starts", func(t *testing.T) {
			dir := copyDir(t, base)
			damage(t, filepath.Join(dir, storeFiles(t, dir, "OPTIONS-")[0]))
			p := startPartita(t, dir)
			s := connectProcess(t, p)
			var n int
			if err := s.Query("SELECT COUNT(*) FROM s2_corrupt.rows").Scan(&n); err != nil || n != 1200 {
				t.Fatalf("COUNT(*) = %d (%v), want 1200", n, err)
			}
		})
	}
	// A torn last write, as a crash leaves it, is not damage: the node
	// starts with every record before it.
	t.Run("truncated WAL starts as after a crash", func(t *testing.T) {
		dir := copyDir(t, base)
		wal := filepath.Join(dir, storeFiles(t, dir, ".log")[0])
		fi, err := os.Stat(wal)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(wal, fi.Size()-5); err != nil {
			t.Fatal(err)
		}
		p := startPartita(t, dir)
		s := connectProcess(t, p)
		var n int
		if err := s.Query("SELECT COUNT(*) FROM s2_corrupt.rows").Scan(&n); err != nil || n < 1199 {
			t.Fatalf("COUNT(*) = %d (%v), want the 1200 rows less at most the torn last one", n, err)
		}
	})
	t.Run("undecodable schema", func(t *testing.T) {
		dir := copyDir(t, base)
		st, err := storage.Open(storage.Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		err = st.Apply(context.Background(), &backend.WriteBatch{Meta: []backend.MetaWrite{{Key: []byte("schema"), Value: []byte("\x00not a schema\xff")}}})
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		out, err := serveUntilExit(t, dir)
		t.Logf("output:\n%s", out)
		checkDamageExit(t, out, err, "schema")
	})
	t.Run("undamaged copy starts", func(t *testing.T) {
		p := startPartita(t, copyDir(t, base))
		s := connectProcess(t, p)
		var n int
		if err := s.Query("SELECT COUNT(*) FROM s2_corrupt.rows").Scan(&n); err != nil || n != 1200 {
			t.Fatalf("COUNT(*) = %d (%v), want 1200", n, err)
		}
	})
}

func checkDamageExit(t *testing.T, out string, err error, file string) {
	t.Helper()
	if err == nil {
		t.Fatalf("the server exited 0 on a damaged directory")
	}
	if strings.Contains(out, "panic") || strings.Contains(out, "goroutine ") {
		t.Fatalf("the server panicked instead of explaining:\n%s", out)
	}
	last := lastLine(out)
	if !strings.Contains(last, file) || !strings.Contains(last, "restore") {
		t.Fatalf("last line %q names neither the damaged file %s nor what to do", last, file)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// connectProcess opens a session on a server process, closed when t ends.
func connectProcess(t *testing.T, p *process) *gocql.Session {
	t.Helper()
	c := newCluster(p.host, p.port)
	c.Timeout = 10 * time.Second
	s, err := c.CreateSession()
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, p.logs)
	}
	t.Cleanup(s.Close)
	return s
}
