package e2e_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/test/internal/testserver"
)

// cqlsh runs cqlsh against srv with the given arguments and returns what it
// printed; a non-zero exit fails the test.
func cqlsh(t *testing.T, srv *testserver.Server, args ...string) string {
	t.Helper()
	out, err := runCqlsh(t, srv, args...)
	if err != nil {
		t.Fatalf("cqlsh %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// runCqlsh runs cqlsh against srv and returns what it printed and how it exited.
func runCqlsh(t *testing.T, srv *testserver.Server, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	full := append([]string{srv.Host, strconv.Itoa(srv.Port)}, args...)
	cmd := exec.CommandContext(ctx, cqltest.CqlshPath(t), full...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+cmd.Dir, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestCqlsh drives cqlsh the way a user does: statements with -e, a file
// with -f and SOURCE, DESCRIBE, COPY TO and COPY FROM a CSV file, and a
// result larger than its page.
func TestCqlsh(t *testing.T) {
	srv := testserver.New(t)
	setup := filepath.Join(t.TempDir(), "setup.cql")
	var b strings.Builder
	b.WriteString("CREATE KEYSPACE shell WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n")
	b.WriteString("CREATE TABLE shell.events (device text, ts int, reading double, note text, PRIMARY KEY (device, ts)) WITH CLUSTERING ORDER BY (ts DESC);\n")
	for i := range 250 {
		fmt.Fprintf(&b, "INSERT INTO shell.events (device, ts, reading, note) VALUES ('d%d', %d, %d.5, 'n,%d');\n", i%3, i, i, i)
	}
	if err := os.WriteFile(setup, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cqlsh(t, srv, "-f", setup)

	t.Run("select", func(t *testing.T) {
		out := cqlsh(t, srv, "-e", "SELECT ts, reading, note FROM shell.events WHERE device = 'd1' LIMIT 2")
		for _, want := range []string{" ts  | reading | note", " 247 |   247.5 | n,247", " 244 |   244.5 | n,244", "(2 rows)"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("paging", func(t *testing.T) {
		// cqlsh fetches 100 rows a page: all 250 arrive, each once.
		out := cqlsh(t, srv, "-e", "PAGING 10; SELECT device, ts FROM shell.events")
		if !strings.Contains(out, "(250 rows)") {
			t.Errorf("output lacks (250 rows):\n%s", lastLines(out, 5))
		}
		for _, key := range []string{" d0 |   0\n", " d1 | 247\n", " d2 | 248\n"} {
			if n := strings.Count(out, key); n != 1 {
				t.Errorf("row %q printed %d times", strings.TrimSpace(key), n)
			}
		}
	})
	t.Run("describe", func(t *testing.T) {
		out := cqlsh(t, srv, "-e", "DESCRIBE KEYSPACE shell")
		for _, want := range []string{
			"CREATE KEYSPACE shell WITH replication = {",
			"'replication_factor': '1'}  AND durable_writes = true;",
			"CREATE TABLE shell.events (",
			"PRIMARY KEY (device, ts)",
			"WITH CLUSTERING ORDER BY (ts DESC)",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("DESCRIBE lacks %q:\n%s", want, out)
			}
		}
		if out := cqlsh(t, srv, "-e", "DESCRIBE TABLES"); !strings.Contains(out, "Keyspace shell\n") || !strings.Contains(out, "events") {
			t.Errorf("DESCRIBE TABLES:\n%s", out)
		}
	})
	t.Run("copy", func(t *testing.T) {
		csv := filepath.Join(t.TempDir(), "events.csv")
		out := cqlsh(t, srv, "-e", fmt.Sprintf("COPY shell.events (device, ts, reading, note) TO '%s' WITH HEADER = true", csv))
		if !strings.Contains(out, "250 rows exported") {
			t.Fatalf("COPY TO:\n%s", out)
		}
		data, err := os.ReadFile(csv)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.ReplaceAll(string(data), "\r\n", "\n")
		lines := strings.Split(strings.TrimSpace(text), "\n")
		if len(lines) != 251 || lines[0] != "device,ts,reading,note" {
			t.Fatalf("the CSV has %d lines, first %q", len(lines), lines[0])
		}
		if !strings.Contains(text, "\nd1,247,247.5,\"n,247\"\n") {
			t.Errorf("the CSV lacks d1's row 247 with its quoted note")
		}
		out = cqlsh(t, srv, "-e", "CREATE TABLE shell.events_copy (device text, ts int, reading double, note text, PRIMARY KEY (device, ts));"+
			fmt.Sprintf("COPY shell.events_copy (device, ts, reading, note) FROM '%s' WITH HEADER = true", csv))
		if !strings.Contains(out, "250 rows imported") {
			t.Fatalf("COPY FROM:\n%s", out)
		}
		out = cqlsh(t, srv, "-e", "SELECT count(*), sum(ts), min(reading), max(note) FROM shell.events_copy")
		if !strings.Contains(out, "   250 |          31125 |                 0.5 |             n,99\n") {
			t.Errorf("the copied table:\n%s", out)
		}
	})
	t.Run("source", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "more.cql")
		stmts := "USE shell;\nINSERT INTO events (device, ts, reading) VALUES ('d9', 1, 1.0);\nSELECT device, ts, reading FROM events WHERE device = 'd9';\n"
		if err := os.WriteFile(file, []byte(stmts), 0o644); err != nil {
			t.Fatal(err)
		}
		out := cqlsh(t, srv, "-e", fmt.Sprintf("SOURCE '%s'", file))
		if !strings.Contains(out, "     d9 |  1 |       1\n") || !strings.Contains(out, "(1 rows)") {
			t.Errorf("SOURCE:\n%s", out)
		}
	})
	t.Run("errors", func(t *testing.T) {
		// cqlsh prints the server's error class and message, goes on with
		// the next statement, and exits with status 2.
		out, err := runCqlsh(t, srv, "-e", "SELECT * FROM shell.events WHERE reading = 1.5; SELECT count(*) FROM shell.events")
		if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 2 {
			t.Errorf("cqlsh exited with %v, want status 2", err)
		}
		for _, want := range []string{"InvalidRequest: Error from server: code=2200 [Invalid query] message=\"Cannot execute this query as it might involve data filtering",
			"(1 rows)"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	})
}
