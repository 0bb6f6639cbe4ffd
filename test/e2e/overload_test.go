package e2e_test

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/protocol"
)

// overloadKeys numbers the inserts of TestOverloadedPoint, each a row of
// its own.
var overloadKeys atomic.Int64

// overloadCounts are the answers a load phase got.
type overloadCounts struct{ ok, overloaded, other atomic.Int64 }

// pipelinedWriters runs conns connections that each keep up to depth
// inserts of blob-sized values in flight for d, after STARTUP with
// THROW_ON_OVERLOAD=1, and counts the answers.
func pipelinedWriters(t *testing.T, addr string, conns, depth, blob int, d time.Duration) *overloadCounts {
	t.Helper()
	var counts overloadCounts
	var firstOther atomic.Value
	var wg sync.WaitGroup
	stop := time.Now().Add(d)
	for range conns {
		nc, err := net.DialTimeout("tcp", addr, rawTimeout)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		r := bufio.NewReader(nc)
		startup := protocol.AppendRequest(nil, 0, &protocol.Startup{Options: map[string]string{
			protocol.StartupCQLVersion: "3.0.0", protocol.StartupThrowOnOverload: "1"}})
		if _, err := nc.Write(startup); err != nil {
			t.Fatal(err)
		}
		if f, err := protocol.ReadFrame(r, protocol.DefaultMaxBody); err != nil || f.Header.Opcode != protocol.OpReady {
			t.Fatalf("STARTUP: %v", err)
		}
		slots := make(chan int16, depth)
		for s := range depth {
			slots <- int16(s + 1)
		}
		value := make([]byte, blob)
		wg.Add(2)
		sent := make(chan struct{}, depth)
		go func() { // writer
			defer wg.Done()
			defer close(sent)
			for time.Now().Before(stop) {
				stream := <-slots
				key := binary.BigEndian.AppendUint32(nil, uint32(overloadKeys.Add(1)))
				q := &protocol.Query{Query: "INSERT INTO ov.t (k, v) VALUES (?, ?)", Params: protocol.QueryParameters{
					Consistency: protocol.One, Flags: protocol.FlagValues,
					Values: []protocol.Value{{Bytes: key}, {Bytes: value}}}}
				nc.SetWriteDeadline(time.Now().Add(rawTimeout))
				if _, err := nc.Write(protocol.AppendRequest(nil, stream, q)); err != nil {
					return
				}
				sent <- struct{}{}
			}
		}()
		go func() { // reader
			defer wg.Done()
			for range sent {
				nc.SetReadDeadline(time.Now().Add(rawTimeout))
				f, err := protocol.ReadFrame(r, protocol.DefaultMaxBody)
				if err != nil {
					counts.other.Add(1)
					firstOther.CompareAndSwap(nil, err.Error())
					return
				}
				resp, _, err := protocol.DecodeResponse(f)
				e, isError := resp.(*protocol.ErrorMessage)
				switch {
				case err != nil:
					counts.other.Add(1)
				case isError && cqlerr.Is(e.Err, cqlerr.Overloaded):
					counts.overloaded.Add(1)
				case isError:
					counts.other.Add(1)
					firstOther.CompareAndSwap(nil, e.Err.Error())
				default:
					counts.ok.Add(1)
				}
				slots <- f.Header.Stream
			}
		}()
	}
	wg.Wait()
	if v := firstOther.Load(); v != nil {
		t.Logf("first other answer: %v", v)
	}
	return &counts
}

// TestOverloadedPoint measures the node at the point where it starts to
// answer Overloaded: with a 1 MiB request budget, two connections keeping
// 8 inserts of 16 KiB in flight stay under it, and sixteen keeping 32 each
// pass it. Past it the node answers the excess with Overloaded (to
// drivers that asked for it with THROW_ON_OVERLOAD), goes on committing
// at the rate it can, and serves every other client. The figures are
// logged; the assertions are about behaviour, not speed.
func TestOverloadedPoint(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "partita.yaml")
	if err := os.WriteFile(cfg, []byte("native_transport_max_request_data_in_flight: 1MiB\nnative_transport_max_request_data_in_flight_per_ip: 1MiB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, _ := startMeasuredPartita(t, "--config", cfg)
	addr := fmt.Sprintf("%s:%d", p.host, p.port)
	c, err := dialRaw(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, q := range []string{"CREATE KEYSPACE ov WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ov.t (k int PRIMARY KEY, v blob)"} {
		if _, err := c.query(q); err != nil {
			t.Fatal(err)
		}
	}
	const blob = 16 << 10
	phase := func(name string, conns, depth int) *overloadCounts {
		d := 5 * time.Second
		n := pipelinedWriters(t, addr, conns, depth, blob, d)
		t.Logf("%s: %d connections x %d in flight: %.0f inserts/s committed, %.0f/s Overloaded, %d other answers",
			name, conns, depth, float64(n.ok.Load())/d.Seconds(), float64(n.overloaded.Load())/d.Seconds(), n.other.Load())
		return n
	}
	under := phase("under the budget", 2, 8)
	over := phase("over the budget", 16, 32)
	if under.ok.Load() == 0 || under.other.Load() != 0 {
		t.Errorf("under the budget: %d committed, %d other answers", under.ok.Load(), under.other.Load())
	}
	if over.overloaded.Load() == 0 || over.ok.Load() == 0 || over.other.Load() != 0 {
		t.Errorf("over the budget: %d committed, %d Overloaded, %d other answers; want some of the first two and none of the last",
			over.ok.Load(), over.overloaded.Load(), over.other.Load())
	}
	t.Logf("committed over/under the budget: %.2fx", float64(over.ok.Load())/float64(max(under.ok.Load(), 1)))
	// Another client is served at once.
	if err := askLocal(c); err != nil {
		t.Fatalf("after the overload: %v", err)
	}
	rows, err := c.query("SELECT count(*) FROM ov.t")
	if err != nil || len(rows) != 1 || int64(binary.BigEndian.Uint64(rows[0][0])) != under.ok.Load()+over.ok.Load() {
		t.Errorf("count(*) = %v (%v), want every committed insert, %d", rows, err, under.ok.Load()+over.ok.Load())
	}
	checkNoServerErrors(t, p)
}
