package differential_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/test/differential"
	"github.com/partita-db/partita/test/internal/cassandra"
)

func TestMain(m *testing.M) { os.Exit(cassandra.Main(m)) }

// corpus is the datadriven testdata the replay walks.
var corpus = filepath.Join("..", "..", "internal", "engine", "testdata")

// referenceAddr is the reference node's address: PARTITA_REFERENCE_ADDR, or
// the test binary's shared Cassandra node.
func referenceAddr(t *testing.T) string {
	if addr := os.Getenv("PARTITA_REFERENCE_ADDR"); addr != "" {
		return addr
	}
	return cassandra.Shared(t).Addr()
}

// difference is one statement whose answers differ.
type difference struct {
	file, stmt            string
	partita, cassandraOut string
}

// TestReplayDatadriven replays the datadriven corpus against Partita and
// the reference node, statement by statement (doc.go).
func TestReplayDatadriven(t *testing.T) {
	addr := referenceAddr(t)
	known, err := differential.LoadKnown(filepath.Join("known_differences.txt"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[differential.Key]bool{}
	var diffs []difference
	files, err := filepath.Glob(filepath.Join(corpus, "*"))
	if err != nil {
		t.Fatal(err)
	}
	// The repros of Cassandra divergences carry Cassandra's answers: they
	// are replayed too (random_repros holds the model's, not Cassandra's).
	repros, err := filepath.Glob(filepath.Join(corpus, "random_repros_cassandra", "*"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, repros...)
	sort.Strings(files)
	start := time.Now()
	var statements, emptyLastPages int
	for _, path := range files {
		if st, err := os.Stat(path); err != nil || st.IsDir() {
			continue
		}
		file, _ := filepath.Rel(corpus, path)
		t.Run(filepath.ToSlash(file), func(t *testing.T) {
			fileStart := time.Now()
			ref := dialReference(t, addr)
			skipUnlessReferenceHas(t, ref, path)
			h := cqltest.New(t)
			n := 0
			// Differences are reported after the file: datadriven stops a
			// file at its first failed directive, and the replay must go on.
			var report []string
			var lastIndex time.Time
			datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
				switch d.Cmd {
				case "exec", "query":
				case "bind":
					for _, b := range cqltest.ParseBind(d.Input) {
						n++
						ours, theirs := h.Bind(b), ref.Bind(b)
						// As execReferenceAfterIndex: an index may be building.
						for deadline := lastIndex.Add(time.Minute); strings.HasPrefix(theirs, "error (ReadFailure ") && time.Now().Before(deadline); theirs = ref.Bind(b) {
							time.Sleep(100 * time.Millisecond)
						}
						if differential.SameAnswer(ours, theirs) {
							continue
						}
						key := differential.Key{File: file, Stmt: differential.Normalize(b.Stmt)}
						if _, ok := known[key]; ok {
							seen[key] = true
							continue
						}
						diffs = append(diffs, difference{file, b.Stmt, ours, theirs})
						report = append(report, fmt.Sprintf("%s: answers differ for\n    %s (values %s)\nPartita:\n%sCassandra:\n%s",
							d.Pos, b.Stmt, strings.Join(b.Values, " | "), indent(ours), indent(theirs)))
					}
					return d.Expected
				case "sleep":
					h.Run(d)
					return d.Expected
				default:
					// split, split-finish, restart: Partita only.
					h.Run(d)
					return d.Expected
				}
				pageSize := 0
				for _, arg := range d.CmdArgs {
					if arg.Key == "page-size" {
						pageSize, _ = strconv.Atoi(arg.Vals[0])
					}
				}
				for _, stmt := range cqltest.SplitStatements(d.Input) {
					n++
					ours := h.Exec(stmt, pageSize)
					theirs := execReferenceAfterIndex(ref, stmt, pageSize, lastIndex)
					if createsIndex(stmt) {
						lastIndex = time.Now()
					}
					if differential.SameAnswer(ours, theirs) {
						continue
					}
					if ours == withoutEmptyLastPage(theirs) {
						emptyLastPages++
						continue
					}
					key := differential.Key{File: file, Stmt: differential.Normalize(stmt)}
					if _, ok := known[key]; ok {
						seen[key] = true
						continue
					}
					diffs = append(diffs, difference{file, stmt, ours, theirs})
					report = append(report, fmt.Sprintf("%s: answers differ for\n    %s\nPartita:\n%sCassandra:\n%s", d.Pos, stmt, indent(ours), indent(theirs)))
				}
				return d.Expected
			})
			for _, r := range report {
				t.Error(r)
			}
			statements += n
			t.Logf("%d statements in %v", n, time.Since(fileStart).Round(time.Millisecond))
		})
	}
	for key, why := range known {
		if !seen[key] && !t.Failed() {
			t.Errorf("known difference no longer seen (remove it from known_differences.txt): %s: %s (%s)", key.File, key.Stmt, why)
		}
	}
	t.Logf("replayed %d statements of %d files in %v; %d unexplained differences, %d known, %d empty last pages",
		statements, len(files), time.Since(start).Round(time.Millisecond), len(diffs), len(seen), emptyLastPages)
	if out := os.Getenv("PARTITA_DIFFERENCES_OUT"); out != "" {
		writeDifferences(t, out, diffs)
	}
}

// dialReference connects to the reference node and drops every keyspace a
// previous file left, so each file starts from an empty node.
func dialReference(t *testing.T, addr string) *cqltest.WireSession {
	t.Helper()
	ref, err := cqltest.DialWire(addr, 60*time.Second)
	if err != nil {
		t.Fatalf("connect to the reference node %s: %v", addr, err)
	}
	t.Cleanup(func() { ref.Close() })
	out := ref.Exec("SELECT keyspace_name FROM system_schema.keyspaces", 0)
	for _, line := range strings.Split(out, "\n")[1:] {
		ks := strings.TrimSpace(line)
		if ks == "" || strings.HasPrefix(ks, "(") || strings.HasPrefix(ks, "system") {
			continue
		}
		if res := ref.Exec("DROP KEYSPACE IF EXISTS "+quoteIdent(ks), 0); strings.HasPrefix(res, "error") {
			t.Fatalf("drop keyspace %s on the reference: %s", ks, res)
		}
	}
	return ref
}

// execReference runs stmt on the reference. Cassandra builds a new index in
// the background and fails reads that need it until then (ReadFailure,
// INDEX_NOT_AVAILABLE), where Partita builds it within CREATE INDEX, so
// while an index may still be building (a minute after the file's last
// CREATE INDEX) a read failure is retried until then. Other read failures
// are answers: Cassandra reports errors raised in its read path so.
func execReferenceAfterIndex(ref *cqltest.WireSession, stmt string, pageSize int, lastIndex time.Time) string {
	deadline := lastIndex.Add(time.Minute)
	for {
		out := ref.Exec(stmt, pageSize)
		if !strings.HasPrefix(out, "error (ReadFailure ") || time.Now().After(deadline) {
			return out
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// execReference runs stmt on the reference, retrying a read failure for a
// minute (an index may be building).
func execReference(ref *cqltest.WireSession, stmt string, pageSize int) string {
	return execReferenceAfterIndex(ref, stmt, pageSize, time.Now())
}

// createsIndex reports whether stmt is a CREATE [CUSTOM] INDEX.
func createsIndex(stmt string) bool {
	f := strings.Fields(strings.ToUpper(stmt))
	return len(f) >= 2 && f[0] == "CREATE" && (f[1] == "INDEX" || f[1] == "CUSTOM")
}

// withoutEmptyLastPage drops a final page with no rows from a paged
// answer. Cassandra sends a paging state with every full page, even when the
// scan has just ended, so its client fetches one more, empty page; Partita
// knows the scan ended and sends none. Drivers treat both alike, so this is
// a difference kept on purpose (known_differences.txt).
func withoutEmptyLastPage(out string) string {
	i := strings.LastIndex(out, "-- page ")
	if i <= 0 || !strings.HasSuffix(out, "\n(0 rows)\n") || strings.Count(out[i:], "\n") != 3 {
		return out
	}
	// The empty page's own warnings precede it.
	for i > 0 {
		prev := strings.LastIndex(out[:i-1], "\n") + 1
		if !strings.HasPrefix(out[prev:i], "warning: ") {
			break
		}
		i = prev
	}
	return out[:i]
}

// quoteIdent quotes a keyspace name as printed by the formatter (a text
// value prints in single quotes).
func quoteIdent(printed string) string {
	name := strings.TrimSuffix(strings.TrimPrefix(printed, "'"), "'")
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

func indent(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("    " + line + "\n")
	}
	return b.String()
}

// writeDifferences writes the unexplained differences in the format of
// known_differences.txt (reason left to fill in), for triage.
func writeDifferences(t *testing.T, path string, diffs []difference) {
	var b strings.Builder
	for _, d := range diffs {
		b.WriteString("file: " + d.file + "\n")
		b.WriteString("stmt: " + differential.Normalize(d.stmt) + "\n")
		b.WriteString("why: TODO\n")
		for _, line := range strings.Split(strings.TrimRight(d.partita, "\n"), "\n") {
			b.WriteString("# partita:   " + line + "\n")
		}
		for _, line := range strings.Split(strings.TrimRight(d.cassandraOut, "\n"), "\n") {
			b.WriteString("# cassandra: " + line + "\n")
		}
		b.WriteString("\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Error(err)
	}
}
