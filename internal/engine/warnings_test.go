package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/engine"
)

func execAll(t *testing.T, s *engine.Session, qs ...string) {
	t.Helper()
	for _, q := range qs {
		if _, err := s.Query(context.Background(), q, nil); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// TestFilteringWarning: reading 2000 rows to return 2 warns the client.
func TestFilteringWarning(t *testing.T) {
	h := cqltest.New(t)
	execAll(t, h.Session, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int, c int, v int, PRIMARY KEY (k, c))")
	b := &engine.BatchRequest{Type: engine.UnloggedBatch}
	for c := 0; c < 2000; c++ {
		b.Statements = append(b.Statements, engine.BatchStatement{Query: fmt.Sprintf("INSERT INTO ks.t (k, c, v) VALUES (1, %d, %d)", c, c%1000)})
	}
	if _, err := h.Session.Batch(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	res, err := h.Session.Query(context.Background(), "SELECT c FROM ks.t WHERE v = 7 ALLOW FILTERING", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "read 2000 rows and returned 2") {
		t.Fatalf("rows %d, warnings %q", len(res.Rows), res.Warnings)
	}
}

// TestTombstoneThresholds: cell tombstones met by a read warn above
// tombstone_warn_threshold and fail the read above
// tombstone_failure_threshold with ReadFailure (ReadCommand.java).
func TestTombstoneThresholds(t *testing.T) {
	h := cqltest.New(t)
	execAll(t, h.Session, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int, c int, v int, PRIMARY KEY (k, c))")
	write := func(from, to int) {
		b := &engine.BatchRequest{Type: engine.UnloggedBatch}
		for c := from; c < to; c++ {
			b.Statements = append(b.Statements, engine.BatchStatement{Query: fmt.Sprintf("DELETE v FROM ks.t WHERE k = 1 AND c = %d", c)})
		}
		if _, err := h.Session.Batch(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	}
	for from := 0; from < 1500; from += 500 {
		write(from, from+500)
	}
	res, err := h.Session.Query(context.Background(), "SELECT * FROM ks.t WHERE k = 1", nil)
	if err != nil {
		t.Fatal(err)
	}
	// token(1) of an int key is -4069959284402364209 (Murmur3).
	want := "Read 0 live rows and 1500 tombstone cells for query SELECT * FROM ks.t; token -4069959284402364209 (see tombstone_warn_threshold)"
	if len(res.Warnings) != 1 || res.Warnings[0] != want {
		t.Fatalf("warnings %q, want %q", res.Warnings, want)
	}
	for from := 1500; from < 101000; from += 500 {
		write(from, from+500)
	}
	_, err = h.Session.Query(context.Background(), "SELECT * FROM ks.t WHERE k = 1", nil)
	if cqlerr.CodeOf(err) != cqlerr.ReadFailure {
		t.Fatalf("got %v, want ReadFailure", err)
	}
}
