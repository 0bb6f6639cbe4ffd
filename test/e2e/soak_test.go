package e2e_test

import (
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/test/internal/partitaproc"
)

// soakDefaultDuration is how long TestSoak runs in CI;
// PARTITA_SOAK_DURATION (a Go duration, e.g. 10m) sets another.
const soakDefaultDuration = 60 * time.Second

// The soak's data set is bounded, so that what the store holds cannot grow
// without end and pass for a leak (its memtables, which keep every version
// until a flush, aside: see the bounds below): writes land on
// soakKeys rows of kv and soakPartitions×soakClusterings rows of events,
// and the hot partition (p = 0) always holds exactly soakHotRows rows
// (only overwritten, never deleted), which its reads check.
const (
	soakKeys        = 2000
	soakPartitions  = 50
	soakClusterings = 200
	soakHotRows     = 5000
)

// Flatness bounds of TestSoak, comparing the samples of the last third of
// the measured window (after the warm-up) with those of its first third:
// the largest early value plus the slack must hold the late ones (the
// largest for counts, the median for memory). The load is constant and
// its data set bounded, so a server that keeps nothing per request holds
// steady; each slack is the most a steady server moves, and what a leak
// crosses:
//   - goroutines: each connection has a fixed set and each request in
//     flight at most a few; the clients are a fixed number, so only the
//     churning connections (one raw, at times a gocql session of 3
//     connections) move the count. A goroutine left per request or per
//     connection adds thousands.
//   - descriptors: the same sockets, plus one per sstable, which
//     flushes and compactions make and remove: the bound is on descriptors
//     beyond the sstables (partita_storage_sstables), the slack for the
//     churning sockets and the write-ahead log's rotation.
//   - Go heap: the heap goal (twice the live heap at the last collection)
//     moves with the requests in flight, a hot-partition page of 500 rows
//     the largest; the prepared-statement and schema caches are bounded
//     and full after the warm-up.
//   - RSS beyond the store's caches: the memtables and the block cache
//     live outside the Go heap (Pebble allocates them with C's calloc in
//     a cgo build, as go build makes the binary here), capped (32 MiB each, 2 memtables) but
//     filled lazily: Pebble flushes only once its memtables hold 32 MiB,
//     which the soak's writes take minutes to reach, so raw RSS climbs by
//     up to that much. Their size (partita_storage_memtable_bytes, the
//     arenas' capacity, and partita_storage_block_cache_bytes) is taken
//     off RSS; what is left is the Go heap, stacks and the runtime, whose
//     slack is the heap's plus the allocator's retained pages.
//
// The heap's slack is what a leak must exceed between the two thirds: in
// the full ten-minute run (about 5 minutes apart, at 500 to 1,500 requests
// a second here) that is 100 to 200 bytes kept per request; in the 60 s CI
// run (about 27 s apart) some 400 bytes a request. After the load stops and every client
// disconnects, goroutines must come back within 5 of the idle server's
// count before the load, and descriptors beyond sstables within 5.
const (
	soakGoroutineSlack = 30
	soakFDSlack        = 10
	soakHeapSlack      = 16 << 20
	soakRSSSlack       = 24 << 20
	soakIdleSlack      = 5
)

func soakDuration(t *testing.T) time.Duration {
	t.Helper()
	v := os.Getenv("PARTITA_SOAK_DURATION")
	if v == "" {
		return soakDefaultDuration
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 30*time.Second {
		t.Fatalf("PARTITA_SOAK_DURATION=%q: want a Go duration of at least 30s", v)
	}
	return d
}

// soakStats counts what the load did, by kind, and keeps its first errors.
type soakStats struct {
	ops    sync.Map // kind -> *atomic.Int64
	errors atomic.Int64
	mu     sync.Mutex
	first  []string
}

func (s *soakStats) done(kind string) {
	c, _ := s.ops.LoadOrStore(kind, new(atomic.Int64))
	c.(*atomic.Int64).Add(1)
}

func (s *soakStats) fail(kind string, err error) {
	s.errors.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.first) < 20 {
		s.first = append(s.first, kind+": "+err.Error())
	}
}

