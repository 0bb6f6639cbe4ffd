package reference_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/test/internal/cassandra"
	"github.com/partita-db/partita/test/internal/partitaproc"
)

// The node-crash test of a gateway (partita serve --backend cassandra)
// over the three-node cluster, with every replica of its keyspace on every
// node (replication_factor 3):
//
//  1. clients write rows at QUORUM through the gateway, each client its own
//     driver session, into four partitions, and read acknowledged rows
//     back at QUORUM, all the time;
//  2. a node that is not the seed gets SIGKILL (kill -9);
//  3. while it is down, an operator splits the partition with the most
//     rows (POST /admin/split) and the split runs to its end with the
//     writes going on;
//  4. the surviving nodes hold hints for the dead one (those that
//     coordinated writes); it is restarted on its own directory, replays
//     its commit log, and every hint is delivered to it;
//  5. once the traffic stops, every partition is read whole through the
//     gateway, at QUORUM and then at ALL (every replica answering): every
//     acknowledged row is there with its value, no row twice, none that no
//     client wrote, in clustering order, and COUNT(*) agrees.
//
// Requests may fail only in the first crashGrace after the kill, while the
// gateway's driver and the coordinators learn that the node is gone
// (requests in flight on its connections end with them); every other
// request must succeed, and a read of an acknowledged row must find it. A
// write that failed has an unknown outcome: its row may or may not be
// there, but if it is, it has the value written.

const (
	// crashGrace is how long after the kill requests may fail.
	crashGrace = 20 * time.Second
	// minOutage is the least time the node stays down before its restart
	// begins; the restart itself (tens of seconds) adds to the outage.
	minOutage = 15 * time.Second
	// crashWriters and crashReaders are the client sessions.
	crashWriters, crashReaders = 4, 2
	// crashPace is each client's pause between requests: the point is
	// availability, not throughput, on two cores shared with the suite.
	crashPace = 50 * time.Millisecond
	// hotRows are written into the hot partition before the kill, so that
	// its split has data to move while the node is down (steps of 1000
	// rows, each of which waits Lease + Drain).
	hotRows = 1600
)

// crashPartitions are the partitions the clients write; hot is split.
var crashPartitions = []string{"hot", "p1", "p2", "p3"}

type crashKey struct {
	p      string
	w, seq int
}

// crashModel is what the clients know: the rows acknowledged, and those
// whose write failed (unknown outcome).
type crashModel struct {
	mu        sync.Mutex
	acked     map[crashKey]string
	ackedKeys []crashKey // for readers to pick from
	uncertain map[crashKey]string
}

func (m *crashModel) ack(k crashKey, v string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.acked[k] = v
	m.ackedKeys = append(m.ackedKeys, k)
}

func (m *crashModel) fail(k crashKey, v string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.uncertain[k] = v
}

func (m *crashModel) pick(r *rand.Rand) (crashKey, string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.ackedKeys) == 0 {
		return crashKey{}, "", false
	}
	k := m.ackedKeys[r.IntN(len(m.ackedKeys))]
	return k, m.acked[k], true
}

// crashOps records every request's outcome with its time.
type crashOps struct {
	mu       sync.Mutex
	ok       []time.Time
	failures []crashFailure
	lost     []string // reads that did not find an acknowledged row
}

type crashFailure struct {
	at   time.Time
	what string
	err  error
}

func (o *crashOps) record(what string, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err != nil {
		o.failures = append(o.failures, crashFailure{time.Now(), what, err})
	} else {
		o.ok = append(o.ok, time.Now())
	}
}

func (o *crashOps) lose(what string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lost = append(o.lost, what)
}

