// Package suites runs the driver suites of test/drivers (Python, Node.js,
// Java) against a node given by address: the in-process node of test/e2e,
// or a gateway over a Cassandra cluster in test/clusterstore.
package suites

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Timeout bounds one driver suite; each takes seconds to a minute when
// healthy (Maven compiling the Java suite the longest), and a driver that
// cannot connect may otherwise hang on retries. It is generous because the
// suites run beside the rest of go test ./... on two cores.
const Timeout = 12 * time.Minute

// Root is the repository's root directory.
func Root(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller information")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// Run runs a suite's command from the repository root with PARTITA_HOST
// and PARTITA_PORT set to host and port. Its output goes to the test log
// when it fails, and its skipped "BUG:" tests always. The suite's files
// are read first so that go test's cache sees them.
func Run(t *testing.T, host string, port int, suiteDir string, name string, args ...string) {
	t.Helper()
	ReadDir(t, filepath.Join(Root(t), suiteDir))
	deadline := time.Now().Add(Timeout)
	if d, ok := t.Deadline(); ok && d.Add(-30*time.Second).Before(deadline) {
		deadline = d.Add(-30 * time.Second)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = Root(t)
	cmd.Env = append(os.Environ(), "PARTITA_HOST="+host, "PARTITA_PORT="+strconv.Itoa(port),
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
	t.Logf("%s: %s", name, LastLines(out.String(), 8))
}

// ReadDir reads every file of a suite (not its node_modules): go test
// caches a passing result until a file the test opened changes, and the
// suite's files are otherwise opened only by the child process.
func ReadDir(t testing.TB, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "__pycache__" || d.Name() == "target") {
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

// LastLines is the last n lines of s.
func LastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// Python runs test/drivers/python with Debian's python3-cassandra.
func Python(t *testing.T, host string, port int) { PythonFiles(t, host, port, "test*.py") }

// PythonFiles runs the files of test/drivers/python that pattern (a shell
// pattern, unittest discover's -p) matches.
func PythonFiles(t *testing.T, host string, port int, pattern string) {
	const python = "/usr/bin/python3"
	if out, err := exec.Command(python, "-c", "import cassandra").CombinedOutput(); err != nil {
		t.Fatalf("the Python driver is missing (%v: %s); install it with\n"+
			"    apt-get install -y python3-cassandra\nor run scripts/test.sh, which does", err, bytes.TrimSpace(out))
	}
	Run(t, host, port, "test/drivers/python", python, "-m", "unittest", "discover", "-s", "test/drivers/python", "-p", pattern, "-v")
}

// Node runs test/drivers/node with the npm cassandra-driver pinned in its
// package-lock.json.
func Node(t *testing.T, host string, port int) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not installed: the Node.js suite needs Node.js 20 or later and npm")
	}
	modules := filepath.Join(Root(t), "test", "drivers", "node", "node_modules", "cassandra-driver")
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
	Run(t, host, port, "test/drivers/node", "node", args...)
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

// Java runs test/drivers/java (JUnit 5 through Maven Surefire) with the
// Apache Cassandra Java driver 4.x from Maven Central, built in the
// suite's target/ directory.
func Java(t *testing.T, host string, port int) { JavaIn(t, host, port, "") }

// JavaIn is Java with Maven building in buildDir (target/ when empty), so
// that two packages can run the suite at once: go test runs packages in
// parallel, and two Maven runs in one target/ directory overwrite each
// other's classes and reports.
func JavaIn(t *testing.T, host string, port int, buildDir string) {
	if _, err := exec.LookPath("mvn"); err != nil {
		t.Fatal("mvn is not installed: the Java suite needs Java 17 and Maven")
	}
	args := []string{"-B", "-ntp", "-f", "test/drivers/java/pom.xml", "test"}
	if buildDir != "" {
		args = append(args, "-Dpartita.buildDirectory="+buildDir)
	}
	Run(t, host, port, "test/drivers/java", "mvn", args...)
}
