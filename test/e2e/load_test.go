package e2e_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/protocol"
)

// loadConnections is the number of client connections TestLoadConnections
// holds open at once.
const loadConnections = 1000

// rawConn is a minimal native-protocol v4 client over one socket, through
// the server's own codec: a gocql session per connection would cost the
// test process more than the server it measures.
type rawConn struct {
	nc     net.Conn
	r      *bufio.Reader
	stream int16
}

// rawTimeout bounds one round trip; only a stuck server reaches it on a
// loaded machine.
const rawTimeout = 60 * time.Second

// dialRaw connects to addr and sends STARTUP, expecting READY.
func dialRaw(addr string) (*rawConn, error) {
	nc, err := net.DialTimeout("tcp", addr, rawTimeout)
	if err != nil {
		return nil, err
	}
	c := &rawConn{nc: nc, r: bufio.NewReader(nc)}
	resp, err := c.roundTrip(&protocol.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}})
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("STARTUP: %w", err)
	}
	if _, ok := resp.(*protocol.Ready); !ok {
		nc.Close()
		return nil, fmt.Errorf("STARTUP answered with %T, want READY", resp)
	}
	return c, nil
}

// roundTrip sends req on the next stream and reads its answer; an ERROR
// answer is returned as its *cqlerr.Error.
func (c *rawConn) roundTrip(req protocol.Request) (protocol.Response, error) {
	c.stream = (c.stream + 1) & 0x7fff
	c.nc.SetDeadline(time.Now().Add(rawTimeout))
	if _, err := c.nc.Write(protocol.AppendRequest(nil, c.stream, req)); err != nil {
		return nil, err
	}
	f, err := protocol.ReadFrame(c.r, protocol.DefaultMaxBody)
	if err != nil {
		return nil, err
	}
	if f.Header.Stream != c.stream {
		return nil, fmt.Errorf("answer on stream %d, sent on %d", f.Header.Stream, c.stream)
	}
	resp, _, err := protocol.DecodeResponse(f)
	if err != nil {
		return nil, err
	}
	if e, ok := resp.(*protocol.ErrorMessage); ok {
		return nil, e.Err
	}
	return resp, nil
}

// query runs stmt at ONE and returns its rows (nil for a non-Rows result).
func (c *rawConn) query(stmt string) ([][][]byte, error) {
	resp, err := c.roundTrip(&protocol.Query{Query: stmt, Params: protocol.QueryParameters{Consistency: protocol.One}})
	if err != nil {
		return nil, err
	}
	if rows, ok := resp.(*protocol.RowsResult); ok {
		return rows.Rows, nil
	}
	return nil, nil
}

func (c *rawConn) Close() error { return c.nc.Close() }

// localQuery is what every connection asks: one row, from a system table
// that every node has.
const localQuery = "SELECT release_version FROM system.local"

// askLocal runs localQuery on c and checks it answers one row.
func askLocal(c *rawConn) error {
	rows, err := c.query(localQuery)
	if err != nil {
		return err
	}
	if len(rows) != 1 || len(rows[0]) != 1 || len(rows[0][0]) == 0 {
		return fmt.Errorf("%s: %d rows, want one with a version", localQuery, len(rows))
	}
	return nil
}

// raiseFileLimit raises this process's RLIMIT_NOFILE soft limit to at
// least want (within the hard limit). Calling Setrlimit also makes the
// child processes inherit the raised limit (Go otherwise restores the
// limit it found for them).
func raiseFileLimit(t *testing.T, want uint64) {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if lim.Max < want {
		t.Fatalf("RLIMIT_NOFILE hard limit is %d; this test needs %d descriptors (ulimit -Hn)", lim.Max, want)
	}
	lim.Cur = max(lim.Cur, want)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatalf("raise RLIMIT_NOFILE to %d: %v", want, err)
	}
}

// startMeasuredPartita starts the server binary with its HTTP endpoint on
// a free port and returns the process and the HTTP address.
func startMeasuredPartita(t *testing.T, extra ...string) (*process, string) {
	t.Helper()
	return startWithHTTP(t, t.TempDir(), extra...)
}

