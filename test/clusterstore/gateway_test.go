package clusterstore_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/clusterstore"
	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/server"
)

// gateway is a Partita node serving CQL over the cluster store.
type gateway struct {
	store  *clusterstore.Store
	eng    *engine.Engine
	cql    *server.Server
	addr   *net.TCPAddr
	served chan error
}

// gatewayTimeouts are the request timeouts of the gateways these tests
// start: 30 s each. The tests check what the gateway answers, not when (the
// timeouts have their own tests in test/e2e), and a gateway over one
// Cassandra node sharing two cores with the rest of the suite can take
// seconds for a write that waits for a partition's lease; a timed-out
// write has an unknown outcome that exact checks cannot allow.
func gatewayTimeouts() engine.Timeouts {
	return engine.Timeouts{Read: 30 * time.Second, Range: 30 * time.Second, Write: 30 * time.Second,
		CounterWrite: 30 * time.Second, CASContention: 30 * time.Second, Truncate: time.Minute}
}

func startGateway(t *testing.T, cfg *gocql.ClusterConfig, keyspace string) *gateway {
	t.Helper()
	st, err := clusterstore.Open(context.Background(), clusterstore.Options{Cluster: cfg, Keyspace: keyspace, Consistency: gocql.One})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &gateway{store: st, addr: ln.Addr().(*net.TCPAddr), served: make(chan error, 1)}
	ecfg := engine.DefaultConfig()
	ecfg.Timeouts = gatewayTimeouts()
	ecfg.RPCAddress, ecfg.ListenAddress, ecfg.NativePort = g.addr.IP, g.addr.IP, g.addr.Port
	ecfg.Auth.Logger = slog.New(slog.DiscardHandler)
	if g.eng, err = engine.Open(context.Background(), st, ecfg); err != nil {
		t.Fatal(err)
	}
	g.cql = server.New(server.DefaultConfig(), g.eng, slog.New(slog.DiscardHandler))
	go func() { g.served <- g.cql.Serve(ln) }()
	return g
}

func (g *gateway) stop(t *testing.T) {
	if err := g.cql.Shutdown(context.Background()); err != nil {
		t.Error(err)
	}
	<-g.served
	_ = g.eng.Close()
	_ = g.store.Close()
}

func (g *gateway) session(t *testing.T) *gocql.Session {
	c := gocql.NewCluster(g.addr.IP.String())
	c.Port = g.addr.Port
	c.DisableInitialHostLookup = true
	s, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestGatewayOverTheWire: a driver talks to a gateway (prepared
// statements, batches, paging, a conditional update), the gateway
// restarts with no state of its own, and everything is still there.
func TestGatewayOverTheWire(t *testing.T) {
	cfg := clusterConfig(t)
	ks := newKeyspace("csg")
	t.Cleanup(func() { dropKeyspace(t, cfg, ks) })
	g := startGateway(t, cfg, ks)
	s := g.session(t)
	for _, q := range []string{
		`CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
		`CREATE TABLE app.events (user text, at int, body text, tags set<text>, PRIMARY KEY (user, at)) WITH CLUSTERING ORDER BY (at DESC)`,
	} {
		if err := s.Query(q).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 120; i++ {
		if err := s.Query(`INSERT INTO app.events (user, at, body, tags) VALUES (?, ?, ?, ?)`,
			fmt.Sprintf("u%d", i%3), i, fmt.Sprintf("e%d", i), []string{"a", fmt.Sprint(i % 5)}).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	b := s.NewBatch(gocql.LoggedBatch)
	b.Query(`DELETE FROM app.events WHERE user = 'u0' AND at < 30`)
	b.Query(`UPDATE app.events SET tags = tags - {'a'} WHERE user = 'u1' AND at = 1`)
	if err := s.ExecuteBatch(b); err != nil {
		t.Fatal(err)
	}
	applied, err := s.Query(`UPDATE app.events SET body = 'edited' WHERE user = 'u2' AND at = 119 IF body = 'e119'`).ScanCAS()
	if err != nil || !applied {
		t.Fatalf("conditional update: applied=%v err=%v", applied, err)
	}
	check := func(s *gocql.Session) {
		t.Helper()
		var n int
		it := s.Query(`SELECT user, at FROM app.events`).PageSize(7).Iter()
		var user string
		var at int
		for it.Scan(&user, &at) {
			n++
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		if n != 110 { // 120 rows, 10 of u0 deleted
			t.Errorf("full scan returned %d rows, want 110", n)
		}
		var body string
		if err := s.Query(`SELECT body FROM app.events WHERE user = 'u2' LIMIT 1`).Scan(&body); err != nil || body != "edited" {
			t.Errorf("newest row of u2: %q, %v", body, err)
		}
		var tags []string
		if err := s.Query(`SELECT tags FROM app.events WHERE user = 'u1' AND at = 1`).Scan(&tags); err != nil || fmt.Sprint(tags) != "[1]" {
			t.Errorf("tags after removing an element: %v, %v", tags, err)
		}
	}
	check(s)
	s.Close()
	g.stop(t)

	g = startGateway(t, cfg, ks)
	defer g.stop(t)
	s = g.session(t)
	defer s.Close()
	check(s)
}