func (s *soakStats) total() int64 {
	var n int64
	s.ops.Range(func(_, v any) bool { n += v.(*atomic.Int64).Load(); return true })
	return n
}

func (s *soakStats) byKind() map[string]int64 {
	out := map[string]int64{}
	s.ops.Range(func(k, v any) bool { out[k.(string)] = v.(*atomic.Int64).Load(); return true })
	return out
}

// TestSoak runs a mixed load against the server binary for
// PARTITA_SOAK_DURATION (60 s by default): point, range, paged, IN and
// COUNT reads, writes, lightweight transactions, row and range deletes,
// connections opened and closed, and a split of the hot partition forced
// through the admin API in the warm-up. It samples the server's RSS, heap
// goal, goroutines and descriptors every few seconds and requires them flat
// after the warm-up (the bounds above), every request answered without
// error, every kind of load to have run, and the hot partition to keep its
// rows through the split.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("a 60 s soak")
	}
	duration := soakDuration(t)
	warmup := min(duration/3, 2*time.Minute)
	interval := min(max(duration/40, 2*time.Second), 15*time.Second)
	raiseFileLimit(t, 4096)
	p, httpAddr := startMeasuredPartita(t)
	addr := net.JoinHostPort(p.host, strconv.Itoa(p.port))

	cluster := newCluster(p.host, p.port)
	cluster.Timeout = rawTimeout // a stuck server fails the test, a slow machine does not
	setup, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		"CREATE KEYSPACE soak WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE soak.kv (k int PRIMARY KEY, v text, n int)",
		"CREATE TABLE soak.events (p int, c int, v text, PRIMARY KEY (p, c))",
	} {
		mustExec(t, setup, stmt)
	}
	for from := 0; from < soakHotRows; from += 250 {
		b := setup.NewBatch(gocql.UnloggedBatch)
		for c := from; c < min(from+250, soakHotRows); c++ {
			b.Query("INSERT INTO soak.events (p, c, v) VALUES (0, ?, 'initial')", c)
		}
		if err := setup.ExecuteBatch(b); err != nil {
			t.Fatal(err)
		}
	}
	setup.Close()

	cluster.Keyspace = "soak"
	session, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	// The idle figures, with the load's session connected but not used.
	time.Sleep(2 * time.Second)
	idle := mustSample(t, p, httpAddr)
	t.Logf("idle before the load: %v", idle)

	stats := &soakStats{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var stopOnce sync.Once
	stopLoad := func() { // also on a failed sample, before the server is killed
		stopOnce.Do(func() { close(stop) })
		wg.Wait()
	}
	defer stopLoad()
	worker := func(seed uint64, step func(r *rand.Rand)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(time.Now().UnixNano())))
			for {
				select {
				case <-stop:
					return
				default:
				}
				step(r)
			}
		}()
	}
	for i := range 2 {
		worker(uint64(10+i), func(r *rand.Rand) { soakWrite(session, r, stats) })
		worker(uint64(20+i), func(r *rand.Rand) { soakRead(session, r, stats) })
	}
	worker(30, func(r *rand.Rand) { soakLWT(session, r, stats) })
	worker(40, func(r *rand.Rand) { soakDelete(session, r, stats) })
	worker(50, func(r *rand.Rand) { soakChurn(addr, p.host, p.port, r, stats) })

	start := time.Now()
	var samples []serverSample
	splitAt := warmup / 2
	splitDone := false
	for time.Since(start) < duration {
		time.Sleep(interval)
		s, err := sampleServer(p.cmd.Process.Pid, httpAddr)
		if err != nil {
			t.Fatalf("sample the server: %v\n%s", err, p.logs)
		}
		s.At = time.Since(start)
		samples = append(samples, s)
		t.Logf("%6.0fs %v, %d ops, %d errors", s.At.Seconds(), s, stats.total(), stats.errors.Load())
		if !splitDone && s.At >= splitAt {
			forceSplit(t, p, httpAddr)
			splitDone = true
		}
	}
	elapsed := time.Since(start)
	stopLoad()
	ops := stats.total()
	t.Logf("%d ops in %v: %.0f ops/s; by kind %v", ops, elapsed.Round(time.Second), float64(ops)/elapsed.Seconds(), stats.byKind())
	if n := stats.errors.Load(); n > 0 {
		t.Errorf("%d requests failed; the first:\n%s", n, strings.Join(stats.first, "\n"))
	}
	for _, kind := range []string{"write kv", "write events", "write hot", "read point", "read slice", "read reversed",
		"read in", "read count", "read hot", "lwt insert", "lwt update", "lwt delete", "delete row", "delete range",
		"delete column", "churn raw", "churn session"} {
		if stats.byKind()[kind] == 0 {
			t.Errorf("no %q operation completed", kind)
		}
	}
	checkFlat(t, samples, warmup)

	// With every client gone the server returns to its idle figures.
	session.Close()
	var after serverSample
	if !waitFor(60*time.Second, func() bool {
		after = mustSample(t, p, httpAddr)
		return after.Connections == 0 && after.Goroutines <= idle.Goroutines-idleSessionGoroutines(idle)+soakIdleSlack &&
			after.FDs-after.SSTables <= idle.FDs-idle.Connections-idle.SSTables+soakIdleSlack
	}) {
		t.Errorf("60 s after the load: %v; idle before it (with %d connections): %v", after, idle.Connections, idle)
	}
	t.Logf("after the load, no client: %v", after)
	checkNoServerErrors(t, p)
}

