// Package cqltest is what the gocql end-to-end tests share: a Target (the
// node they talk to, with its keyspaces made afresh or shared between
// tests) and the checks of their answers (rows as maps, one column of them,
// deep equality, a server error's code), with the values they build (UTC
// times, deterministic timeuuids).
//
// A Target is test/e2e's in-process node or, in test/clusterstore, a
// gateway process over Cassandra: the same scenarios (test/internal/seeds)
// run against both.
//
// Invariants:
//  1. Every session a Target opens for a test is closed when that test
//     ends, except those of SharedKeyspace, which Close closes.
//  2. NewKeyspace and the first SharedKeyspace call for a name drop the
//     keyspace first, so a test never sees rows of an earlier run.
package cqltest

import (
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// Target is a node the tests connect to.
type Target struct {
	// Name says which node in failure messages (its address).
	Name string
	// cluster returns a fresh driver configuration for the node.
	cluster func() *gocql.ClusterConfig
	mu      struct {
		sync.Mutex
		shared map[string]*gocql.Session
	}
}

// NewTarget is the node that cluster configures gocql for; cluster is
// called once per session, and each call must return a configuration of
// its own (the target sets its Keyspace).
func NewTarget(name string, cluster func() *gocql.ClusterConfig) *Target {
	return &Target{Name: name, cluster: cluster}
}

// Cluster is a fresh driver configuration for the node.
func (tg *Target) Cluster() *gocql.ClusterConfig { return tg.cluster() }

// Connect opens a session on the node, in keyspace ks if not empty, and
// closes it when t ends.
func (tg *Target) Connect(t testing.TB, ks string) *gocql.Session {
	t.Helper()
	s := tg.open(t, ks)
	t.Cleanup(s.Close)
	return s
}

func (tg *Target) open(t testing.TB, ks string) *gocql.Session {
	t.Helper()
	c := tg.cluster()
	c.Keyspace = ks
	s, err := c.CreateSession()
	if err != nil {
		t.Fatalf("connect to %s (keyspace %q): %v", tg.Name, ks, err)
	}
	return s
}

// recreate drops keyspace name if it exists and creates it with one
// replica, through a session closed when t ends.
func (tg *Target) recreate(t testing.TB, name string) {
	t.Helper()
	admin := tg.Connect(t, "")
	MustExec(t, admin, "DROP KEYSPACE IF EXISTS "+name)
	MustExec(t, admin, "CREATE KEYSPACE "+name+
		" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
}

// NewKeyspace creates keyspace name afresh and returns a session using it
// (USE through the cluster's Keyspace setting: gocql refuses USE
// statements), closed when t ends.
func (tg *Target) NewKeyspace(t testing.TB, name string) *gocql.Session {
	t.Helper()
	tg.recreate(t, name)
	return tg.Connect(t, name)
}

// SharedKeyspace returns a session in keyspace name. The first call creates
// the keyspace afresh and runs setup in it; later calls reuse both, and
// Close closes the session.
func (tg *Target) SharedKeyspace(t testing.TB, name string, setup ...string) *gocql.Session {
	t.Helper()
	tg.mu.Lock()
	defer tg.mu.Unlock()
	if s := tg.mu.shared[name]; s != nil {
		return s
	}
	tg.recreate(t, name)
	s := tg.open(t, name)
	for _, stmt := range setup {
		if err := s.Query(stmt).Exec(); err != nil {
			s.Close()
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if tg.mu.shared == nil {
		tg.mu.shared = map[string]*gocql.Session{}
	}
	tg.mu.shared[name] = s
	return s
}

// Close closes the sessions of SharedKeyspace.
func (tg *Target) Close() {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	for name, s := range tg.mu.shared {
		s.Close()
		delete(tg.mu.shared, name)
	}
}

// MustExec runs a statement that must succeed.
func MustExec(t testing.TB, s *gocql.Session, stmt string, args ...any) {
	t.Helper()
	if err := s.Query(stmt, args...).Exec(); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// SelectMaps runs a query and returns its rows as gocql's default Go values.
func SelectMaps(t testing.TB, s *gocql.Session, stmt string, args ...any) []map[string]any {
	t.Helper()
	rows, err := s.Query(stmt, args...).Iter().SliceMap()
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	return rows
}

// Column extracts one column of rows, as type T.
func Column[T any](t testing.TB, rows []map[string]any, name string) []T {
	t.Helper()
	out := make([]T, 0, len(rows))
	for i, r := range rows {
		v, ok := r[name].(T)
		if !ok {
			t.Fatalf("row %d: column %q is %T, want %T", i, name, r[name], *new(T))
		}
		out = append(out, v)
	}
	return out
}

// Equal fails t unless got deep-equals want.
func Equal[T any](t testing.TB, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got %v\nwant %v", what, got, want)
	}
}

// ExpectCode fails t unless err is a server error with the given protocol
// error code.
func ExpectCode(t testing.TB, err error, code int) gocql.RequestError {
	t.Helper()
	var re gocql.RequestError
	if !errors.As(err, &re) {
		t.Fatalf("got %v (%T), want a server error with code %#x", err, err, code)
	}
	if re.Code() != code {
		t.Fatalf("got code %#x (%s), want %#x", re.Code(), re.Message(), code)
	}
	return re
}

// UTC builds a UTC time.
func UTC(y int, mo time.Month, d, h, mi, s int) time.Time {
	return time.Date(y, mo, d, h, mi, s, 0, time.UTC)
}

// TimeUUID is a deterministic version-1 UUID for t (node and clock
// sequence fixed by seq), so that tests know the clustering order.
func TimeUUID(t time.Time, seq uint16) gocql.UUID {
	// 100-ns intervals since 1582-10-15, the UUID epoch.
	const unixEpochTicks = 0x01B21DD213814000
	ticks := uint64(t.UnixNano()/100) + unixEpochTicks
	var u gocql.UUID
	u[0], u[1], u[2], u[3] = byte(ticks>>24), byte(ticks>>16), byte(ticks>>8), byte(ticks)
	u[4], u[5] = byte(ticks>>40), byte(ticks>>32)
	u[6], u[7] = byte(ticks>>56)&0x0f|0x10, byte(ticks>>48)
	u[8], u[9] = byte(seq>>8)&0x3f|0x80, byte(seq)
	copy(u[10:], []byte{0, 0, 0, 0, 0, 0xa1})
	return u
}
