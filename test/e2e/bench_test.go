package e2e_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// benchSession connects to the shared node with a keyspace holding
// bench.events (seed 004's shape) and returns the session.
func benchSession(b *testing.B) *gocql.Session {
	b.Helper()
	c := newCluster(node.Host, node.Port)
	s, err := c.CreateSession()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	for _, stmt := range []string{
		"CREATE KEYSPACE IF NOT EXISTS bench WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE IF NOT EXISTS bench.events (user_id text, bucket_date date, event_time timestamp, event_id timeuuid, " +
			"payload text, PRIMARY KEY ((user_id, bucket_date), event_time, event_id)) WITH CLUSTERING ORDER BY (event_time DESC, event_id ASC)",
	} {
		if err := s.Query(stmt).Exec(); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkInsertPrepared is one acknowledged (fsynced) single-row write
// through gocql, from parallel clients.
func BenchmarkInsertPrepared(b *testing.B) {
	s := benchSession(b)
	var seq atomic.Int64
	base := utc(2025, 3, 8, 0, 0, 0)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := seq.Add(1)
			if err := s.Query("INSERT INTO bench.events (user_id, bucket_date, event_time, event_id, payload) VALUES (?, ?, ?, ?, ?)",
				"u-ins", "2025-03-08", base, timeUUID(base, uint16(i)), "payload").Exec(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSelectLatest20 reads seed 004 §7.2's latest 20 events of one
// partition.
func BenchmarkSelectLatest20(b *testing.B) {
	s := benchSession(b)
	base := utc(2025, 3, 8, 0, 0, 0)
	for i := range 200 {
		ts := base.Add(time.Duration(i) * time.Second)
		if err := s.Query("INSERT INTO bench.events (user_id, bucket_date, event_time, event_id, payload) VALUES (?, ?, ?, ?, ?)",
			"u-read", "2025-03-08", ts, timeUUID(ts, 1), "payload").Exec(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		iter := s.Query("SELECT event_time, event_id, payload FROM bench.events WHERE user_id = ? AND bucket_date = ? LIMIT 20",
			"u-read", "2025-03-08").Iter()
		if n := iter.NumRows(); n != 20 {
			b.Fatalf("%d rows", n)
		}
		if err := iter.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