// idleSessionGoroutines is the share of the idle goroutines that belong to
// the load's session, connected when idle was taken: three a connection.
func idleSessionGoroutines(idle serverSample) int { return 3 * idle.Connections }

// checkFlat compares the last third of the samples after the warm-up with
// the first third (see the bounds above).
func checkFlat(t *testing.T, samples []serverSample, warmup time.Duration) {
	t.Helper()
	var window []serverSample
	for _, s := range samples {
		if s.At >= warmup {
			window = append(window, s)
		}
	}
	if len(window) < 6 {
		t.Fatalf("only %d samples after the warm-up", len(window))
	}
	first, last := window[:len(window)/3], window[len(window)-len(window)/3:]
	maxOf := func(ss []serverSample, f func(serverSample) int64) int64 {
		m := f(ss[0])
		for _, s := range ss[1:] {
			m = max(m, f(s))
		}
		return m
	}
	median := func(ss []serverSample, f func(serverSample) int64) int64 {
		vs := make([]int64, len(ss))
		for i, s := range ss {
			vs[i] = f(s)
		}
		slices.Sort(vs)
		return vs[len(vs)/2]
	}
	t.Logf("after the warm-up: first %v; last %v", first[0], last[len(last)-1])
	for _, c := range []struct {
		what   string
		value  func(serverSample) int64
		late   func([]serverSample, func(serverSample) int64) int64
		slack  int64
		memory bool
	}{
		{"goroutines", func(s serverSample) int64 { return int64(s.Goroutines) }, maxOf, soakGoroutineSlack, false},
		{"descriptors beyond sstables", func(s serverSample) int64 { return int64(s.FDs - s.SSTables) }, maxOf, soakFDSlack, false},
		{"Go heap goal", func(s serverSample) int64 { return s.HeapGoal }, median, soakHeapSlack, true},
		{"RSS beyond the store's caches", func(s serverSample) int64 { return s.RSS - s.StoreCaches }, median, soakRSSSlack, true},
	} {
		early, late := maxOf(first, c.value), c.late(last, c.value)
		if c.memory {
			t.Logf("%s: at most %.1f MiB early, %.1f MiB late (bound +%d MiB)", c.what, mib(early), mib(late), c.slack>>20)
		} else {
			t.Logf("%s: at most %d early, %d late (bound +%d)", c.what, early, late, c.slack)
		}
		if late > early+c.slack {
			t.Errorf("%s grew past the bound", c.what)
		}
	}
	t.Logf("raw RSS: %.1f MiB at the first sample after the warm-up, %.1f MiB at the last", mib(first[0].RSS), mib(last[len(last)-1].RSS))
}

