package engine_test

import (
	"context"
	"fmt"
	"math/rand"
	"sync"
	"testing"

	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/engine"
)

// TestViewConcurrentKeyMoves has several sessions move the view key of the
// same base rows at once, with server timestamps and with client ones out
// of order, and deletes among them; afterwards the view holds exactly the
// base's rows (one per live base row, at its current key).
func TestViewConcurrentKeyMoves(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.SplitTick, cfg.GCInterval = 0, 0
	cfg.MaterializedViewsEnabled = true
	h := cqltest.NewWithConfig(t, cfg)
	ctx := context.Background()
	for _, stmt := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int, c int, v int, w int, PRIMARY KEY (k, c))",
		"CREATE MATERIALIZED VIEW ks.by_v AS SELECT * FROM ks.t WHERE k IS NOT NULL AND c IS NOT NULL AND v IS NOT NULL PRIMARY KEY (v, k, c)",
	} {
		if _, err := h.Session.Query(ctx, stmt, nil); err != nil {
			t.Fatal(stmt, err)
		}
	}
	const workers, writes, rows = 4, 150, 6
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			s := h.Engine.NewSession()
			rnd := rand.New(rand.NewSource(seed))
			for i := 0; i < writes; i++ {
				k, c, v := rnd.Intn(2), rnd.Intn(rows/2), rnd.Intn(5)
				var stmt string
				switch rnd.Intn(6) {
				case 0:
					stmt = fmt.Sprintf("DELETE FROM ks.t WHERE k = %d AND c = %d", k, c)
				case 1:
					stmt = fmt.Sprintf("UPDATE ks.t USING TIMESTAMP %d SET v = %d WHERE k = %d AND c = %d", 1+rnd.Intn(1000), v, k, c)
				case 2:
					stmt = fmt.Sprintf("DELETE v FROM ks.t WHERE k = %d AND c = %d", k, c)
				case 3:
					stmt = fmt.Sprintf("BEGIN BATCH UPDATE ks.t SET v = %d WHERE k = %d AND c = %d; UPDATE ks.t SET w = %d WHERE k = %d AND c = %d; APPLY BATCH", v, k, c, v, k, (c+1)%(rows/2))
				default:
					stmt = fmt.Sprintf("UPDATE ks.t SET v = %d, w = %d WHERE k = %d AND c = %d", v, i, k, c)
				}
				if _, err := s.Query(ctx, stmt, nil); err != nil {
					errs <- fmt.Errorf("%s: %w", stmt, err)
					return
				}
			}
		}(int64(w))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	want := h.Exec("SELECT v, k, c, w FROM ks.t WHERE v > -1 ALLOW FILTERING", 0)
	base := h.Exec("SELECT k, c, v, w FROM ks.t", 0)
	got := h.Exec("SELECT v, k, c, w FROM ks.by_v", 0)
	t.Logf("view %s", countRows(got))
	if countRows(got) != countRows(want) || !sameRows(t, h, got) {
		t.Fatalf("view:\n%s\nbase:\n%s", got, base)
	}
}

func countRows(out string) string {
	for i := len(out) - 2; i >= 0; i-- {
		if out[i] == '\n' {
			return out[i+1:]
		}
	}
	return out
}

// sameRows checks every view row against the base row it names.
func sameRows(t *testing.T, h *cqltest.Harness, view string) bool {
	t.Helper()
	var lines []string
	start := 0
	for i := 0; i < len(view); i++ {
		if view[i] == '\n' {
			lines = append(lines, view[start:i])
			start = i + 1
		}
	}
	for _, line := range lines[1 : len(lines)-1] {
		var v, k, c int
		var w string
		if _, err := fmt.Sscanf(line, "%d | %d | %d | %s", &v, &k, &c, &w); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		base := h.Exec(fmt.Sprintf("SELECT v, w FROM ks.t WHERE k = %d AND c = %d", k, c), 0)
		if want := fmt.Sprintf("v | w\n%d | %s\n(1 rows)\n", v, w); base != want {
			t.Errorf("view row %q, base row:\n%s", line, base)
			return false
		}
	}
	return true
}