func testGatewaySurvivesNodeCrash(t *testing.T, c *cassandra.Cluster) {
	began := time.Now()
	victim, survivors := c.Nodes[2], c.Nodes[:2]
	const backing = "ref_gateway"
	admin := clusterSession(t, c)
	defer admin.Close()
	// Created before the gateway starts, so that its CREATE KEYSPACE IF NOT
	// EXISTS keeps three replicas (a gateway's own default is one).
	mustExecCQL(t, admin, "CREATE KEYSPACE "+backing+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}")

	// The gateway's request timeouts (45 s) are above a split step's wait:
	// with shared split states, reads and writes of the range a step is
	// about to move wait Lease + Drain (20 s, docs/design/splitting.md
	// "Several gateways") plus the move, and with the default timeouts
	// they would fail. Data moves at 128 KiB/s. split_max_partition_rows
	// 6000 keeps the detector from splitting any partition by itself (the
	// others get about 10 rows a second) or merging the hot one back (a
	// merge is due below a quarter of the limit, and the hot partition
	// holds hotRows > 1500 rows).
	cfgPath := filepath.Join(t.TempDir(), "partita.yaml")
	config := "write_request_timeout: 45s\nread_request_timeout: 45s\nrange_request_timeout: 45s\n" +
		"split_bytes_per_second: 128KiB\nsplit_max_partition_rows: 6000\n"
	if err := os.WriteFile(cfgPath, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	var contact []string
	for _, h := range c.Hosts() {
		contact = append(contact, net.JoinHostPort(h, strconv.Itoa(c.NativePort)))
	}
	gw := partitaproc.Start(t, "serve", "--backend", "cassandra", "--contact-points", strings.Join(contact, ","),
		"--backend-keyspace", backing, "--data-dir", t.TempDir(), "--config", cfgPath,
		"--cql-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0", "--log-level", "info")
	defer func() {
		if t.Failed() {
			t.Logf("gateway log (last lines):\n%s", lastLines(gw.Logs.String(), 80))
		}
		if err := gw.Kill(t, syscall.SIGTERM); err != nil {
			t.Errorf("gateway exit after SIGTERM: %v", err)
		}
	}()
	cqlAddr, httpAddr := net.JoinHostPort(gw.Host, strconv.Itoa(gw.Port)), gw.HTTPAddr(t)
	t.Logf("gateway up %.1fs after the test began (CQL %s, HTTP %s)", time.Since(began).Seconds(), cqlAddr, httpAddr)

	setup := gatewaySession(t, cqlAddr)
	defer setup.Close()
	mustExecCQL(t, setup, "CREATE KEYSPACE crash WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}")
	mustExecCQL(t, setup, "CREATE TABLE crash.events (p text, w int, seq int, v text, PRIMARY KEY (p, w, seq))")

	m := &crashModel{acked: map[crashKey]string{}, uncertain: map[crashKey]string{}}
	prefillHot(t, setup, m)

	ops := &crashOps{}
	startAt := time.Now()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range crashWriters {
		s := gatewaySession(t, cqlAddr)
		defer s.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			writeUntil(stop, s, w, m, ops)
		}()
	}
	for r := range crashReaders {
		s := gatewaySession(t, cqlAddr)
		defer s.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			readUntil(stop, s, r, m, ops)
		}()
	}
	stopTraffic := sync.OnceFunc(func() { close(stop); wg.Wait() })
	defer stopTraffic()

	time.Sleep(3 * time.Second) // traffic with every node up
	killAt := time.Now()
	if err := victim.Crash(); err != nil {
		t.Fatal(err)
	}
	t.Logf("killed node %s (pid %d) with SIGKILL", victim.Address, victim.Pid())

	time.Sleep(2 * time.Second)
	splitAt := time.Now()
	splitDuringOutage(t, httpAddr, killAt)
	t.Logf("the split of the hot partition, begun %.1fs after the kill, took %.1fs",
		splitAt.Sub(killAt).Seconds(), time.Since(splitAt).Seconds())

	hinted := awaitHints(t, survivors, victim, someHints, time.Minute)
	t.Logf("hint files for %s on the surviving nodes: %v (%.1fs after the kill)", victim.Address, hinted, time.Since(killAt).Seconds())
	if d := minOutage - time.Since(killAt); d > 0 {
		time.Sleep(d)
	}

	restartAt := time.Now()
	if err := victim.Restart(); err != nil {
		t.Fatalf("restart node %s on its data: %v", victim.Address, err)
	}
	backAt := time.Now()
	t.Logf("node %s restarted on its directory, answering %.1fs after the restart began; down %.1fs in all",
		victim.Address, backAt.Sub(restartAt).Seconds(), backAt.Sub(killAt).Seconds())
	awaitHints(t, survivors, victim, noHints, 3*time.Minute)
	t.Logf("hints delivered to %s %.1fs after it answered", victim.Address, time.Since(backAt).Seconds())

	time.Sleep(3 * time.Second) // traffic with every node up again
	stopTraffic()
	stoppedAt := time.Now()

	checkCrashOps(t, ops, startAt, killAt, restartAt, backAt, stoppedAt)
	m.mu.Lock()
	t.Logf("%d rows acknowledged, %d writes with an unknown outcome", len(m.acked), len(m.uncertain))
	m.mu.Unlock()

	if splits, err := partitaproc.Splits(httpAddr); err != nil || len(splits) != 1 || splits[0].State != "active" {
		t.Errorf("split states when the traffic stopped: %+v (%v), want the hot partition's split, active", splits, err)
	}
	verify := gatewaySession(t, cqlAddr)
	defer verify.Close()
	for _, cl := range []gocql.Consistency{gocql.Quorum, gocql.All} {
		verifyCrashRows(t, verify, m, cl)
	}
	t.Logf("the node-crash test took %.1fs", time.Since(began).Seconds())
}