// serverSample is what the test reads of the server process: from /proc
// (RSS, open descriptors) and from /metrics (goroutines, connections).
type serverSample struct {
	At          time.Duration
	RSS         int64 // bytes
	FDs         int
	Goroutines  int
	Connections int
	// SSTables is partita_storage_sstables: the store keeps a descriptor
	// open per sstable, so descriptors follow it.
	SSTables int
	// StoreCaches is the memory the store's caches hold outside the Go
	// heap: its memtables' arenas (partita_storage_memtable_bytes, their
	// full capacity) and its block cache.
	StoreCaches int64
	// HeapGoal is go_memstats_next_gc_bytes, the heap size at which the
	// next collection starts: twice the heap found live by the last one
	// (GOGC=100), so it follows the live heap without the swing of
	// allocations between collections.
	HeapGoal int64
}

func (s serverSample) String() string {
	return fmt.Sprintf("rss %.1f MiB (store caches %.1f MiB), heap goal %.1f MiB, %d fds, %d goroutines, %d connections, %d sstables",
		mib(s.RSS), mib(s.StoreCaches), mib(s.HeapGoal), s.FDs, s.Goroutines, s.Connections, s.SSTables)
}

// sampleServer reads the server's figures now.
func sampleServer(pid int, httpAddr string) (serverSample, error) {
	var s serverSample
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return s, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return s, fmt.Errorf("VmRSS %q: %v", rest, err)
			}
			s.RSS = kb << 10
		}
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return s, err
	}
	s.FDs = len(fds)
	metrics, err := scrapeMetrics(httpAddr)
	if err != nil {
		return s, err
	}
	g, ok1 := metrics["go_goroutines"]
	c, ok2 := metrics["partita_cql_connections_open"]
	if !ok1 || !ok2 {
		return s, errors.New("/metrics lacks go_goroutines or partita_cql_connections_open")
	}
	s.Goroutines, s.Connections, s.SSTables = int(g), int(c), int(metrics["partita_storage_sstables"])
	s.StoreCaches = int64(metrics["partita_storage_memtable_bytes"] + metrics["partita_storage_block_cache_bytes"])
	s.HeapGoal = int64(metrics["go_memstats_next_gc_bytes"])
	return s, nil
}

func mib(bytes int64) float64 { return float64(bytes) / (1 << 20) }

// scrapeMetrics reads the unlabelled samples of /metrics.
func scrapeMetrics(httpAddr string) (map[string]float64, error) {
	client := http.Client{Timeout: rawTimeout}
	resp, err := client.Get("http://" + httpAddr + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("/metrics: %s", resp.Status)
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(body), "\n") {
		name, value, ok := strings.Cut(line, " ")
		if !ok || strings.HasPrefix(line, "#") || strings.Contains(name, "{") {
			continue
		}
		if v, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err == nil {
			out[name] = v
		}
	}
	return out, nil
}

func mustSample(t *testing.T, p *process, httpAddr string) serverSample {
	t.Helper()
	s, err := sampleServer(p.cmd.Process.Pid, httpAddr)
	if err != nil {
		t.Fatalf("sample the server: %v", err)
	}
	return s
}

