package e2e_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/partita-db/partita/test/internal/testserver"
)

// repoRoot is the module root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// suiteTimeout bounds one driver suite; each takes seconds to a minute when
// healthy (Maven compiling the Java suite the longest), and a driver that
// cannot connect may otherwise hang on retries. It is generous because the
// suites run beside the rest of go test ./... on two cores.
const suiteTimeout = 12 * time.Minute

// runSuite runs a driver suite against a fresh in-process node, with
// PARTITA_HOST and PARTITA_PORT set, from the repository root. Its output
// goes to the test log when it fails, and its skipped "BUG:" tests always.
// suiteDir is read first so that go test's cache sees the suite's files.
func runSuite(t *testing.T, suiteDir string, name string, args ...string) {
	t.Helper()
	readSuite(t, filepath.Join(repoRoot(t), suiteDir))
	srv := testserver.New(t)
	deadline := time.Now().Add(suiteTimeout)
	if d, ok := t.Deadline(); ok && d.Add(-30*time.Second).Before(deadline) {
		deadline = d.Add(-30 * time.Second)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(), "PARTITA_HOST="+srv.Host, "PARTITA_PORT="+strconv.Itoa(srv.Port),
		"PYTHONDONTWRITEBYTECODE=1")
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	for _, line := range bugLines.FindAllString(out.String(), -1) {
		t.Log("skipped:", strings.TrimSpace(line))
	}
	if err != nil {
		t.Fatalf("%s %s failed after %v: %v\n%s", name, strings.Join(args, " "), time.Since(start).Round(time.Millisecond), err, out.String())
	}
	t.Logf("%s: %s", name, lastLines(out.String(), 8))
}

// readSuite reads every file of a suite (not its node_modules): go test
// caches a passing result until a file the test opened changes, and the
// suite's files are otherwise opened only by the child process.
func readSuite(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "__pycache__") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			_, err = os.ReadFile(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// bugLines finds skipped tests whose reason names a Partita bug, in
// unittest's and node --test's output.
var bugLines = regexp.MustCompile(`(?m)^.*(skipped|# SKIP) '?BUG:.*$`)

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestPythonDriver runs test/drivers/python with Debian's python3-cassandra.
func TestPythonDriver(t *testing.T) {
	const python = "/usr/bin/python3"
	if out, err := exec.Command(python, "-c", "import cassandra").CombinedOutput(); err != nil {
		t.Fatalf("the Python driver is missing (%v: %s); install it with\n"+
			"    apt-get install -y python3-cassandra\nor run scripts/test.sh, which does", err, bytes.TrimSpace(out))
	}
	runSuite(t, "test/drivers/python", python, "-m", "unittest", "discover", "-s", "test/drivers/python", "-v")
}

// TestNodeDriver runs test/drivers/node with the npm cassandra-driver
// pinned in its package-lock.json.
func TestNodeDriver(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not installed: the Node.js suite needs Node.js 20 or later and npm")
	}
	modules := filepath.Join(repoRoot(t), "test", "drivers", "node", "node_modules", "cassandra-driver")
	if _, err := os.Stat(modules); err != nil {
		t.Fatalf("the Node.js driver is missing (%v); install it with\n"+
			"    (cd test/drivers/node && npm ci --no-audit --no-fund)\nor run scripts/test.sh, which does", err)
	}
	args := []string{"--test", "test/drivers/node/"}
	if nodeHasForceExit(t) {
		// The driver can leave a socket open after a failed connect, which
		// would keep a test file's process, and so the run, alive.
		args = append([]string{"--test-force-exit"}, args...)
	}
	runSuite(t, "test/drivers/node", "node", args...)
}

// nodeHasForceExit reports whether node knows --test-force-exit (20.14+).
func nodeHasForceExit(t *testing.T) bool {
	out, err := exec.Command("node", "--version").Output()
	if err != nil {
		t.Fatalf("node --version: %v", err)
	}
	var major, minor int
	if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "v%d.%d", &major, &minor); err != nil {
		t.Fatalf("node --version printed %q", out)
	}
	return major > 20 || major == 20 && minor >= 14
}

// TestJavaDriver runs test/drivers/java (JUnit 5 through Maven Surefire)
// with the Apache Cassandra Java driver 4.x from Maven Central.
func TestJavaDriver(t *testing.T) {
	if _, err := exec.LookPath("mvn"); err != nil {
		t.Fatal("mvn is not installed: the Java suite needs Java 17 and Maven")
	}
	runSuite(t, "test/drivers/java", "mvn", "-B", "-ntp", "-f", "test/drivers/java/pom.xml", "test")
}