// prefillHot writes hotRows rows into the hot partition, in unlogged
// batches of 100 (one partition each).
func prefillHot(t *testing.T, s *gocql.Session, m *crashModel) {
	t.Helper()
	const writer = -1 // no client uses it
	pad := strings.Repeat("x", 150)
	for first := 0; first < hotRows; first += 100 {
		b := s.NewBatch(gocql.UnloggedBatch)
		for seq := first; seq < min(first+100, hotRows); seq++ {
			b.Query("INSERT INTO crash.events (p, w, seq, v) VALUES ('hot', ?, ?, ?)", writer, seq, fmt.Sprintf("pre-%d-%s", seq, pad))
		}
		if err := s.ExecuteBatch(b); err != nil {
			t.Fatalf("prefill the hot partition: %v", err)
		}
		for seq := first; seq < min(first+100, hotRows); seq++ {
			m.ack(crashKey{"hot", writer, seq}, fmt.Sprintf("pre-%d-%s", seq, pad))
		}
	}
}

// writeUntil inserts fresh rows as writer w, round the partitions, until
// stop is closed.
func writeUntil(stop <-chan struct{}, s *gocql.Session, w int, m *crashModel, ops *crashOps) {
	for seq := 0; ; seq++ {
		select {
		case <-stop:
			return
		case <-time.After(crashPace):
		}
		k := crashKey{crashPartitions[seq%len(crashPartitions)], w, seq}
		v := fmt.Sprintf("w%d-%d", w, seq)
		err := s.Query("INSERT INTO crash.events (p, w, seq, v) VALUES (?, ?, ?, ?)", k.p, k.w, k.seq, v).Exec()
		ops.record(fmt.Sprintf("write %v", k), err)
		if err != nil {
			m.fail(k, v)
		} else {
			m.ack(k, v)
		}
	}
}

// readUntil reads acknowledged rows back, one at a time, until stop is
// closed; a read that succeeds without the row, or with another value,
// is a lost write.
func readUntil(stop <-chan struct{}, s *gocql.Session, r int, m *crashModel, ops *crashOps) {
	rng := rand.New(rand.NewPCG(uint64(r), uint64(time.Now().UnixNano())))
	for {
		select {
		case <-stop:
			return
		case <-time.After(crashPace):
		}
		k, want, ok := m.pick(rng)
		if !ok {
			continue
		}
		var got string
		err := s.Query("SELECT v FROM crash.events WHERE p = ? AND w = ? AND seq = ?", k.p, k.w, k.seq).Scan(&got)
		if err == gocql.ErrNotFound {
			ops.record(fmt.Sprintf("read %v", k), nil)
			ops.lose(fmt.Sprintf("%s: read of acknowledged row %v found nothing", time.Now().Format(time.TimeOnly), k))
			continue
		}
		ops.record(fmt.Sprintf("read %v", k), err)
		if err == nil && got != want {
			ops.lose(fmt.Sprintf("%s: read of acknowledged row %v = %q, want %q", time.Now().Format(time.TimeOnly), k, got, want))
		}
	}
}

