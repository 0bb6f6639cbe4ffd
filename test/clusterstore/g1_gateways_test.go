package clusterstore_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/clusterstore"
	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/server"
)

// Several gateways over one cluster keyspace (docs/design/gateway.md,
// "Read-modify-writes over several gateways"): clients spread over them,
// read-modify-writes of one partition must serialise as on one node.

// g1StartGateway starts a gateway with the store options given (the
// cluster and keyspace are filled in) and the engine's request timeouts.
func g1StartGateway(t *testing.T, cfg *gocql.ClusterConfig, keyspace string, opts clusterstore.Options, timeouts engine.Timeouts) *gateway {
	t.Helper()
	opts.Cluster, opts.Keyspace = cfg, keyspace
	if opts.Consistency == 0 {
		opts.Consistency = gocql.One
	}
	st, err := clusterstore.Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &gateway{store: st, addr: ln.Addr().(*net.TCPAddr), served: make(chan error, 1)}
	ecfg := engine.DefaultConfig()
	ecfg.RPCAddress, ecfg.ListenAddress, ecfg.NativePort = g.addr.IP, g.addr.IP, g.addr.Port
	ecfg.Auth.Logger = slog.New(slog.DiscardHandler)
	ecfg.Timeouts = timeouts
	if g.eng, err = engine.Open(context.Background(), st, ecfg); err != nil {
		t.Fatal(err)
	}
	g.cql = server.New(server.DefaultConfig(), g.eng, slog.New(slog.DiscardHandler))
	go func() { g.served <- g.cql.Serve(ln) }()
	return g
}

