package engine_test

import (
	"context"
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