// checkCrashOps fails t for a lost row and for a request that failed
// outside the first crashGrace after the kill, and logs the counts.
func checkCrashOps(t *testing.T, ops *crashOps, startAt, killAt, restartAt, backAt, stoppedAt time.Time) {
	t.Helper()
	ops.mu.Lock()
	defer ops.mu.Unlock()
	for _, l := range ops.lost {
		t.Error(l)
	}
	phases := []struct {
		name     string
		from, to time.Time
	}{
		{"before the kill", startAt, killAt},
		{"node down", killAt, restartAt},
		{"node restarting", restartAt, backAt},
		{"node back", backAt, stoppedAt},
	}
	for _, ph := range phases {
		var ok, failed int
		for _, at := range ops.ok {
			if !at.Before(ph.from) && at.Before(ph.to) {
				ok++
			}
		}
		for _, f := range ops.failures {
			if !f.at.Before(ph.from) && f.at.Before(ph.to) {
				failed++
			}
		}
		t.Logf("%s (%.1fs): %d requests succeeded, %d failed", ph.name, ph.to.Sub(ph.from).Seconds(), ok, failed)
	}
	if len(ops.ok) == 0 {
		t.Error("no request succeeded")
	}
	inGrace := 0
	for _, f := range ops.failures {
		since := f.at.Sub(killAt)
		if since >= 0 && since < crashGrace {
			inGrace++
			t.Logf("failed %.2fs after the kill (allowed): %s: %v", since.Seconds(), f.what, f.err)
			continue
		}
		t.Errorf("failed %.2fs after the kill (only the first %v may fail): %s: %v", since.Seconds(), crashGrace, f.what, f.err)
	}
	t.Logf("%d requests failed within %v of the kill", inGrace, crashGrace)
}

// verifyCrashRows reads every partition whole through s at cl and
// compares it with the model.
func verifyCrashRows(t *testing.T, s *gocql.Session, m *crashModel, cl gocql.Consistency) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := map[crashKey]bool{}
	for _, p := range crashPartitions {
		iter := s.Query("SELECT w, seq, v FROM crash.events WHERE p = ?", p).Consistency(cl).PageSize(500).Iter()
		var w, seq, rows int
		var v string
		last := crashKey{p, -1 << 31, 0}
		for iter.Scan(&w, &seq, &v) {
			rows++
			k := crashKey{p, w, seq}
			if w < last.w || (w == last.w && seq <= last.seq) {
				t.Errorf("%v: row %v after %v: out of clustering order or twice", cl, k, last)
			}
			last = k
			if seen[k] {
				t.Errorf("%v: row %v read twice", cl, k)
			}
			seen[k] = true
			if want, ok := m.acked[k]; ok {
				if v != want {
					t.Errorf("%v: acknowledged row %v = %q, want %q", cl, k, v, want)
				}
			} else if want, ok := m.uncertain[k]; !ok || v != want {
				t.Errorf("%v: row %v = %q, which no client wrote", cl, k, v)
			}
		}
		if err := iter.Close(); err != nil {
			t.Fatalf("%v: read partition %s: %v", cl, p, err)
		}
		var count int
		if err := s.Query("SELECT COUNT(*) FROM crash.events WHERE p = ?", p).Consistency(cl).Scan(&count); err != nil {
			t.Fatalf("%v: COUNT(*) of partition %s: %v", cl, p, err)
		}
		if count != rows {
			t.Errorf("%v: COUNT(*) of partition %s = %d, %d rows read", cl, p, count, rows)
		}
	}
	lost := 0
	for k := range m.acked {
		if !seen[k] {
			lost++
			if lost <= 10 {
				t.Errorf("%v: acknowledged row %v lost", cl, k)
			}
		}
	}
	uncertainThere := 0
	for k := range m.uncertain {
		if seen[k] {
			uncertainThere++
		}
	}
	t.Logf("read at %v: %d rows, %d acknowledged ones lost, %d of the %d writes with an unknown outcome are there",
		cl, len(seen), lost, uncertainThere, len(m.uncertain))
}

