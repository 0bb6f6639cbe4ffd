package e2e_test

import (
	"testing"

	"github.com/partita-db/partita/test/internal/suites"
	"github.com/partita-db/partita/test/internal/testserver"
)

// repoRoot is the module root.
func repoRoot(t *testing.T) string { return suites.Root(t) }

// readSuite reads a suite's files so that go test's cache sees them.
func readSuite(t *testing.T, dir string) { suites.ReadDir(t, dir) }

func lastLines(s string, n int) string { return suites.LastLines(s, n) }

// suiteTimeout bounds one driver suite.
const suiteTimeout = suites.Timeout

// TestPythonDriver runs test/drivers/python with Debian's python3-cassandra
// against a fresh in-process node.
func TestPythonDriver(t *testing.T) {
	srv := testserver.New(t)
	suites.Python(t, srv.Host, srv.Port)
}

// TestNodeDriver runs test/drivers/node with the npm cassandra-driver
// pinned in its package-lock.json.
func TestNodeDriver(t *testing.T) {
	srv := testserver.New(t)
	suites.Node(t, srv.Host, srv.Port)
}

// TestJavaDriver runs test/drivers/java (JUnit 5 through Maven Surefire)
// with the Apache Cassandra Java driver 4.x from Maven Central.
func TestJavaDriver(t *testing.T) {
	srv := testserver.New(t)
	suites.Java(t, srv.Host, srv.Port)
}
