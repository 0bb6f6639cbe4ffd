package e2e_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gocql/gocql"
)

func TestConnect(t *testing.T) {
	s := connect(t, "")
	var cluster, release, dc string
	if err := s.Query("SELECT cluster_name, release_version, data_center FROM system.local").
		Scan(&cluster, &release, &dc); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(release, "4.") || dc != "datacenter1" || cluster == "" {
		t.Fatalf("system.local: cluster %q, release %q, data center %q", cluster, release, dc)
	}
	if s.Closed() {
		t.Fatal("session closed right after connecting")
	}
}

func TestCreateAndDropKeyspace(t *testing.T) {
	s := connect(t, "")
	mustExec(t, s, "CREATE KEYSPACE go_created WITH replication = "+
		"{'class': 'NetworkTopologyStrategy', 'datacenter1': 1} AND durable_writes = true")
	var names []string
	iter := s.Query("SELECT keyspace_name FROM system_schema.keyspaces").Iter()
	var name string
	for iter.Scan(&name) {
		names = append(names, name)
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(names, "go_created") {
		t.Fatalf("system_schema.keyspaces lacks go_created: %v", names)
	}
	ks, err := s.KeyspaceMetadata("go_created")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(ks.StrategyClass, "NetworkTopologyStrategy") || !ks.DurableWrites {
		t.Fatalf("keyspace metadata: %+v", ks)
	}
	mustExec(t, s, "DROP KEYSPACE go_created")
	if !waitFor(waitSchema, func() bool {
		_, err = s.KeyspaceMetadata("go_created")
		return errors.Is(err, gocql.ErrKeyspaceDoesNotExist)
	}) {
		t.Fatalf("dropped keyspace still described: %v", err)
	}
}

// Seed 004 §7 writes 'dc1': 3. A single Cassandra 4.x node lives in
// datacenter1 and rejects unknown data centers with a configuration error
// (NetworkTopologyStrategy.validateOptions, CASSANDRA-12681).
func TestSeedKeyspaceWithUnknownDataCenter(t *testing.T) {
	s := connect(t, "")
	mustExec(t, s, "DROP KEYSPACE IF EXISTS app")
	err := s.Query(`CREATE KEYSPACE IF NOT EXISTS app
WITH replication = {
    'class': 'NetworkTopologyStrategy',
    'dc1': 3
};`).Exec()
	expectCode(t, err, gocql.ErrCodeConfig)
	mustExec(t, s, "SELECT release_version FROM system.local")
}

func TestUseKeyspace(t *testing.T) {
	s := newKeyspace(t, "go_use")
	mustExec(t, s, "CREATE TABLE probe (k int PRIMARY KEY, v text)")
	mustExec(t, s, "INSERT INTO probe (k, v) VALUES (1, 'one')")
	// gocql sends USE "go_use" on every connection of a session whose
	// cluster names a keyspace, and refuses USE as a query.
	var v string
	if err := connect(t, "go_use").Query("SELECT v FROM probe WHERE k = 1").Scan(&v); err != nil || v != "one" {
		t.Fatalf("unqualified read after USE: %q, %v", v, err)
	}
	if err := s.Query("USE go_use").Exec(); !errors.Is(err, gocql.ErrUseStmt) {
		t.Fatalf("USE as a query: %v, want gocql's ErrUseStmt", err)
	}
	if err := connect(t, "").Query("SELECT v FROM go_use.probe WHERE k = 1").Scan(&v); err != nil || v != "one" {
		t.Fatalf("qualified read without a keyspace: %q, %v", v, err)
	}
}
