package e2e_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/token"
)

// composite is Cassandra's CompositeType encoding of a partition key: per
// component a 2-byte length, the bytes and 0x00.
func composite(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = binary.BigEndian.AppendUint16(b, uint16(len(p)))
		b = append(append(b, p...), 0)
	}
	return b
}

// TestTokenRouting checks that the routing key gocql builds from the
// prepared statement's partition key indexes is the key Partita hashes:
// token(k) from the server equals Murmur3 of gocql's routing key, and
// gocql's bytes are the serialized key (reference §7).
func TestTokenRouting(t *testing.T) {
	s := newKeyspace(t, "go_tokens")
	mustExec(t, s, "CREATE TABLE tok_text (k text PRIMARY KEY, v int)")
	mustExec(t, s, "CREATE TABLE tok_int (k int PRIMARY KEY, v int)")
	mustExec(t, s, "CREATE TABLE tok_bigint (k bigint PRIMARY KEY, v int)")
	mustExec(t, s, "CREATE TABLE tok_uuid (k uuid PRIMARY KEY, v int)")
	mustExec(t, s, "CREATE TABLE tok_composite (v int, b text, a int, PRIMARY KEY ((a, b)))")
	u := gocql.MustRandomUUID()
	cases := []struct {
		name   string
		insert string
		token  string
		args   []any
		key    []byte
	}{
		{"text", "INSERT INTO tok_text (k, v) VALUES (?, 1)", "SELECT token(k) FROM tok_text WHERE k = ?", []any{"hello"}, []byte("hello")},
		{"text utf-8", "INSERT INTO tok_text (k, v) VALUES (?, 1)", "SELECT token(k) FROM tok_text WHERE k = ?", []any{"中文键"}, []byte("中文键")},
		{"int", "INSERT INTO tok_int (k, v) VALUES (?, 1)", "SELECT token(k) FROM tok_int WHERE k = ?", []any{-7}, binary.BigEndian.AppendUint32(nil, uint32(0xfffffff9))},
		{"bigint", "INSERT INTO tok_bigint (k, v) VALUES (?, 1)", "SELECT token(k) FROM tok_bigint WHERE k = ?", []any{int64(1) << 40}, binary.BigEndian.AppendUint64(nil, 1<<40)},
		{"uuid", "INSERT INTO tok_uuid (k, v) VALUES (?, 1)", "SELECT token(k) FROM tok_uuid WHERE k = ?", []any{u}, u[:]},
		// Bind markers out of key order: the routing key follows the key.
		{"composite", "INSERT INTO tok_composite (b, v, a) VALUES (?, 1, ?)", "SELECT token(a, b) FROM tok_composite WHERE b = ? AND a = ?",
			[]any{"x", 5}, composite([]byte{0, 0, 0, 5}, []byte("x"))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := s.Query(c.insert, c.args...)
			rk, err := q.GetRoutingKey()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(rk, c.key) {
				t.Fatalf("gocql routing key %x, want %x", rk, c.key)
			}
			if err := q.Exec(); err != nil {
				t.Fatal(err)
			}
			var got int64
			if err := s.Query(c.token, c.args...).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if want := int64(token.Of(rk)); got != want {
				t.Fatalf("server token %d, Murmur3 of the routing key %d", got, want)
			}
		})
	}
}

// TestTokenKnownVector checks Cassandra's Murmur3Partitioner vector for
// int 1 (reference §7).
func TestTokenKnownVector(t *testing.T) {
	s := sharedKeyspace(t, "go_tokens_vector", "CREATE TABLE tok_int (k int PRIMARY KEY, v int)")
	mustExec(t, s, "INSERT INTO tok_int (k, v) VALUES (1, 0)")
	var got int64
	if err := s.Query("SELECT token(k) FROM tok_int WHERE k = 1").Scan(&got); err != nil || got != -4069959284402364209 {
		t.Fatalf("token(1) = %d, %v", got, err)
	}
}

// TestTokenAwarePolicy routes through gocql's token-aware host selection,
// which builds its ring from system.local's tokens and partitioner.
func TestTokenAwarePolicy(t *testing.T) {
	sharedKeyspace(t, "go_tokens_policy", "CREATE TABLE tok_int (k int PRIMARY KEY, v int)")
	c := newCluster(node.Host, node.Port)
	c.Keyspace = "go_tokens_policy"
	c.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
	ts, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	for i := range 20 {
		iter := ts.Query("SELECT v FROM tok_int WHERE k = ?", i).Iter()
		host := iter.Host()
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
		if host == nil || host.ConnectAddress().String() != node.Host || host.Port() != node.Port {
			t.Fatalf("query routed to %v, want %s", host, node.Addr)
		}
	}
}
