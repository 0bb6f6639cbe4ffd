// Package clusterstore_test runs internal/clusterstore against a real
// Cassandra 5.0 node: the store's own semantics (apply, read, scan, move,
// metadata) and the engine's datadriven sessions over it.
package clusterstore_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/clusterstore"
	"github.com/partita-db/partita/test/internal/cassandra"
	"github.com/partita-db/partita/test/internal/partitaproc"
)

func TestMain(m *testing.M) {
	code := cassandra.Main(m)
	partitaproc.RemoveBinary() // the gateway processes' binary (process_faults_test.go)
	os.Exit(code)
}

// clusterConfig is gocql's configuration for the node under test:
// PARTITA_REFERENCE_ADDR, or the binary's shared node.
func clusterConfig(t testing.TB) *gocql.ClusterConfig {
	t.Helper()
	if addr := os.Getenv("PARTITA_REFERENCE_ADDR"); addr != "" {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatal(err)
		}
		c := gocql.NewCluster(host)
		c.Port, _ = strconv.Atoi(port)
		c.DisableInitialHostLookup = true
		return c
	}
	return cassandra.Shared(t).NewCluster()
}

var keyspaceSeq atomic.Int64

// newKeyspace names a keyspace no other test of this run uses.
func newKeyspace(prefix string) string {
	return fmt.Sprintf("%s_%d_%d", prefix, time.Now().Unix()%100000, keyspaceSeq.Add(1))
}

// openStore opens a store in a keyspace of its own, closed and dropped
// when the test ends.
func openStore(t testing.TB) *clusterstore.Store {
	t.Helper()
	ks := newKeyspace("cs")
	cfg := clusterConfig(t)
	st, err := clusterstore.Open(context.Background(), clusterstore.Options{Cluster: cfg, Keyspace: ks, Consistency: gocql.One})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = st.Close()
		dropKeyspace(t, cfg, ks)
	})
	return st
}

func dropKeyspace(t testing.TB, cfg *gocql.ClusterConfig, ks string) {
	c := *cfg
	s, err := c.CreateSession()
	if err != nil {
		t.Logf("drop keyspace %s: %v", ks, err)
		return
	}
	defer s.Close()
	if err := s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec(); err != nil {
		t.Logf("drop keyspace %s: %v", ks, err)
	}
}
