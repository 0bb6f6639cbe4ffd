package engine_test

import (
	"context"
	"testing"

	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/types"
)

// TestPreparedClusteringSetAndNullOverwrite: bound values take the paths
// literals take (random_repros_cassandra/clustering_in_writes and
// multi_cell_null_assignment); expected answers are Cassandra 5.0.6's,
// through its Python driver. A clustering IN bound as a list or as
// markers is a set of rows, and the statement's static list append is
// applied once per row; a bound null list overwrites at T-1, so elements
// written at T survive it.
func TestPreparedClusteringSetAndNullOverwrite(t *testing.T) {
	h := cqltest.New(t)
	mustExec(t, h.Session, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int, c int, l list<int>, sl list<int> static, PRIMARY KEY (k, c))",
		"UPDATE ks.t USING TIMESTAMP 7 SET l = [9] WHERE k = 3 AND c = 1")
	ctx := context.Background()
	list := func(vs ...int32) engine.Value {
		elems := make([][]byte, len(vs))
		for i, v := range vs {
			elems[i] = int32Value(v).Bytes
		}
		return engine.Value{Bytes: types.EncodeCollection(elems)}
	}
	null := engine.Value{Bytes: nil}
	for _, s := range []struct {
		query  string
		values []engine.Value
	}{
		{"UPDATE ks.t USING TIMESTAMP 5 SET l = l + [1], sl = sl + [2] WHERE k = 1 AND c IN ?", []engine.Value{list(2, 1, 2)}},
		{"UPDATE ks.t USING TIMESTAMP 5 SET l = l + [1], sl = sl + [2] WHERE k = 2 AND c IN (?, ?)", []engine.Value{int32Value(3), int32Value(3)}},
		{"UPDATE ks.t USING TIMESTAMP 7 SET l = ? WHERE k = 3 AND c = 1", []engine.Value{null}},
		{"INSERT INTO ks.t (k, c, l) VALUES (?, ?, ?) USING TIMESTAMP 7", []engine.Value{int32Value(4), int32Value(1), null}},
		{"INSERT INTO ks.t (k, c, l) VALUES (?, ?, ?) USING TIMESTAMP 7", []engine.Value{int32Value(4), int32Value(1), list(8)}},
	} {
		p, err := h.Session.Prepare(ctx, s.query)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.Session.Execute(ctx, p.PreparedID, &engine.Options{Values: s.values}); err != nil {
			t.Fatalf("%s: %v", s.query, err)
		}
	}
	const want = "k | c | l | sl\n" +
		"1 | 1 | [1] | [2, 2]\n" +
		"1 | 2 | [1] | [2, 2]\n" +
		"2 | 3 | [1] | [2]\n" +
		"4 | 1 | [8] | null\n" +
		"3 | 1 | [9] | null\n" +
		"(5 rows)\n"
	if got := h.Exec("SELECT k, c, l, sl FROM ks.t", 0); got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
}