// g1Session is a driver session on g only, with a timeout long
// enough for a statement that waits for a lease.
func g1Session(t *testing.T, g *gateway) *gocql.Session {
	t.Helper()
	c := gocql.NewCluster(g.addr.IP.String())
	c.Port = g.addr.Port
	c.DisableInitialHostLookup = true
	c.Timeout = 20 * time.Second
	c.NumConns = 1
	s, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// g1StartGateways creates the schema through a first gateway, then starts
// the others (a gateway loads the catalog when it opens).
func g1StartGateways(t *testing.T, n int, schema []string, opts clusterstore.Options, timeouts engine.Timeouts) ([]*gateway, []*gocql.Session) {
	t.Helper()
	cfg := clusterConfig(t)
	ks := newKeyspace("g1_gw")
	t.Cleanup(func() { dropKeyspace(t, cfg, ks) })
	gws := []*gateway{g1StartGateway(t, cfg, ks, opts, timeouts)}
	t.Cleanup(func() {
		for _, g := range gws {
			g.stop(t)
		}
	})
	s0 := g1Session(t, gws[0])
	for _, q := range schema {
		if err := s0.Query(q).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	sessions := []*gocql.Session{s0}
	for i := 1; i < n; i++ {
		g := g1StartGateway(t, cfg, ks, opts, timeouts)
		gws = append(gws, g)
		sessions = append(sessions, g1Session(t, g))
	}
	return gws, sessions
}

// TestGatewaysCounterIncrements: 8 workers spread over three gateways
// add 1 to one counter 200 times each; the total is exact.
func TestGatewaysCounterIncrements(t *testing.T) {
	_, sessions := g1StartGateways(t, 3, []string{
		`CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
		`CREATE TABLE app.hits (k text PRIMARY KEY, n counter)`,
	}, clusterstore.Options{}, generousCounterTimeout())
	const workers, each = 8, 200
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	start := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(s *gocql.Session) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if err := s.Query(`UPDATE app.hits SET n = n + 1 WHERE k = 'x'`).Exec(); err != nil {
					errs <- err
					return
				}
			}
		}(sessions[w%len(sessions)])
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("increment: %v", err)
	}
	elapsed := time.Since(start)
	t.Logf("%d increments over %d gateways in %v (%.0f/s)", workers*each, len(sessions), elapsed, float64(workers*each)/elapsed.Seconds())
	for i, s := range sessions {
		var n int64
		if err := s.Query(`SELECT n FROM app.hits WHERE k = 'x'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != workers*each {
			t.Errorf("gateway %d reads %d, want %d", i, n, workers*each)
		}
	}
}

// generousCounterTimeout is the default timeouts with a counter write
// allowed 30 s: an increment that timed out has an unknown outcome, and
// the counter test checks an exact total.
func generousCounterTimeout() engine.Timeouts {
	t := engine.DefaultTimeouts()
	t.CounterWrite = 30 * time.Second
	return t
}

// TestGatewaysConditionalIncrements: workers over three gateways read v
// and set it to v+1 IF v = what they read; no applied update is lost.
func TestGatewaysConditionalIncrements(t *testing.T) {
	_, sessions := g1StartGateways(t, 3, []string{
		`CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
		`CREATE TABLE app.reg (k text PRIMARY KEY, v int)`,
		`INSERT INTO app.reg (k, v) VALUES ('r', 0)`,
	}, clusterstore.Options{}, engine.DefaultTimeouts())
	const workers, attempts = 6, 60
	var applied, timeouts atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(s *gocql.Session) {
			defer wg.Done()
			for i := 0; i < attempts; i++ {
				var v int
				if err := s.Query(`SELECT v FROM app.reg WHERE k = 'r'`).Scan(&v); err != nil {
					errs <- err
					return
				}
				ok, err := s.Query(`UPDATE app.reg SET v = ? WHERE k = 'r' IF v = ?`, v+1, v).ScanCAS(new(int))
				var wt *gocql.RequestErrWriteTimeout
				if errors.As(err, &wt) {
					// Waiting for the partition past cas_contention_timeout:
					// nothing was written under the lock.
					timeouts.Add(1)
					continue
				}
				if err != nil {
					errs <- err
					return
				}
				if ok {
					applied.Add(1)
				}
			}
		}(sessions[w%len(sessions)])
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("conditional update: %v", err)
	}
	var v int
	if err := sessions[1].Query(`SELECT v FROM app.reg WHERE k = 'r'`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d of %d conditional updates applied, %d timed out waiting", applied.Load(), workers*attempts, timeouts.Load())
	if int64(v) != applied.Load() || v == 0 {
		t.Errorf("v = %d after %d applied updates", v, applied.Load())
	}
}

// TestGatewaysListRace: appends over three gateways all land, and
// removals by value (a read-modify-write) racing over them remove exactly
// what they name.
func TestGatewaysListRace(t *testing.T) {
	_, sessions := g1StartGateways(t, 3, []string{
		`CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
		`CREATE TABLE app.lists (k text PRIMARY KEY, l list<int>)`,
	}, clusterstore.Options{}, gatewayTimeouts())
	const workers, each = 6, 40
	run := func(q func(w, i int) (string, []any)) {
		t.Helper()
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(w int, s *gocql.Session) {
				defer wg.Done()
				for i := 0; i < each; i++ {
					stmt, args := q(w, i)
					if err := s.Query(stmt, args...).Exec(); err != nil {
						errs <- err
						return
					}
				}
			}(w, sessions[w%len(sessions)])
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
	run(func(w, i int) (string, []any) {
		return `UPDATE app.lists SET l = l + ? WHERE k = 'a'`, []any{[]int{w*1000 + i}}
	})
	// Every worker removes its odd elements, by value.
	run(func(w, i int) (string, []any) {
		if i%2 == 0 {
			return `UPDATE app.lists SET l = l - ? WHERE k = 'a'`, []any{[]int{-1}}
		}
		return `UPDATE app.lists SET l = l - ? WHERE k = 'a'`, []any{[]int{w*1000 + i}}
	})
	var l []int
	if err := sessions[2].Query(`SELECT l FROM app.lists WHERE k = 'a'`).Scan(&l); err != nil {
		t.Fatal(err)
	}
	var want []int
	for w := 0; w < workers; w++ {
		for i := 0; i < each; i += 2 {
			want = append(want, w*1000+i)
		}
	}
	got := append([]int(nil), l...)
	sort.Ints(got)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("list holds %d elements %v, want %d %v", len(got), got, len(want), want)
	}
}

// TestGatewayStolenLeaseCannotLand: gateway A reads under its lease and
// stalls before writing, with its renewals paused, until its lease has
// expired and gateway B has taken it and written. A's write then loses to
// B's, and A's client is told that the outcome is unknown (a CAS write
// timeout), never that it applied.
func TestGatewayStolenLeaseCannotLand(t *testing.T) {
	opts := clusterstore.Options{LeaseDuration: time.Second, LeaseSkew: 100 * time.Millisecond}
	gws, sessions := g1StartGateways(t, 2, []string{
		`CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
		`CREATE TABLE app.reg (k text PRIMARY KEY, v int, note text)`,
		`INSERT INTO app.reg (k, v) VALUES ('r', 0)`,
	}, opts, engine.Timeouts{})
	stalled, resume := make(chan struct{}), make(chan struct{})
	var once sync.Once
	gws[0].store.PauseLeaseRenewals(true, func() {
		once.Do(func() {
			close(stalled)
			<-resume
		})
	})
	aDone := make(chan error, 1)
	var aApplied bool
	go func() {
		var err error
		aApplied, err = sessions[0].Query(`UPDATE app.reg SET v = 100, note = 'stale' WHERE k = 'r' IF v = 0`).ScanCAS(new(int))
		aDone <- err
	}()
	select {
	case <-stalled:
	case err := <-aDone:
		t.Fatalf("gateway A's update did not stall: applied=%v err=%v", aApplied, err)
	}
	start := time.Now()
	bApplied, err := sessions[1].Query(`UPDATE app.reg SET v = 1 WHERE k = 'r' IF v = 0`).ScanCAS(new(int))
	if err != nil || !bApplied {
		t.Fatalf("gateway B's update: applied=%v err=%v", bApplied, err)
	}
	if waited := time.Since(start); waited < 500*time.Millisecond {
		t.Errorf("gateway B took the lease after %v, before A's could expire", waited)
	}
	close(resume)
	err = <-aDone
	var wt *gocql.RequestErrWriteTimeout
	if !errors.As(err, &wt) || wt.WriteType != "CAS" {
		t.Fatalf("gateway A's stale update: applied=%v err=%v, want a CAS write timeout", aApplied, err)
	}
	for i, s := range sessions {
		var v int
		if err := s.Query(`SELECT v FROM app.reg WHERE k = 'r'`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		if v != 1 {
			t.Errorf("gateway %d reads v = %d, want B's 1 (A's stale write landed)", i, v)
		}
	}
	// A's write did reach the cluster: the cell B did not overwrite shows
	// (docs/design/gateway.md: what a stale write can leave).
	var note string
	if err := sessions[1].Query(`SELECT note FROM app.reg WHERE k = 'r'`).Scan(&note); err != nil {
		t.Fatal(err)
	}
	t.Logf("note after the stale write: %q", note)
}

// TestGatewaysListEachOtherInPeers: a driver on gateway A sees gateway B
// in system.peers and system.peers_v2 (and not A itself).
func TestGatewaysListEachOtherInPeers(t *testing.T) {
	gws, sessions := g1StartGateways(t, 2, nil, clusterstore.Options{}, engine.DefaultTimeouts())
	var bHost gocql.UUID
	if err := sessions[1].Query(`SELECT host_id FROM system.local`).Scan(&bHost); err != nil {
		t.Fatal(err)
	}
	var aHost gocql.UUID
	if err := sessions[0].Query(`SELECT host_id FROM system.local`).Scan(&aHost); err != nil {
		t.Fatal(err)
	}
	if aHost == bHost {
		t.Fatalf("both gateways report host id %v", aHost)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		var peer, rpc net.IP
		var host gocql.UUID
		var port int
		var tokens []string
		it := sessions[0].Query(`SELECT peer, rpc_address, host_id, tokens FROM system.peers`).Iter()
		found, others := false, 0
		for it.Scan(&peer, &rpc, &host, &tokens) {
			if host == bHost && rpc.Equal(gws[1].addr.IP) && len(tokens) > 0 {
				found = true
			} else {
				others++
			}
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		if found && others == 0 {
			if err := sessions[0].Query(`SELECT native_port, host_id FROM system.peers_v2`).Scan(&port, &host); err != nil {
				t.Fatal(err)
			}
			if port != gws[1].addr.Port || host != bHost {
				t.Errorf("system.peers_v2 lists %v:%d, want %v:%d", host, port, bHost, gws[1].addr.Port)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("system.peers on gateway A: B found=%v, %d other rows", found, others)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestGatewayReadModifyWriteCost measures counter increments and
// conditional inserts through one gateway with cluster-wide leases (the
// default) and with SingleGateway (none), on one hot partition and on a
// fresh partition per statement (a lease taken per statement), and
// checks every total. The rates are logged (docs/design/gateway.md). A
// write timeout (the cluster overloaded, or a lease not had within
// cas_contention_timeout) is counted, not a failure: its outcome is
// unknown, so the totals are checked within the timeouts.
func TestGatewayReadModifyWriteCost(t *testing.T) {
	const workers, each = 4, 100
	for _, mode := range []struct {
		name string
		opts clusterstore.Options
	}{{"leases", clusterstore.Options{}}, {"single-gateway", clusterstore.Options{SingleGateway: true}}} {
		t.Run(mode.name, func(t *testing.T) {
			_, sessions := g1StartGateways(t, 1, []string{
				`CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
				`CREATE TABLE app.hits (k text PRIMARY KEY, n counter)`,
				`CREATE TABLE app.names (k text PRIMARY KEY, v int)`,
			}, mode.opts, engine.DefaultTimeouts())
			s := sessions[0]
			measure := func(what string, stmt func(w, i int) (string, []any)) (timeouts int64) {
				t.Helper()
				var unknown atomic.Int64
				var wg sync.WaitGroup
				errs := make(chan error, workers)
				start := time.Now()
				for w := 0; w < workers; w++ {
					wg.Add(1)
					go func(w int) {
						defer wg.Done()
						for i := 0; i < each; i++ {
							q, args := stmt(w, i)
							err := s.Query(q, args...).Exec()
							var wt *gocql.RequestErrWriteTimeout
							if errors.As(err, &wt) {
								unknown.Add(1)
								continue
							}
							if err != nil {
								errs <- err
								return
							}
						}
					}(w)
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Fatalf("%s: %v", what, err)
				}
				d := time.Since(start)
				t.Logf("%s: %d statements in %v, %.0f/s, %d write timeouts", what, workers*each, d.Round(time.Millisecond),
					float64(workers*each)/d.Seconds(), unknown.Load())
				return unknown.Load()
			}
			hotUnknown := measure("counter, one partition", func(w, i int) (string, []any) {
				return `UPDATE app.hits SET n = n + 1 WHERE k = 'hot'`, nil
			})
			measure("counter, a partition per statement", func(w, i int) (string, []any) {
				return `UPDATE app.hits SET n = n + 1 WHERE k = ?`, []any{fmt.Sprintf("k%d_%d", w, i)}
			})
			namesUnknown := measure("INSERT IF NOT EXISTS, a partition per statement", func(w, i int) (string, []any) {
				return `INSERT INTO app.names (k, v) VALUES (?, ?) IF NOT EXISTS`, []any{fmt.Sprintf("k%d_%d", w, i), i}
			})
			var n int64
			if err := s.Query(`SELECT n FROM app.hits WHERE k = 'hot'`).Scan(&n); err != nil || n < workers*each-hotUnknown || n > workers*each {
				t.Errorf("hot counter = %d (%v), want %d less at most %d timed out", n, err, workers*each, hotUnknown)
			}
			var rows int
			it := s.Query(`SELECT k FROM app.names`).Iter()
			for it.Scan(new(string)) {
				rows++
			}
			if err := it.Close(); err != nil || rows < workers*each-int(namesUnknown) || rows > workers*each {
				t.Errorf("%d names inserted (%v), want %d less at most %d timed out", rows, err, workers*each, namesUnknown)
			}
		})
	}
}

