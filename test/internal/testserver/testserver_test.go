package testserver_test

import (
	"testing"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/test/internal/testserver"
)

func session(t *testing.T, s *testserver.Server) *gocql.Session {
	t.Helper()
	c := gocql.NewCluster(s.Host)
	c.Port = s.Port
	sess, err := c.CreateSession()
	if err != nil {
		t.Fatalf("connect to %s: %v", s.Addr, err)
	}
	return sess
}

// TestRestartKeepsData starts a node, writes, stops it and starts another
// on the same directory (invariant 3), then stops twice (idempotent).
func TestRestartKeepsData(t *testing.T) {
	dir := t.TempDir()
	first, err := testserver.Start(testserver.Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	s := session(t, first)
	for _, stmt := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v text)",
		"INSERT INTO ks.t (k, v) VALUES (1, 'kept')",
	} {
		if err := s.Query(stmt).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	s.Close()
	if err := first.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := first.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}

	second, err := testserver.Start(testserver.Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Stop()
	s = session(t, second)
	defer s.Close()
	var v string
	if err := s.Query("SELECT v FROM ks.t WHERE k = 1").Scan(&v); err != nil || v != "kept" {
		t.Fatalf("after restart: %q, %v", v, err)
	}
}

// TestNew checks the testing.TB form: the node is up at once (invariant 1)
// and advertises the address it listens on (invariant 2).
func TestNew(t *testing.T) {
	srv := testserver.New(t)
	if srv.Host != "127.0.0.1" || srv.Port == 0 || srv.DataDir == "" {
		t.Fatalf("server %+v", srv)
	}
	s := session(t, srv)
	defer s.Close()
	var rpc string
	var port int
	if err := s.Query("SELECT rpc_address, rpc_port FROM system.local").Scan(&rpc, &port); err != nil {
		t.Fatal(err)
	}
	if rpc != srv.Host || port != srv.Port {
		t.Fatalf("system.local advertises %s:%d, the node listens on %s", rpc, port, srv.Addr)
	}
}
