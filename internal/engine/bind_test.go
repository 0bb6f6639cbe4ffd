package engine_test

import (
	"context"
	"testing"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/engine"
)

// TestBindValueCount: each request refuses values that do not match the
// statement's markers with its own message (answers of Cassandra 5.0.6
// through its Python driver; a QUERY's is in
// random_repros_cassandra/bind_marker_count).
func TestBindValueCount(t *testing.T) {
	h := cqltest.New(t)
	mustExec(t, h.Session, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (pk int, ck int, v int, PRIMARY KEY (pk, ck))")
	ctx := context.Background()
	const insert = "INSERT INTO ks.t (pk, ck, v) VALUES (0, 0, ?)"
	p, err := h.Session.Prepare(ctx, insert)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		run  func() error
		want string
	}{
		{"query", func() error {
			_, err := h.Session.Query(ctx, insert, &engine.Options{Values: []engine.Value{int32Value(1), int32Value(2)}})
			return err
		}, "Invalid amount of bind variables"},
		{"query without markers", func() error {
			_, err := h.Session.Query(ctx, "USE ks", &engine.Options{Values: []engine.Value{int32Value(1)}})
			return err
		}, "Invalid amount of bind variables"},
		{"execute", func() error {
			_, err := h.Session.Execute(ctx, p.PreparedID, &engine.Options{})
			return err
		}, "there were 1 markers(?) in CQL but 0 bound variables"},
		{"batch", func() error {
			_, err := h.Session.Batch(ctx, &engine.BatchRequest{Statements: []engine.BatchStatement{{Query: insert}}})
			return err
		}, "There were 1 markers(?) in CQL but 0 bound variables"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			if e := cqlerr.As(err); err == nil || e.Code != cqlerr.Invalid || e.Message != c.want {
				t.Errorf("got %v, want Invalid %q", err, c.want)
			}
		})
	}
}