// forceSplit splits the hot partition by range through the admin API and
// waits for its rows to have moved.
func forceSplit(t *testing.T, p *process, httpAddr string) {
	t.Helper()
	v := url.Values{"op": {"split"}, "keyspace": {"soak"}, "table": {"events"}, "key": {"0"}, "strategy": {"range"}}
	if err := partitaproc.AdminSplit(httpAddr, v); err != nil {
		t.Fatalf("POST /admin/split: %v", err)
	}
	waitNoMigration(t, p, httpAddr, "the forced split")
	if !isSplit(t, httpAddr) {
		t.Fatal("the hot partition is not listed split after the forced split")
	}
	t.Log("the hot partition is split")
}

func soakExec(s *gocql.Session, stats *soakStats, kind, stmt string, args ...any) {
	if err := s.Query(stmt, args...).Exec(); err != nil {
		stats.fail(kind, err)
		return
	}
	stats.done(kind)
}

func soakWrite(s *gocql.Session, r *rand.Rand, stats *soakStats) {
	switch r.IntN(3) {
	case 0:
		soakExec(s, stats, "write kv", "INSERT INTO kv (k, v, n) VALUES (?, ?, ?)", r.IntN(soakKeys), soakValue(r), r.IntN(100))
	case 1:
		soakExec(s, stats, "write events", "INSERT INTO events (p, c, v) VALUES (?, ?, ?)",
			1+r.IntN(soakPartitions), r.IntN(soakClusterings), soakValue(r))
	default:
		soakExec(s, stats, "write hot", "UPDATE events SET v = ? WHERE p = 0 AND c = ?", soakValue(r), r.IntN(soakHotRows))
	}
}

// soakValue is a text of 20 to 200 bytes.
func soakValue(r *rand.Rand) string { return strings.Repeat("v", 20+r.IntN(180)) }

// soakRead runs one read of a shape picked at random; the hot partition's
// full paged read, the most expensive, is one in twenty.
func soakRead(s *gocql.Session, r *rand.Rand, stats *soakStats) {
	var err error
	kind := ""
	switch n := r.IntN(20); {
	case n < 5:
		kind = "read point"
		var v string
		err = s.Query("SELECT v FROM kv WHERE k = ?", r.IntN(soakKeys)).Scan(&v)
		if err == gocql.ErrNotFound {
			err = nil
		}
	case n < 9:
		kind = "read slice"
		from := r.IntN(soakClusterings)
		err = drain(s.Query("SELECT c, v FROM events WHERE p = ? AND c >= ? AND c < ?", 1+r.IntN(soakPartitions), from, from+20).Iter())
	case n < 12:
		kind = "read reversed"
		err = drain(s.Query("SELECT c, v FROM events WHERE p = ? ORDER BY c DESC LIMIT 10", 1+r.IntN(soakPartitions)).Iter())
	case n < 15:
		kind = "read in"
		err = drain(s.Query("SELECT k, v FROM kv WHERE k IN (?, ?, ?)", r.IntN(soakKeys), r.IntN(soakKeys), r.IntN(soakKeys)).Iter())
	case n < 19:
		kind = "read count"
		var count int64
		err = s.Query("SELECT COUNT(*) FROM events WHERE p = ?", 1+r.IntN(soakPartitions)).Scan(&count)
		if err == nil && count > soakClusterings {
			err = fmt.Errorf("COUNT(*) = %d, more than the %d clusterings written", count, soakClusterings)
		}
	default:
		kind = "read hot"
		err = readHotPartition(s, r.IntN(2) == 0)
	}
	if err != nil {
		stats.fail(kind, err)
		return
	}
	stats.done(kind)
}

