package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gocql/gocql"
)

// errorFrames counts the ERROR frames a gocql session receives.
type errorFrames struct{ n atomic.Int32 }

func (e *errorFrames) ObserveFrameHeader(_ context.Context, h gocql.ObservedFrameHeader) {
	if h.Opcode == 0x00 { // ERROR (native protocol v4 §2.4)
		e.n.Add(1)
	}
}

// TestPreparedStatementEvictedAndReprepared: with a 1 MiB
// prepared_statements_cache_size, ten distinct ~100 KiB statements do not
// all stay prepared. Executing the first again gets UNPREPARED from the
// server, and gocql prepares it again and retries without the application
// seeing an error (gocql conn.executeQuery's RequestErrUnprepared case).
// Cassandra's cache evicts the same way (QueryProcessor.java), so drivers
// are built for it.
func TestPreparedStatementEvictedAndReprepared(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "partita.yaml")
	if err := os.WriteFile(cfgPath, []byte("prepared_statements_cache_size: 1MiB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startPartita(t, filepath.Join(dir, "data"), "--config", cfgPath)
	cluster := newCluster(p.host, p.port)
	errs := &errorFrames{}
	cluster.FrameHeaderObserver = errs
	s, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mustExec(t, s, "CREATE KEYSPACE evict WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE evict.t (k int PRIMARY KEY, v text)")
	insert := func(i int) string {
		return fmt.Sprintf("INSERT INTO evict.t (k, v) VALUES (?, '%s')", strings.Repeat(string(rune('a'+i)), 100<<10))
	}
	for i := range 10 {
		mustExec(t, s, insert(i), i)
	}
	if n := errs.n.Load(); n != 0 {
		t.Fatalf("%d errors before any statement was evicted", n)
	}
	mustExec(t, s, insert(0), 100) // evicted by now: UNPREPARED, prepared again, retried
	if errs.n.Load() == 0 {
		t.Fatal("the first statement was still prepared: the cache kept 1 MiB of statements and more")
	}
	var v string
	if err := s.Query("SELECT v FROM evict.t WHERE k = 100").Scan(&v); err != nil || v != strings.Repeat("a", 100<<10) {
		t.Fatalf("the re-prepared INSERT did not write its row: %v", err)
	}
}
