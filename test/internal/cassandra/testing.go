package cassandra

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Require skips t when PARTITA_NO_CASSANDRA=1 is set outside CI; in CI
// (CI set and neither "false" nor "0") the variable is ignored, so a test
// that needs Cassandra runs, and fails if Cassandra cannot start.
func Require(t testing.TB) {
	t.Helper()
	if os.Getenv("PARTITA_NO_CASSANDRA") != "1" {
		return
	}
	if inCI() {
		t.Log("PARTITA_NO_CASSANDRA=1 is ignored in CI: tests that need Cassandra always run there")
		return
	}
	t.Skip("PARTITA_NO_CASSANDRA=1: skipping a test that needs Apache Cassandra (unset it to run; scripts/cassandra.sh install)")
}

func inCI() bool {
	ci := strings.ToLower(os.Getenv("CI"))
	return ci != "" && ci != "false" && ci != "0"
}

// testLogf logs to t and to standard output, so the start times show in
// `go test -v` and in a CI log that captures the test binary's output.
func testLogf(t testing.TB) func(string, ...any) {
	return func(format string, args ...any) {
		t.Logf(format, args...)
		fmt.Printf(format+"\n", args...)
	}
}

// StartNode starts a node for t (see Launch) and kills it when t ends. A
// node that cannot start fails t.
func StartNode(t testing.TB, opts Options) *Node {
	t.Helper()
	Require(t)
	if opts.Logf == nil {
		opts.Logf = testLogf(t)
	}
	n, err := Launch(opts)
	if err != nil {
		t.Fatalf("start Cassandra: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("Cassandra node %s, %s", n.Addr(), n.LogTail(20))
		}
		if err := n.Kill(); err != nil {
			t.Errorf("stop Cassandra node %s: %v", n.Addr(), err)
		}
	})
	return n
}

// StartCluster starts a cluster of size nodes for t (see LaunchCluster),
// logging each node's start time, and kills it when t ends.
func StartCluster(t testing.TB, size int) *Cluster {
	t.Helper()
	Require(t)
	c, err := LaunchCluster(size, Options{Logf: testLogf(t)})
	if err != nil {
		t.Fatalf("start a %d-node Cassandra cluster: %v", size, err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			var b strings.Builder
			c.LogTails(&b, 20)
			t.Log(b.String())
		}
		if err := c.Kill(); err != nil {
			t.Errorf("stop Cassandra cluster: %v", err)
		}
	})
	return c
}

// shared is the node of this test binary (Shared).
var shared struct {
	sync.Mutex
	node *Node
	err  error
}

// mainRunning is set while Main runs the tests.
var mainRunning atomic.Bool

// Main runs a test binary's tests and then kills the node Shared started,
// whatever the tests' outcome. Call it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(cassandra.Main(m)) }
func Main(m *testing.M) int {
	mainRunning.Store(true)
	code := m.Run()
	mainRunning.Store(false)
	shared.Lock()
	defer shared.Unlock()
	if n := shared.node; n != nil {
		if err := n.Kill(); err != nil {
			fmt.Fprintf(os.Stderr, "cassandra: stop the shared node: %v\n", err)
			if code == 0 {
				code = 1
			}
		} else {
			fmt.Printf("cassandra: shared node %s (pid %d) killed by cassandra.Main\n", n.Addr(), n.Pid())
		}
		shared.node = nil
	}
	return code
}

// SharedYaml is the cassandra.yaml options of the shared node beyond the
// script's: materialized views on (Cassandra 5.0 has them off by default),
// so the replay confirms the view cases; a datadriven file that needs the
// default refusal declares it with a config directive and is skipped.
var SharedYaml = []string{"materialized_views_enabled=true"}

// sharedXmx is the shared node's heap bound: a test binary's tests create
// hundreds of tables on it (the random sessions' shrinking), which filled
// the script's default 512 MiB.
const sharedXmx = "1g"

// Shared returns the node that every test of this binary shares, starting
// it on first use (tests must then keep to keyspaces of their own). The
// binary's TestMain must call Main, which stops the node. If the node
// cannot start, this and every later call fail their test with the same
// error rather than starting it again.
func Shared(t testing.TB) *Node {
	t.Helper()
	Require(t)
	if !mainRunning.Load() {
		t.Fatal("cassandra.Shared needs the package's TestMain to call cassandra.Main, which stops the node")
	}
	shared.Lock()
	defer shared.Unlock()
	if shared.node == nil && shared.err == nil {
		shared.node, shared.err = Launch(Options{Yaml: SharedYaml, Xmx: sharedXmx, Logf: testLogf(t)})
	}
	if shared.err != nil {
		t.Fatalf("start the shared Cassandra node: %v", shared.err)
	}
	if shared.node.Exited() {
		t.Fatalf("the shared Cassandra node %s has exited; %s", shared.node.Addr(), shared.node.LogTail(30))
	}
	return shared.node
}
