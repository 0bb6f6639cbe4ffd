package engine_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/engine"
)

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// largeStatement is a distinct INSERT of about size bytes of text (one
// long string literal).
func largeStatement(i, size int) string {
	return fmt.Sprintf("INSERT INTO ks.t (k, v) VALUES (%d, '%s')", i, strings.Repeat("x", size))
}

// TestPreparedCacheBytes: the prepared-statement cache is bounded by
// memory, not only by count (Cassandra weighs its cache by each
// statement's measured size, QueryProcessor.java): 100 distinct 512 KiB
// statements used to stay cached, ~2 bytes of heap per byte of text (700
// of 1 MB held 1.5 GiB). Now the heap stays near the 8 MiB bound, the
// least recently used statements are evicted and their EXECUTE is
// answered UNPREPARED, so that a driver prepares them again; a statement
// larger than the whole cache is refused with Cassandra's message.
func TestPreparedCacheBytes(t *testing.T) {
	const (
		statements = 100
		size       = 512 << 10
		bound      = 8 << 20
	)
	cfg := engine.DefaultConfig()
	cfg.PreparedCacheBytes = bound
	h := cqltest.NewWithConfig(t, cfg)
	mustExec(t, h.Session, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v text)")
	ctx := context.Background()
	before := heapInUse()
	ids := make([][]byte, statements)
	for i := range statements {
		res, err := h.Session.Prepare(ctx, largeStatement(i, size))
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = res.PreparedID
	}
	grown := int64(heapInUse()) - int64(before)
	t.Logf("heap grew by %.1f MiB for %d prepared statements of %d KiB", float64(grown)/(1<<20), statements, size>>10)
	if grown > 3*bound {
		t.Fatalf("heap grew by %d MiB with a %d MiB cache", grown>>20, bound>>20)
	}
	_, err := h.Session.Execute(ctx, ids[0], &engine.Options{})
	var ce *cqlerr.Error
	if !errors.As(err, &ce) || ce.Code != cqlerr.Unprepared {
		t.Fatalf("EXECUTE of the least recently used statement: %v, want UNPREPARED", err)
	}
	if _, err := h.Session.Execute(ctx, ids[statements-1], &engine.Options{}); err != nil {
		t.Fatalf("EXECUTE of the latest statement: %v", err)
	}

	_, err = h.Session.Prepare(ctx, largeStatement(-1, bound))
	if !errors.As(err, &ce) || ce.Code != cqlerr.Invalid ||
		!strings.HasPrefix(ce.Message, "Prepared statement of size ") || !strings.Contains(ce.Message, "is larger than allowed maximum of 8 MiB: INSERT INTO ks.t") {
		t.Fatalf("PREPARE of a statement larger than the cache: %v", err)
	}
}
