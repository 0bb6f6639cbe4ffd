package clusterstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/clusterstore"
	"github.com/partita-db/partita/internal/split"
)

// TestSingleGatewayAfterSharedSplit: once a partition was split while
// gateways shared the keyspace's split states, a store with SingleGateway
// (which keeps states as metadata and never reads the shared rows, so it
// read 50 of the 300 rows here) refuses the keyspace; without
// SingleGateway every row is read.
func TestSingleGatewayAfterSharedSplit(t *testing.T) {
	cfg := clusterConfig(t)
	ks := newKeyspace("g2_switch")
	t.Cleanup(func() { dropKeyspace(t, cfg, ks) })
	ctx := context.Background()
	a := openSplitGateway(t, cfg, ks, "A")
	ref := newG2Reference(t)
	p := logical("switch")
	for k := range 300 {
		if err := ref.write(ctx, a.layer, p, k, k%10, int64(10*(k+1))); err != nil {
			t.Fatal(err)
		}
	}
	s, err := a.layer.Force(ctx, p, "range", split.Policy{MaxRows: 100})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.layer.Finish(ctx, s, 100); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, a.layer, p); n != 300 {
		t.Fatalf("the shared gateway reads %d rows, want 300", n)
	}
	a.store.Close()

	single, err := clusterstore.Open(ctx, clusterstore.Options{Cluster: cfg, Keyspace: ks, Consistency: gocql.One, SingleGateway: true})
	if err == nil {
		single.Close()
		t.Fatal("a single gateway opened a keyspace with shared split states")
	}
	if !strings.Contains(err.Error(), "holds split states shared by several gateways") {
		t.Fatalf("the refusal does not say why: %v", err)
	}
	b := openSplitGateway(t, cfg, ks, "B")
	defer b.store.Close()
	if n := countRows(t, b.layer, p); n != 300 {
		t.Fatalf("a shared gateway opened after reads %d rows, want 300", n)
	}
	sameAsReference(t, ref, p, b)
}

// TestSingleGatewayOpensFreshKeyspace: with no shared state rows,
// SingleGateway opens the keyspace (again, after a first open).
func TestSingleGatewayOpensFreshKeyspace(t *testing.T) {
	cfg := clusterConfig(t)
	ks := newKeyspace("single_fresh")
	t.Cleanup(func() { dropKeyspace(t, cfg, ks) })
	for range 2 {
		st, err := clusterstore.Open(context.Background(), clusterstore.Options{Cluster: cfg, Keyspace: ks, Consistency: gocql.One, SingleGateway: true})
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
	}
}
