package e2e_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/test/internal/cqltest"
)

// expectCode fails t unless err is a server error with the given protocol
// error code.
func expectCode(t *testing.T, err error, code int) gocql.RequestError {
	t.Helper()
	return cqltest.ExpectCode(t, err, code)
}

func TestErrors(t *testing.T) {
	s := newKeyspace(t, "go_errors")
	mustExec(t, s, "CREATE TABLE probe (k int PRIMARY KEY, v text)")
	mustExec(t, s, "INSERT INTO probe (k, v) VALUES (1, 'alive')")
	alive := func(t *testing.T) {
		t.Helper()
		var v string
		if err := s.Query("SELECT v FROM probe WHERE k = 1").Scan(&v); err != nil || v != "alive" {
			t.Fatalf("session after the error: %q, %v", v, err)
		}
	}
	cases := []struct {
		name  string
		query string
		code  int
	}{
		{"misspelt keyword", "SELEC * FROM probe", gocql.ErrCodeSyntax},
		{"truncated where", "SELECT * FROM probe WHERE", gocql.ErrCodeSyntax},
		{"unclosed values", "INSERT INTO probe (k) VALUES (1", gocql.ErrCodeSyntax},
		{"bad bind marker", "SELECT * FROM probe WHERE k = ??", gocql.ErrCodeSyntax},
		{"unknown table", "SELECT * FROM no_such_table", gocql.ErrCodeInvalid},
		{"unknown keyspace", "SELECT * FROM no_such_keyspace.t", gocql.ErrCodeInvalid},
		{"regular column restriction", "SELECT * FROM probe WHERE v = 'x'", gocql.ErrCodeInvalid},
		{"bad literal type", "INSERT INTO probe (k, v) VALUES ('not an int', 'x')", gocql.ErrCodeInvalid},
		{"unknown column", "SELECT nope FROM probe WHERE k = 1", gocql.ErrCodeInvalid},
		{"missing key", "INSERT INTO probe (v) VALUES ('no key')", gocql.ErrCodeInvalid},
		{"existing table", "CREATE TABLE probe (k int PRIMARY KEY)", gocql.ErrCodeAlreadyExists},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// gocql prepares SELECT/INSERT, so most of these fail at PREPARE;
			// the DDL goes as a plain QUERY.
			expectCode(t, s.Query(c.query).Exec(), c.code)
			alive(t)
		})
	}
	t.Run("already exists carries names", func(t *testing.T) {
		err := s.Query("CREATE TABLE probe (k int PRIMARY KEY)").Exec()
		var ae *gocql.RequestErrAlreadyExists
		if !errors.As(err, &ae) || ae.Keyspace != "go_errors" || ae.Table != "probe" {
			t.Fatalf("got %#v", err)
		}
	})
	t.Run("filtering message", func(t *testing.T) {
		re := expectCode(t, s.Query("SELECT * FROM probe WHERE v = 'x'").Exec(), gocql.ErrCodeInvalid)
		if !strings.Contains(re.Message(), "ALLOW FILTERING") {
			t.Fatalf("message %q does not mention ALLOW FILTERING", re.Message())
		}
	})
}
