package e2e_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

const (
	lwtClients    = 16
	lwtIncrements = 200
	// lwtBudget bounds the whole contention run; a lost wake-up or a
	// livelock shows as a timeout rather than a hung test.
	lwtBudget = 90 * time.Second
)

// casClient is one client's record of its compare-and-set increments.
type casClient struct {
	applied    int   // updates that reported [applied] = true
	notApplied int   // updates that reported false
	wrote      []int // the values its applied updates wrote
	err        error
}

// TestLWTConcurrentIncrements has lwtClients clients, each with a session of
// its own, race to increment one cell through
// `UPDATE t SET v = ? WHERE k = 0 IF v = ?`, retrying on not applied with
// the current value the failed condition returns. Paxos makes each
// transition cur -> cur+1 happen once: the values written by applied updates
// are exactly 1..N with no repeat, N is the final value, and no applied
// increment is lost.
func TestLWTConcurrentIncrements(t *testing.T) {
	admin := newKeyspace(t, "lwt_counter")
	mustExec(t, admin, "CREATE TABLE t (k int PRIMARY KEY, v int)")
	applied, err := admin.Query("INSERT INTO t (k, v) VALUES (0, 0) IF NOT EXISTS").ScanCAS()
	if err != nil || !applied {
		t.Fatalf("INSERT IF NOT EXISTS: applied %v, %v", applied, err)
	}

	clients := make([]casClient, lwtClients)
	deadline := time.Now().Add(lwtBudget)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range clients {
		c := newCluster(node.Host, node.Port)
		c.Keyspace = "lwt_counter"
		c.Timeout = 10 * time.Second
		s, err := c.CreateSession()
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
		t.Cleanup(s.Close)
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Half the clients read the failed condition's columns into a
			// map, half into a variable.
			clients[i].err = incrementCAS(s, &clients[i], i%2 == 0, deadline)
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
		if c.applied != lwtIncrements || len(c.wrote) != c.applied {
			t.Errorf("client %d: %d applied (%d values recorded), want %d", i, c.applied, len(c.wrote), lwtIncrements)
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
		lwtClients, total, retries, elapsed.Round(time.Millisecond), float64(total+retries)/elapsed.Seconds())
}

// incrementCAS makes lwtIncrements applied increments of t.v for k = 0:
// read v, then UPDATE ... SET v = cur+1 IF v = cur until one applies,
// taking cur from each not-applied result.
func incrementCAS(s *gocql.Session, c *casClient, useMap bool, deadline time.Time) error {
	var cur int
	if err := s.Query("SELECT v FROM t WHERE k = 0").Scan(&cur); err != nil {
		return fmt.Errorf("read v: %w", err)
	}
	for c.applied < lwtIncrements {
		if time.Now().After(deadline) {
			return fmt.Errorf("out of time after %d not-applied updates", c.notApplied)
		}
		q := s.Query("UPDATE t SET v = ? WHERE k = 0 IF v = ?", cur+1, cur)
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
