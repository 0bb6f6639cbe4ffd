package reference_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/test/internal/cassandra"
	"github.com/partita-db/partita/test/internal/partitaproc"
)

// TestCassandraCluster starts three nodes on 127.0.0.1-3 and runs the
// tests that need a cluster on them, one after another: starting the
// cluster is the cost (a minute or more on a loaded machine), so one serves
// them all. The gateway's node-crash test goes last, as it leaves the
// cluster with a node that was killed and restarted. The test sits in a
// file that sorts before single_node_test.go so that, in a plain `go
// test`, the cluster has stopped before the shared node starts: three JVMs
// at a time, not four.
func TestCassandraCluster(t *testing.T) {
	cassandra.Require(t)
	// The gateway test runs the partita binary: built while the nodes
	// start.
	go partitaproc.Build()
	c := cassandra.StartCluster(t, 3)
	var times []string
	for _, n := range c.Nodes {
		times = append(times, fmt.Sprintf("%s %.1fs", n.Address, n.StartupTime.Seconds()))
	}
	summary := "cassandra: cluster start times (each node after the previous answered): " + strings.Join(times, ", ")
	t.Log(summary)
	fmt.Println(summary)

	t.Run("QuorumThroughEachNode", func(t *testing.T) { testQuorumThroughEachNode(t, c) })
	t.Run("GatewaySurvivesNodeCrash", func(t *testing.T) { testGatewaySurvivesNodeCrash(t, c) })
}

// testQuorumThroughEachNode replicates a keyspace to all three nodes
// (replication_factor 3), writes one row at QUORUM through each node and
// reads every row back at QUORUM through each node.
func testQuorumThroughEachNode(t *testing.T, c *cassandra.Cluster) {
	for _, n := range c.Nodes {
		peers, err := n.Peers()
		if err != nil {
			t.Fatalf("system.peers on %s: %v", n.Address, err)
		}
		var want []string
		for _, other := range c.Hosts() {
			if other != n.Address {
				want = append(want, other)
			}
		}
		sort.Strings(want)
		if fmt.Sprint(peers) != fmt.Sprint(want) {
			t.Errorf("system.peers on %s = %v, want %v", n.Address, peers, want)
		}
	}

	// Schema through a session that knows every node: gocql waits for all
	// of them to agree on the schema version after each change.
	whole := gocql.NewCluster(c.Hosts()...)
	whole.Port = c.NativePort
	admin, err := whole.CreateSession()
	if err != nil {
		t.Fatalf("connect to the cluster: %v", err)
	}
	defer admin.Close()
	for _, stmt := range []string{
		"CREATE KEYSPACE ref_cluster WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}",
		"CREATE TABLE ref_cluster.kv (k int PRIMARY KEY, v text)",
	} {
		if err := admin.Query(stmt).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}

	sessions := make([]*gocql.Session, len(c.Nodes))
	for i, n := range c.Nodes {
		cfg := n.NewCluster()
		cfg.Keyspace = "ref_cluster"
		cfg.Consistency = gocql.Quorum
		if sessions[i], err = cfg.CreateSession(); err != nil {
			t.Fatalf("connect to %s: %v", n.Address, err)
		}
		defer sessions[i].Close()
	}
	for i, s := range sessions {
		if err := s.Query("INSERT INTO kv (k, v) VALUES (?, ?)", i, "written through "+c.Nodes[i].Address).Exec(); err != nil {
			t.Fatalf("QUORUM write through %s: %v", c.Nodes[i].Address, err)
		}
	}
	for i, s := range sessions {
		for k := range c.Nodes {
			var v string
			if err := s.Query("SELECT v FROM kv WHERE k = ?", k).Scan(&v); err != nil {
				t.Errorf("QUORUM read of k=%d through %s: %v", k, c.Nodes[i].Address, err)
				continue
			}
			if want := "written through " + c.Nodes[k].Address; v != want {
				t.Errorf("QUORUM read of k=%d through %s = %q, want %q", k, c.Nodes[i].Address, v, want)
			}
		}
	}
}
