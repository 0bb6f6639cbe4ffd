package e2e_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

const (
	counterClients    = 8
	counterIncrements = 500
)

// TestCounterConcurrentIncrements has counterClients sessions add 1 to one
// counter counterIncrements times each, concurrently, and expects the exact
// sum: Cassandra's counters never lose an increment, whatever the
// timestamps (CounterMutation.updateWithCurrentValue gives each local shard
// clock max(now, previous clock + 1), and counter cells merge their contexts
// instead of keeping the newest). It runs once with the server choosing the
// timestamps and once with gocql's default client-side ones, which arrive
// in an order that the partition lock does not follow.
func TestCounterConcurrentIncrements(t *testing.T) {
	admin := newKeyspace(t, "counter_race")
	mustExec(t, admin, "CREATE TABLE c (k int PRIMARY KEY, n counter)")
	for i, mode := range []struct {
		name            string
		clientTimestamp bool
	}{{"server_timestamps", false}, {"client_timestamps", true}} {
		t.Run(mode.name, func(t *testing.T) {
			start := time.Now()
			errs := make([]error, counterClients)
			var wg sync.WaitGroup
			for c := range counterClients {
				cluster := newCluster(node.Host, node.Port)
				cluster.Keyspace = "counter_race"
				cluster.DefaultTimestamp = mode.clientTimestamp
				cluster.Timeout = 10 * time.Second
				s, err := cluster.CreateSession()
				if err != nil {
					t.Fatalf("client %d: %v", c, err)
				}
				t.Cleanup(s.Close)
				wg.Add(1)
				go func() {
					defer wg.Done()
					for n := range counterIncrements {
						if err := s.Query("UPDATE c SET n = n + 1 WHERE k = ?", i).Exec(); err != nil {
							errs[c] = fmt.Errorf("increment %d: %w", n, err)
							return
						}
					}
				}()
			}
			wg.Wait()
			for c, err := range errs {
				if err != nil {
					t.Fatalf("client %d: %v", c, err)
				}
			}
			var n int64
			if err := admin.Query("SELECT n FROM c WHERE k = ?", i).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if want := int64(counterClients * counterIncrements); n != want {
				t.Fatalf("n = %d after %d increments of 1: %d lost", n, want, want-n)
			}
			t.Logf("%d increments in %v", counterClients*counterIncrements, time.Since(start).Round(time.Millisecond))
		})
	}
}

// TestCounterTimestampsBackwards sends increments whose client timestamps
// go backwards, as a client with a skewed clock (or several clients) does.
// Each must count: a counter is not last-write-wins on its total
// (Cells.reconcile merges counter cells; see CounterMutation), so 2000 then
// 1000 gives 2, and a counter batch stamped earlier still adds its two
// increments.
func TestCounterTimestampsBackwards(t *testing.T) {
	s := newKeyspace(t, "counter_skew")
	mustExec(t, s, "CREATE TABLE c (k int PRIMARY KEY, n counter)")
	read := func() int64 {
		t.Helper()
		var n int64
		if err := s.Query("SELECT n FROM c WHERE k = 0").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, ts := range []int64{2000, 1000} {
		if err := s.Query("UPDATE c SET n = n + 1 WHERE k = 0").WithTimestamp(ts).Exec(); err != nil {
			t.Fatalf("increment at %d: %v", ts, err)
		}
	}
	if n := read(); n != 2 {
		t.Fatalf("n = %d after increments stamped 2000 then 1000, want 2", n)
	}
	b := s.NewBatch(gocql.CounterBatch).WithTimestamp(500)
	b.Query("UPDATE c SET n = n + 1 WHERE k = 0")
	b.Query("UPDATE c SET n = n + 10 WHERE k = 0")
	if err := s.ExecuteBatch(b); err != nil {
		t.Fatal(err)
	}
	if n := read(); n != 13 {
		t.Fatalf("n = %d after a counter batch of +1 and +10 stamped 500, want 13", n)
	}
	if err := s.Query("UPDATE c SET n = n - 3 WHERE k = 0").WithTimestamp(1).Exec(); err != nil {
		t.Fatal(err)
	}
	if n := read(); n != 10 {
		t.Fatalf("n = %d after a decrement by 3 stamped 1, want 10", n)
	}
}