// splitDuringOutage splits the hot partition by range through the
// gateway's admin API and waits until its migration ends. The command
// changes the split state by a lightweight transaction: in the first
// seconds after the kill it may time out (one did, 2 s after it:
// WriteTimeout of the state's CAS), like any request then; an operator
// retries it. A command that failed may still have started the split, so
// the state is looked at before each retry. Failures past crashGrace
// after the kill fail t.
func splitDuringOutage(t *testing.T, httpAddr string, killAt time.Time) {
	t.Helper()
	v := url.Values{"op": {"split"}, "keyspace": {"crash"}, "table": {"events"}, "key": {"'hot'"}, "strategy": {"range"}}
	for {
		splits, err := partitaproc.Splits(httpAddr)
		if err == nil && len(splits) > 0 {
			break // started, by this command or by one that reported a failure
		}
		err = partitaproc.AdminSplit(httpAddr, v)
		if err == nil {
			break
		}
		var refused *partitaproc.AdminError
		if !errors.As(err, &refused) {
			t.Fatalf("split the hot partition: %v", err)
		}
		since := time.Since(killAt)
		msg := fmt.Sprintf("split of the hot partition %.1fs after the kill: %v", since.Seconds(), refused)
		if since > crashGrace {
			t.Fatal(msg)
		}
		t.Logf("%s (allowed so soon after the kill; retrying)", msg)
		time.Sleep(time.Second)
	}
	deadline := time.Now().Add(5 * time.Minute)
	for {
		splits, err := partitaproc.Splits(httpAddr)
		if err == nil && len(splits) == 1 && splits[0].State == "active" {
			t.Logf("hot partition split with a node down: %d children", len(splits[0].Children))
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the split of the hot partition did not end in 5 minutes: %+v (%v)", splits, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// awaitHints polls system_views.pending_hints on each of nodes until the
// numbers of hint files they hold for target satisfy done, and returns
// them. Cassandra writes a hint, on the coordinator, for a replica that is
// down or did not answer in time, in memory first and in a file at the
// next flush (hints_flush_period, 10 s), and delivers a host's files once
// it sees the host up again. Which survivors coordinate (and so hold
// hints) is the driver's choice: the first live replica of each token.
func awaitHints(t *testing.T, nodes []*cassandra.Node, target *cassandra.Node, done func(files map[string]int) bool, timeout time.Duration) map[string]int {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		counts := map[string]int{}
		var errs []error
		for _, n := range nodes {
			files, err := pendingHintFiles(n, target.Address)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			counts[n.Address] = files
		}
		if len(errs) == 0 && done(counts) {
			return counts
		}
		if time.Now().After(deadline) {
			t.Fatalf("hint files for %s after %v: %v (errors %v)", target.Address, timeout, counts, errs)
		}
		time.Sleep(time.Second)
	}
}

// someHints: a survivor holds hints. noHints: none does.
func someHints(files map[string]int) bool {
	total := 0
	for _, n := range files {
		total += n
	}
	return total > 0
}

func noHints(files map[string]int) bool { return !someHints(files) }

// pendingHintFiles is how many hint files n holds for the node at
// address (system_views.pending_hints is n's own, a virtual table).
func pendingHintFiles(n *cassandra.Node, address string) (int, error) {
	s, err := n.NewCluster().CreateSession()
	if err != nil {
		return 0, err
	}
	defer s.Close()
	iter := s.Query("SELECT address, files FROM system_views.pending_hints").Iter()
	var addr net.IP
	var files, total int
	for iter.Scan(&addr, &files) {
		if addr.String() == address {
			total += files
		}
	}
	return total, iter.Close()
}

// clusterSession is a session to every node of c.
func clusterSession(t *testing.T, c *cassandra.Cluster) *gocql.Session {
	t.Helper()
	cfg := gocql.NewCluster(c.Hosts()...)
	cfg.Port = c.NativePort
	s, err := cfg.CreateSession()
	if err != nil {
		t.Fatalf("connect to the cluster: %v", err)
	}
	return s
}

// gatewaySession is a client of the gateway at addr, writing and reading
// at QUORUM.
func gatewaySession(t *testing.T, addr string) *gocql.Session {
	t.Helper()
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	cfg := gocql.NewCluster(host)
	cfg.Port, _ = strconv.Atoi(port)
	cfg.Consistency = gocql.Quorum
	cfg.Timeout = time.Minute // longer than the gateway's own timeouts
	s, err := cfg.CreateSession()
	if err != nil {
		t.Fatalf("connect to the gateway at %s: %v", addr, err)
	}
	return s
}

func mustExecCQL(t *testing.T, s *gocql.Session, stmt string) {
	t.Helper()
	if err := s.Query(stmt).Exec(); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