// TestGatewayPassesClientConsistency: the client's consistency level
// reaches the cluster. The test cluster has one replica, so TWO is
// unavailable there, for reads and writes alike, with the cluster's
// Unavailable error and counts, as it would be against Cassandra; a
// read-modify-write is raised to the quorum of its serial consistency, so
// a counter or a conditional update at ONE still runs.
func TestGatewayPassesClientConsistency(t *testing.T) {
	_, sessions := g1StartGateways(t, 1, []string{
		`CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
		`CREATE TABLE app.kv (k text PRIMARY KEY, v int)`,
		`CREATE TABLE app.hits (k text PRIMARY KEY, n counter)`,
	}, clusterstore.Options{Consistency: gocql.One, SingleGateway: true}, engine.DefaultTimeouts())
	s := sessions[0]
	unavailable := func(what string, err error) {
		t.Helper()
		var u *gocql.RequestErrUnavailable
		if !errors.As(err, &u) {
			t.Errorf("%s at TWO: %v, want Unavailable", what, err)
			return
		}
		if u.Consistency != gocql.Two || u.Required != 2 || u.Alive != 1 {
			t.Errorf("%s at TWO: Unavailable consistency %v required %d alive %d, want TWO 2 1", what, u.Consistency, u.Required, u.Alive)
		}
	}
	// The first write creates the backing tables.
	if err := s.Query(`INSERT INTO app.kv (k, v) VALUES ('a', 1)`).Consistency(gocql.One).Exec(); err != nil {
		t.Fatal(err)
	}
	unavailable("write", s.Query(`INSERT INTO app.kv (k, v) VALUES ('a', 1)`).Consistency(gocql.Two).Exec())
	unavailable("read", s.Query(`SELECT v FROM app.kv WHERE k = 'a'`).Consistency(gocql.Two).Scan(new(int)))
	var v int
	if err := s.Query(`SELECT v FROM app.kv WHERE k = 'a'`).Consistency(gocql.LocalOne).Scan(&v); err != nil || v != 1 {
		t.Errorf("read at LOCAL_ONE: %d, %v", v, err)
	}
	if err := s.Query(`UPDATE app.hits SET n = n + 1 WHERE k = 'a'`).Consistency(gocql.One).Exec(); err != nil {
		t.Errorf("counter at ONE: %v", err)
	}
	applied, err := s.Query(`UPDATE app.kv SET v = 2 WHERE k = 'a' IF v = 1`).Consistency(gocql.One).SerialConsistency(gocql.LocalSerial).ScanCAS(new(int))
	if err != nil || !applied {
		t.Errorf("conditional update at ONE / LOCAL_SERIAL: applied=%v err=%v", applied, err)
	}
	// A SERIAL read is a valid read level: the cluster runs it.
	if err := s.Query(`SELECT v FROM app.kv WHERE k = 'a'`).Consistency(gocql.Consistency(gocql.Serial)).Scan(&v); err != nil || v != 2 {
		t.Errorf("read at SERIAL: %d, %v", v, err)
	}
}
