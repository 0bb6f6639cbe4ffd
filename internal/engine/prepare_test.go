package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/engine"
)

// TestPreparedBatchText: a BEGIN BATCH ... APPLY BATCH text can be prepared
// and executed with its bind values, as Cassandra allows since 1.2
// (CASSANDRA-4202; gocql prepares every such text).
func TestPreparedBatchText(t *testing.T) {
	h := cqltest.New(t)
	mustExec(t, h.Session, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.a (k int PRIMARY KEY, v int)", "CREATE TABLE ks.b (k int PRIMARY KEY, v int)")
	ctx := context.Background()
	p, err := h.Session.Prepare(ctx, "BEGIN BATCH INSERT INTO ks.a (k, v) VALUES (?, ?); INSERT INTO ks.b (k, v) VALUES (?, 7); APPLY BATCH")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.BindVariables) != 3 || p.BindVariables[0].Table != "a" || p.BindVariables[2].Name != "k" {
		t.Fatalf("bind variables %+v", p.BindVariables)
	}
	if _, err := h.Session.Execute(ctx, p.PreparedID, &engine.Options{Values: []engine.Value{int32Value(1), int32Value(2), int32Value(3)}}); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]int32{"SELECT v FROM ks.a WHERE k = 1": 2, "SELECT v FROM ks.b WHERE k = 3": 7} {
		res, err := h.Session.Query(ctx, q, nil)
		if err != nil || len(res.Rows) != 1 || string(res.Rows[0][0]) != string(int32Value(want).Bytes) {
			t.Fatalf("%s: %v %v", q, err, res)
		}
	}
}

// TestBoundNullTTL: a TTL bound to null or to an empty value means no TTL,
// even on a table with default_time_to_live (CASSANDRA-12216); an unset
// TTL leaves the table's default.
func TestBoundNullTTL(t *testing.T) {
	h := cqltest.New(t)
	mustExec(t, h.Session, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v int) WITH default_time_to_live = 1000")
	ctx := context.Background()
	p, err := h.Session.Prepare(ctx, "INSERT INTO ks.t (k, v) VALUES (?, 1) USING TTL ?")
	if err != nil {
		t.Fatal(err)
	}
	for k, ttl := range []engine.Value{{Bytes: nil}, {Bytes: []byte{}}, {Unset: true}, int32Value(7)} {
		if _, err := h.Session.Execute(ctx, p.PreparedID, &engine.Options{Values: []engine.Value{int32Value(int32(k)), ttl}}); err != nil {
			t.Fatalf("TTL %+v: %v", ttl, err)
		}
	}
	// A second may pass between the write and the read.
	for k, want := range [][]string{{"null"}, {"null"}, {"1000", "999"}, {"7", "6"}} {
		got := h.Exec(fmt.Sprintf("SELECT ttl(v) FROM ks.t WHERE k = %d", k), 0)
		if !strings.Contains(got, "\n"+want[0]+"\n") && (len(want) == 1 || !strings.Contains(got, "\n"+want[1]+"\n")) {
			t.Errorf("k = %d: TTL\n%s\nwant %s", k, got, want[0])
		}
	}
}
