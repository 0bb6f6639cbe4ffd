package e2e_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/test/internal/cqltest"
	"github.com/partita-db/partita/test/internal/partitaproc"
	"github.com/partita-db/partita/test/internal/testserver"
)

// node is the in-process node that the gocql scenarios share, and target
// their sessions and keyspaces on it.
var (
	node   *testserver.Server
	target *cqltest.Target
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	var err error
	node, err = testserver.Start(testserver.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "start Partita:", err)
		return 1
	}
	defer node.Stop()
	target = cqltest.NewTarget(node.Addr, func() *gocql.ClusterConfig { return newCluster(node.Host, node.Port) })
	defer target.Close()
	defer partitaproc.RemoveBinary()
	return m.Run()
}

// newCluster is gocql's default configuration pointed at addr.
func newCluster(host string, port int) *gocql.ClusterConfig {
	c := gocql.NewCluster(host)
	c.Port = port
	return c
}

// connect opens a session on the shared node, in keyspace ks if not empty,
// and closes it when t ends.
func connect(t *testing.T, ks string) *gocql.Session {
	t.Helper()
	return target.Connect(t, ks)
}

// newKeyspace creates a fresh keyspace named after the test and returns a
// session using it (USE through the cluster's Keyspace setting: gocql
// refuses USE statements).
func newKeyspace(t *testing.T, name string) *gocql.Session {
	t.Helper()
	return target.NewKeyspace(t, name)
}

// sharedKeyspace returns a session in keyspace name. The first call creates
// the keyspace afresh and runs setup in it; later calls reuse both, and
// TestMain closes the session when the tests end.
func sharedKeyspace(t *testing.T, name string, setup ...string) *gocql.Session {
	t.Helper()
	return target.SharedKeyspace(t, name, setup...)
}

// mustExec runs statements that must succeed.
func mustExec(t *testing.T, s *gocql.Session, stmt string, args ...any) {
	t.Helper()
	cqltest.MustExec(t, s, stmt, args...)
}

// waitFor polls cond every 100 ms until it holds or timeout passes.
func waitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stallTimeout is how long waitProgress waits without progress before it
// gives up: far longer than any step takes on a loaded machine, so that
// only a stuck server (or clients that all stopped) reaches it.
const stallTimeout = 60 * time.Second

// waitProgress waits until count() reaches target and reports whether it
// did. It gives up only when count() has not grown for stallTimeout, so a
// slow machine makes it wait longer, never fail.
func waitProgress(target int64, count func() int64) bool {
	last, since := count(), time.Now()
	for last < target {
		time.Sleep(10 * time.Millisecond)
		if n := count(); n != last {
			last, since = n, time.Now()
		} else if time.Since(since) > stallTimeout {
			return false
		}
	}
	return true
}