// TestLoadConnections opens 1,000 native-protocol connections to the
// server binary, each with STARTUP and a QUERY, holds them all open and
// idle, asks every one again, and closes them. Every request must be
// answered; the server's RSS and goroutines with the connections idle are
// logged (docs/performance.md quotes them) and bounded, and after the
// close the server's goroutines and descriptors return to where they were.
func TestLoadConnections(t *testing.T) {
	// Both ends of every connection live on this machine: the test's
	// sockets in this process, the server's in the child, which inherits
	// the raised limit.
	raiseFileLimit(t, 2*loadConnections+512)
	p, httpAddr := startMeasuredPartita(t)
	addr := net.JoinHostPort(p.host, strconv.Itoa(p.port))

	// One connection first, so that the baseline includes a served client's
	// lazily started machinery (system tables, buffer pools).
	first, err := dialRaw(addr)
	if err != nil {
		t.Fatal(err)
	}
	if err := askLocal(first); err != nil {
		t.Fatal(err)
	}
	first.Close()
	if !waitFor(30*time.Second, func() bool { return mustSample(t, p, httpAddr).Connections == 0 }) {
		t.Fatal("the first connection is still counted open 30 s after its close")
	}
	before := mustSample(t, p, httpAddr)
	t.Logf("before: %v", before)

	conns := make([]*rawConn, loadConnections)
	var wg sync.WaitGroup
	errs := make(chan error, loadConnections)
	start := time.Now()
	const dialers = 50 // connecting in parallel, not all at once: the listen backlog is finite
	for w := range dialers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < loadConnections; i += dialers {
				c, err := dialRaw(addr)
				if err == nil {
					err = askLocal(c)
				}
				if err != nil {
					errs <- fmt.Errorf("connection %d: %w", i, err)
					if c != nil {
						c.Close()
					}
					continue
				}
				conns[i] = c
			}
		}()
	}
	wg.Wait()
	close(errs)
	t.Cleanup(func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	})
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("%d connections opened and answered in %v", loadConnections, time.Since(start).Round(time.Millisecond))

	// Idle: nothing is sent for a while, then the figures are read.
	time.Sleep(3 * time.Second)
	idle := mustSample(t, p, httpAddr)
	t.Logf("with %d idle connections: %v", loadConnections, idle)
	perConn := float64(idle.RSS-before.RSS) / loadConnections
	t.Logf("per connection: %.1f KiB RSS, %.1f KiB of heap goal, %.2f goroutines, %.2f fds", perConn/1024,
		float64(idle.HeapGoal-before.HeapGoal)/loadConnections/1024,
		float64(idle.Goroutines-before.Goroutines)/loadConnections, float64(idle.FDs-before.FDs)/loadConnections)
	if idle.Connections != loadConnections {
		t.Errorf("partita_cql_connections_open = %d, want %d", idle.Connections, loadConnections)
	}
	if idle.FDs < before.FDs+loadConnections {
		t.Errorf("the server holds %d descriptors, fewer than the %d connections on top of its %d", idle.FDs, loadConnections, before.FDs)
	}
	// A connection costs its reader and writer goroutines, a few buffers
	// and a socket. The bounds are several times that, so that only
	// a per-connection cost out of proportion (a goroutine per request
	// left behind, a buffer of the maximum frame size) trips them.
	if g := idle.Goroutines - before.Goroutines; g > 4*loadConnections {
		t.Errorf("%d goroutines for %d idle connections (more than 4 each)", g, loadConnections)
	}
	if perConn > 256<<10 {
		t.Errorf("%.0f KiB of RSS per idle connection (more than 256 KiB)", perConn/1024)
	}

	// Every idle connection still answers.
	errs = make(chan error, loadConnections)
	for w := range dialers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < loadConnections; i += dialers {
				if err := askLocal(conns[i]); err != nil {
					errs <- fmt.Errorf("connection %d after idling: %w", i, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	for i, c := range conns {
		c.Close()
		conns[i] = nil
	}
	var after serverSample
	if !waitFor(60*time.Second, func() bool {
		after = mustSample(t, p, httpAddr)
		return after.Connections == 0 && after.Goroutines <= before.Goroutines+5 && after.FDs <= before.FDs+5
	}) {
		t.Errorf("60 s after closing every connection: %v; before them: %v", after, before)
	}
	t.Logf("after closing them: %v", after)
	checkNoServerErrors(t, p)
}

// checkNoServerErrors fails on any ERROR-level line of the server's log.
func checkNoServerErrors(t *testing.T, p *process) {
	t.Helper()
	for _, line := range strings.Split(p.logs.String(), "\n") {
		if strings.Contains(line, "level=ERROR") {
			t.Errorf("server logged an error: %s", line)
		}
	}
}
