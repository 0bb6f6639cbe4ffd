package server

import (
	"context"
	"testing"

	"github.com/partita-db/partita/internal/auth"
	"github.com/partita-db/partita/internal/storage"
)

// newTestRoles is the role manager of a new node with password
// authentication: its only role is cassandra/cassandra.
func newTestRoles(t *testing.T) *auth.Manager {
	t.Helper()
	st, err := storage.Open(storage.Options{Dir: t.TempDir(), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	m, err := auth.Open(context.Background(), st, auth.Options{PasswordAuthentication: true})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
