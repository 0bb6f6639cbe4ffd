package clusterstore_test

import (
	"net"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/test/internal/cqltest"
	"github.com/partita-db/partita/test/internal/seeds"
)

// TestSeedsThroughGateway runs the seed documents' scenarios
// (test/internal/seeds, which test/e2e runs against its in-process node)
// through one gateway process, `partita serve --backend cassandra`, over
// the node under test, with the default leases: every statement goes
// through the CQL server of the built binary and is answered from the
// cluster. One gateway serves all the scenarios, each in its keyspaces.
func TestSeedsThroughGateway(t *testing.T) {
	cfg := clusterConfig(t)
	ks := newKeyspace("seeds")
	t.Cleanup(func() { dropKeyspace(t, cfg, ks) }) // after the gateway is killed: cleanups run last first
	g := startGatewayProc(t, "seeds", ks, contactPoint(cfg), 0, 0)
	// gocql's defaults but for its timeouts, longer than the gateway's
	// (gatewayProcConfig): a statement's answer, not its speed, is checked.
	target := cqltest.NewTarget(net.JoinHostPort(g.Host, strconv.Itoa(g.Port)), func() *gocql.ClusterConfig {
		c := gocql.NewCluster(g.Host)
		c.Port = g.Port
		c.Timeout = 60 * time.Second
		c.ConnectTimeout = 20 * time.Second
		return c
	})
	defer target.Close()
	for _, sc := range seeds.All {
		t.Run(sc.Name, func(t *testing.T) { sc.Run(t, target) })
	}
	if t.Failed() {
		t.Logf("gateway log:\n%s", g.Logs)
		return
	}
	// The rows are in the cluster: every table the scenarios wrote has its
	// backing table t<id> in the gateway's keyspace.
	node, err := cfg.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	var backing []string
	it := node.Query(`SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?`, ks).Iter()
	for name := ""; it.Scan(&name); {
		if backingTable.MatchString(name) {
			backing = append(backing, name)
		}
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if len(backing) < seedTables {
		t.Fatalf("%d backing tables in keyspace %s (%v), want one for each of the scenarios' %d tables", len(backing), ks, backing, seedTables)
	}
}

// seedTables is how many tables the scenarios create and write: seed
// 000's six, seed 001's two, seed 003's three and seed 004's seven.
const seedTables = 6 + 2 + 3 + 7

// backingTable matches the name of a logical table's home table in the
// gateway's keyspace (docs/design/gateway.md).
var backingTable = regexp.MustCompile(`^t[0-9]+$`)
