package e2e_test

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/test/internal/partitaproc"
	"github.com/partita-db/partita/test/internal/testserver"
)

// node is the in-process node that the gocql scenarios share.
var node *testserver.Server

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
	defer closeShared()
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
	c := newCluster(node.Host, node.Port)
	c.Keyspace = ks
	s, err := c.CreateSession()
	if err != nil {
		t.Fatalf("connect to %s (keyspace %q): %v", node.Addr, ks, err)
	}
	t.Cleanup(s.Close)
	return s
}

// newKeyspace creates a fresh keyspace named after the test and returns a
// session using it (USE through the cluster's Keyspace setting: gocql
// refuses USE statements).
func newKeyspace(t *testing.T, name string) *gocql.Session {
	t.Helper()
	admin := connect(t, "")
	mustExec(t, admin, "DROP KEYSPACE IF EXISTS "+name)
	mustExec(t, admin, "CREATE KEYSPACE "+name+
		" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	return connect(t, name)
}

// shared holds the sessions of keyspaces that several tests use; they are
// closed when TestMain ends.
var shared struct {
	sync.Mutex
	sessions map[string]*gocql.Session
}

// sharedKeyspace returns a session in keyspace name. The first call creates
// the keyspace afresh and runs setup in it; later calls reuse both.
func sharedKeyspace(t *testing.T, name string, setup ...string) *gocql.Session {
	t.Helper()
	shared.Lock()
	defer shared.Unlock()
	if s := shared.sessions[name]; s != nil {
		return s
	}
	admin := connect(t, "")
	mustExec(t, admin, "DROP KEYSPACE IF EXISTS "+name)
	mustExec(t, admin, "CREATE KEYSPACE "+name+
		" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	c := newCluster(node.Host, node.Port)
	c.Keyspace = name
	s, err := c.CreateSession()
	if err != nil {
		t.Fatalf("connect to %s (keyspace %q): %v", node.Addr, name, err)
	}
	for _, stmt := range setup {
		if err := s.Query(stmt).Exec(); err != nil {
			s.Close()
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if shared.sessions == nil {
		shared.sessions = map[string]*gocql.Session{}
	}
	shared.sessions[name] = s
	return s
}

func closeShared() {
	shared.Lock()
	defer shared.Unlock()
	for _, s := range shared.sessions {
		s.Close()
	}
}

// mustExec runs statements that must succeed.
func mustExec(t *testing.T, s *gocql.Session, stmt string, args ...any) {
	t.Helper()
	if err := s.Query(stmt, args...).Exec(); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
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
