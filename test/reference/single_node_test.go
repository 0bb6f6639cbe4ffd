package reference_test

import (
	"fmt"
	"testing"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/test/internal/cassandra"
)

// TestCassandraSingleNode is the smoke test of the reference node: the
// node this binary shares answers as Cassandra 5.0.6, stores rows and
// returns a partition's rows in clustering order.
func TestCassandraSingleNode(t *testing.T) {
	n := cassandra.Shared(t)
	if n.ReleaseVersion != "5.0.6" {
		t.Errorf("release_version = %q, want 5.0.6", n.ReleaseVersion)
	}
	if again := cassandra.Shared(t); again != n {
		t.Errorf("Shared started a second node (%s, then %s)", n.Addr(), again.Addr())
	}

	cfg := n.NewCluster()
	s, err := cfg.CreateSession()
	if err != nil {
		t.Fatalf("connect to %s: %v", n.Addr(), err)
	}
	defer s.Close()
	for _, stmt := range []string{
		"DROP KEYSPACE IF EXISTS ref_single",
		"CREATE KEYSPACE ref_single WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ref_single.events (k text, c int, v text, PRIMARY KEY (k, c))",
	} {
		if err := s.Query(stmt).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	// Inserted out of clustering order, and a second partition that the
	// read must not return.
	for _, row := range []struct {
		k string
		c int
	}{{"a", 3}, {"a", 1}, {"b", 1}, {"a", 2}} {
		if err := s.Query("INSERT INTO ref_single.events (k, c, v) VALUES (?, ?, ?)",
			row.k, row.c, fmt.Sprintf("%s%d", row.k, row.c)).Consistency(gocql.One).Exec(); err != nil {
			t.Fatalf("insert %v: %v", row, err)
		}
	}
	iter := s.Query("SELECT c, v FROM ref_single.events WHERE k = ?", "a").Iter()
	var got []string
	var c int
	var v string
	for iter.Scan(&c, &v) {
		got = append(got, fmt.Sprintf("%d=%s", c, v))
	}
	if err := iter.Close(); err != nil {
		t.Fatalf("select: %v", err)
	}
	if want := "[1=a1 2=a2 3=a3]"; fmt.Sprint(got) != want {
		t.Errorf("rows of partition a = %v, want %s", got, want)
	}
}
