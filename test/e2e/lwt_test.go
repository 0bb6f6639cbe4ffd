package e2e_test

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

const (
	lwtClients    = 16
	lwtIncrements = 200
)

// casClient is one client's record of its compare-and-set increments.
type casClient struct {
	applied    int   // updates that reported [applied] = true
	notApplied int   // updates that reported false
	wrote      []int // the values its applied updates wrote
	err        error
	// skew shifts the client-side timestamp of each update from the
	// client's clock (zero: gocql's own default timestamp).
	skew time.Duration
}

// TestLWTConcurrentIncrements has clients, each with a session of its own,
// race to increment one cell through `UPDATE t SET v = ? WHERE k = 0 IF v =
// ?`, retrying on not applied with the current value the failed condition
// returns. Paxos makes each transition cur -> cur+1 happen once: the values
// written by applied updates are exactly 1..N with no repeat, N is the
// final value, and no applied increment is lost.
//
// With every client on one clock, each applied update is stamped after the
// one it supersedes (its client saw that value first), so writing at the
// client's timestamp looked right; the skewed subtest gives each client a
// clock behind by a different amount, as clients on several machines have.
// Cassandra ignores the client's timestamp for a conditional write and
// uses its Paxos ballot's (StorageProxy.beginAndRepairPaxos,
// ClientState.getTimestampForPaxos), so the skew must change nothing.
func TestLWTConcurrentIncrements(t *testing.T) {
	t.Run("client_timestamps", func(t *testing.T) {
		runCASIncrements(t, "lwt_counter", lwtClients, lwtIncrements, 0)
	})
	t.Run("skewed_client_clocks", func(t *testing.T) {
		runCASIncrements(t, "lwt_counter_skew", 8, 100, 10*time.Millisecond)
	})
}

// runCASIncrements runs clients x increments compare-and-set increments on
// a fresh keyspace; client i stamps its updates i*skewStep behind its
// clock.
func runCASIncrements(t *testing.T, ks string, clientCount, increments int, skewStep time.Duration) {
	admin := newKeyspace(t, ks)
	mustExec(t, admin, "CREATE TABLE t (k int PRIMARY KEY, v int)")
	applied, err := admin.Query("INSERT INTO t (k, v) VALUES (0, 0) IF NOT EXISTS").ScanCAS()
	if err != nil || !applied {
		t.Fatalf("INSERT IF NOT EXISTS: applied %v, %v", applied, err)
	}

	clients := make([]casClient, clientCount)
	// A lost wake-up or a livelock shows as a failure rather than a hung
	// test: no client's update applied for stallTimeout. A bound on the
	// whole run would fail a slow machine instead (12 s at a load of 15
	// on 2 cores).
	var lastApplied atomic.Int64
	lastApplied.Store(time.Now().UnixNano())
	start := time.Now()
	var wg sync.WaitGroup
	for i := range clients {
		c := newCluster(node.Host, node.Port)
		c.Keyspace = ks
		c.Timeout = 10 * time.Second
		s, err := c.CreateSession()
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
		t.Cleanup(s.Close)
		clients[i].skew = -time.Duration(i) * skewStep
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Half the clients read the failed condition's columns into a
			// map, half into a variable.
			clients[i].err = incrementCAS(s, &clients[i], increments, i%2 == 0, &lastApplied)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)

	var total, retries int
	var wrote []int
	for i, c := range clients {
		if c.err != nil {
			t.Errorf("client %d after %d applied: %v", i, c.applied, c.err)
		}
		if c.applied != increments || len(c.wrote) != c.applied {
			t.Errorf("client %d: %d applied (%d values recorded), want %d", i, c.applied, len(c.wrote), increments)
		}
		total += c.applied
		retries += c.notApplied
		wrote = append(wrote, c.wrote...)
	}
	if t.Failed() {
		t.FailNow()
	}
	// Read at SERIAL (0x0008 in the protocol; gocql types it as a serial
	// level only), which sees every committed Paxos round.
	var final int
	if err := admin.Query("SELECT v FROM t WHERE k = 0").Consistency(gocql.Consistency(gocql.Serial)).Scan(&final); err != nil {
		t.Fatal(err)
	}
	if final != total {
		t.Fatalf("final v = %d, but %d updates reported applied", final, total)
	}
	slices.Sort(wrote)
	for i, v := range wrote {
		if v != i+1 {
			t.Fatalf("applied updates wrote %v...: value %d written twice or never (a lost update)", wrote[max(0, i-3):i+1], i+1)
		}
	}
	t.Logf("%d clients: %d applied, %d not applied, in %v (%.0f conditional updates/s)",
		clientCount, total, retries, elapsed.Round(time.Millisecond), float64(total+retries)/elapsed.Seconds())
}

// incrementCAS makes increments applied increments of t.v for k = 0: read
// v, then UPDATE ... SET v = cur+1 IF v = cur until one applies, taking cur
// from each not-applied result. lastApplied is when any client's update
// last applied (Unix ns).
func incrementCAS(s *gocql.Session, c *casClient, increments int, useMap bool, lastApplied *atomic.Int64) error {
	var cur int
	if err := s.Query("SELECT v FROM t WHERE k = 0").Scan(&cur); err != nil {
		return fmt.Errorf("read v: %w", err)
	}
	for c.applied < increments {
		if stalled := time.Since(time.Unix(0, lastApplied.Load())); stalled > stallTimeout {
			return fmt.Errorf("no client's update applied for %v (%d not applied here)", stalled.Round(time.Second), c.notApplied)
		}
		q := s.Query("UPDATE t SET v = ? WHERE k = 0 IF v = ?", cur+1, cur)
		if c.skew != 0 {
			q = q.WithTimestamp(time.Now().Add(c.skew).UnixMicro())
		}
		var applied bool
		var seen int
		var err error
		if useMap {
			prev := map[string]any{}
			applied, err = q.MapScanCAS(prev)
			if err == nil && !applied {
				v, ok := prev["v"].(int)
				if !ok {
					return fmt.Errorf("not applied at v = %d, returned %v: want the current v", cur, prev)
				}
				seen = v
			}
		} else {
			applied, err = q.ScanCAS(&seen)
		}
		if err != nil {
			return fmt.Errorf("UPDATE IF v = %d: %w", cur, err)
		}
		if applied {
			lastApplied.Store(time.Now().UnixNano())
			c.applied++
			cur++
			c.wrote = append(c.wrote, cur)
			continue
		}
		c.notApplied++
		// v only grows, and the condition v = cur failed: the current
		// value must be past cur.
		if seen <= cur {
			return fmt.Errorf("UPDATE IF v = %d not applied, but the current v it returns is %d", cur, seen)
		}
		cur = seen
	}
	return nil
}
