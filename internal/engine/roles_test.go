package engine_test

import (
	"context"
	"testing"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/engine"
)

// TestPreparedRoleStatement: a prepared role statement is checked as the
// role of the session that executes it, when it executes.
func TestPreparedRoleStatement(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.SplitTick, cfg.GCInterval = 0, 0
	cfg.Auth.PasswordAuthentication = true
	h := cqltest.NewWithConfig(t, cfg)
	ctx := context.Background()
	admin := h.Engine.NewSession()
	admin.Login("cassandra")
	if _, err := admin.Query(ctx, "CREATE ROLE plain WITH LOGIN = true AND PASSWORD = 'p'", nil); err != nil {
		t.Fatal(err)
	}
	prep, err := admin.Prepare(ctx, "CREATE ROLE boss WITH SUPERUSER = true")
	if err != nil {
		t.Fatal(err)
	}
	plain := h.Engine.NewSession()
	plain.Login("plain")
	_, err = plain.Execute(ctx, prep.PreparedID, nil)
	if e := cqlerr.As(err); e == nil || e.Code != cqlerr.Unauthorized ||
		e.Message != "Only superusers can create a role with superuser status" {
		t.Fatalf("executed as plain: %v", err)
	}
	if _, err := admin.Execute(ctx, prep.PreparedID, nil); err != nil {
		t.Fatalf("executed as cassandra: %v", err)
	}
	list, err := plain.Prepare(ctx, "LIST ROLES")
	if err != nil {
		t.Fatal(err)
	}
	res, err := plain.Execute(ctx, list.PreparedID, nil)
	if err != nil || len(res.Rows) != 3 {
		t.Fatalf("LIST ROLES: %v rows, %v", res, err)
	}
}

// TestPreparedStatementAuthorization: with authorizer: CassandraAuthorizer a
// prepared statement is checked as the executing session's role on every
// EXECUTE, so a GRANT or REVOKE counts without preparing again.
func TestPreparedStatementAuthorization(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.SplitTick, cfg.GCInterval = 0, 0
	cfg.Auth.PasswordAuthentication, cfg.Auth.Authorization = true, true
	h := cqltest.NewWithConfig(t, cfg)
	ctx := context.Background()
	admin := h.Engine.NewSession()
	admin.Login("cassandra")
	for _, q := range []string{
		"CREATE ROLE app WITH LOGIN = true AND PASSWORD = 'p'",
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v int)",
	} {
		if _, err := admin.Query(ctx, q, nil); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	app := h.Engine.NewSession()
	app.Login("app")
	sel, err := app.Prepare(ctx, "SELECT v FROM ks.t WHERE k = 1")
	if err != nil {
		t.Fatal(err)
	}
	ins, err := app.Prepare(ctx, "INSERT INTO ks.t (k, v) VALUES (1, 1)")
	if err != nil {
		t.Fatal(err)
	}
	wantUnauthorized := func(id []byte, msg string) {
		t.Helper()
		_, err := app.Execute(ctx, id, nil)
		if e := cqlerr.As(err); e == nil || e.Code != cqlerr.Unauthorized || e.Message != msg {
			t.Fatalf("execute: %v, want %q", err, msg)
		}
	}
	wantUnauthorized(sel.PreparedID, "User app has no SELECT permission on <table ks.t> or any of its parents")
	wantUnauthorized(ins.PreparedID, "User app has no MODIFY permission on <table ks.t> or any of its parents")
	batch := &engine.BatchRequest{Statements: []engine.BatchStatement{{ID: ins.PreparedID}}}
	if _, err := app.Batch(ctx, batch); cqlerr.As(err) == nil || cqlerr.As(err).Code != cqlerr.Unauthorized {
		t.Fatalf("batch: %v", err)
	}
	if _, err := admin.Query(ctx, "GRANT SELECT ON KEYSPACE ks TO app", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Execute(ctx, sel.PreparedID, nil); err != nil {
		t.Fatalf("after GRANT: %v", err)
	}
	if _, err := admin.Query(ctx, "REVOKE SELECT ON KEYSPACE ks FROM app", nil); err != nil {
		t.Fatal(err)
	}
	wantUnauthorized(sel.PreparedID, "User app has no SELECT permission on <table ks.t> or any of its parents")
}

// TestRoleStatementInBatch: a protocol BATCH takes only writes, by text or
// prepared id.
func TestRoleStatementInBatch(t *testing.T) {
	h := cqltest.New(t)
	ctx := context.Background()
	prep, err := h.Session.Prepare(ctx, "LIST ROLES")
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []engine.BatchStatement{{Query: "CREATE ROLE r"}, {ID: prep.PreparedID}} {
		_, err := h.Session.Batch(ctx, &engine.BatchRequest{Statements: []engine.BatchStatement{st}})
		if e := cqlerr.As(err); e == nil || e.Code != cqlerr.Invalid ||
			e.Message != "Invalid statement in batch: only UPDATE, INSERT and DELETE statements are allowed." {
			t.Fatalf("%+v: %v", st, err)
		}
	}
}