// readHotPartition pages through the hot partition and checks that it
// holds its soakHotRows rows, once each and in clustering order.
func readHotPartition(s *gocql.Session, desc bool) error {
	q := "SELECT c FROM events WHERE p = 0"
	if desc {
		q += " ORDER BY c DESC"
	}
	iter := s.Query(q).PageSize(500).Iter()
	var c, n int
	prev := -1
	for iter.Scan(&c) {
		want := n
		if desc {
			want = soakHotRows - 1 - n
		}
		if c != want {
			iter.Close()
			return fmt.Errorf("hot partition (desc=%v): row %d has c = %d (after %d), want %d", desc, n, c, prev, want)
		}
		prev = c
		n++
	}
	if err := iter.Close(); err != nil {
		return err
	}
	if n != soakHotRows {
		return fmt.Errorf("hot partition (desc=%v): %d rows, want %d", desc, n, soakHotRows)
	}
	return nil
}

// drain reads the (int, text) rows of iter.
func drain(iter *gocql.Iter) error {
	var k int
	var v string
	for iter.Scan(&k, &v) {
	}
	return iter.Close()
}

// soakLWT runs compare-and-set operations on a key range of their own:
// insert if absent, update if a value matches, delete if present.
func soakLWT(s *gocql.Session, r *rand.Rand, stats *soakStats) {
	k := soakKeys + r.IntN(100)
	var err error
	kind := ""
	m := map[string]any{}
	switch r.IntN(3) {
	case 0:
		kind = "lwt insert"
		_, err = s.Query("INSERT INTO kv (k, v, n) VALUES (?, 'lwt', 0) IF NOT EXISTS", k).MapScanCAS(m)
	case 1:
		kind = "lwt update"
		_, err = s.Query("UPDATE kv SET n = ? WHERE k = ? IF n = ?", r.IntN(3), k, r.IntN(3)).MapScanCAS(m)
	default:
		kind = "lwt delete"
		_, err = s.Query("DELETE FROM kv WHERE k = ? IF EXISTS", k).MapScanCAS(m)
	}
	if err != nil {
		stats.fail(kind, err)
		return
	}
	stats.done(kind)
}

// soakDelete deletes rows, clustering ranges and cells of the bounded data
// set (never of the hot partition, whose rows its reads count).
func soakDelete(s *gocql.Session, r *rand.Rand, stats *soakStats) {
	switch r.IntN(3) {
	case 0:
		soakExec(s, stats, "delete row", "DELETE FROM kv WHERE k = ?", r.IntN(soakKeys))
	case 1:
		from := r.IntN(soakClusterings)
		soakExec(s, stats, "delete range", "DELETE FROM events WHERE p = ? AND c >= ? AND c < ?",
			1+r.IntN(soakPartitions), from, from+5)
	default:
		soakExec(s, stats, "delete column", "DELETE v FROM events WHERE p = ? AND c = ?",
			1+r.IntN(soakPartitions), r.IntN(soakClusterings))
	}
	time.Sleep(5 * time.Millisecond) // deletes are a small share of the load
}

// soakChurn opens a connection, asks one question and closes it: raw
// native-protocol connections mostly, and one gocql session (its control
// connection, pool, schema and topology reads) in twenty.
func soakChurn(addr, host string, port int, r *rand.Rand, stats *soakStats) {
	if r.IntN(20) == 0 {
		c := newCluster(host, port)
		c.Timeout = rawTimeout
		s, err := c.CreateSession()
		if err == nil {
			var v string
			err = s.Query("SELECT release_version FROM system.local").Scan(&v)
			s.Close()
		}
		if err != nil {
			stats.fail("churn session", err)
			return
		}
		stats.done("churn session")
		return
	}
	c, err := dialRaw(addr)
	if err == nil {
		_, err = c.query(fmt.Sprintf("SELECT v FROM soak.kv WHERE k = %d", r.IntN(soakKeys)))
		c.Close()
	}
	if err != nil {
		stats.fail("churn raw", err)
		return
	}
	stats.done("churn raw")
	time.Sleep(20 * time.Millisecond)
}
