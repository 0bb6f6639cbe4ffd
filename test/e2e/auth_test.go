package e2e_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/test/internal/testserver"
)

// authNode starts a node with authenticator: PasswordAuthenticator whose
// default superuser's password is superuserPassword ("" for cassandra).
func authNode(t *testing.T, superuserPassword string) *testserver.Server {
	t.Helper()
	srv, err := testserver.Start(testserver.Options{DataDir: t.TempDir(), PasswordAuthentication: true,
		SuperuserPassword: superuserPassword})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	return srv
}

// loginCluster is gocql's configuration with its PasswordAuthenticator.
func loginCluster(srv *testserver.Server, role, password string) *gocql.ClusterConfig {
	c := newCluster(srv.Host, srv.Port)
	c.Authenticator = gocql.PasswordAuthenticator{Username: role, Password: password}
	return c
}

// TestPasswordAuthenticatorGocql logs in through gocql's
// PasswordAuthenticator: the default superuser, a role it creates, and
// the refusals of wrong or missing credentials with Cassandra's messages.
func TestPasswordAuthenticatorGocql(t *testing.T) {
	srv := authNode(t, "")
	if _, err := newCluster(srv.Host, srv.Port).CreateSession(); err == nil ||
		!strings.Contains(err.Error(), `authentication required (using "org.apache.cassandra.auth.PasswordAuthenticator")`) {
		t.Fatalf("no credentials: %v", err)
	}
	if _, err := loginCluster(srv, "cassandra", "wrong").CreateSession(); err == nil ||
		!strings.Contains(err.Error(), "Provided username cassandra and/or password are incorrect") {
		t.Fatalf("wrong password: %v", err)
	}
	admin, err := loginCluster(srv, "cassandra", "cassandra").CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	mustExec(t, admin, "CREATE ROLE app WITH PASSWORD = 'app pw' AND LOGIN = true")
	mustExec(t, admin, "CREATE KEYSPACE auth_ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, admin, "CREATE TABLE auth_ks.t (k int PRIMARY KEY, v text)")
	var hash string
	if err := admin.Query("SELECT salted_hash FROM system_auth.roles WHERE role = 'app'").Scan(&hash); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "$2a$10$") {
		t.Fatalf("salted_hash %q is not a bcrypt hash of cost 10", hash)
	}

	c := loginCluster(srv, "app", "app pw")
	c.Keyspace = "auth_ks"
	app, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	// Prepared statements (gocql prepares every query with values).
	mustExec(t, app, "INSERT INTO t (k, v) VALUES (?, ?)", 1, "one")
	var v string
	if err := app.Query("SELECT v FROM t WHERE k = ?", 1).Scan(&v); err != nil || v != "one" {
		t.Fatalf("read back %q, %v", v, err)
	}
	var roles []string
	iter := app.Query("LIST ROLES").Iter()
	var role string
	var super, login bool
	var options map[string]string
	var dcs string
	for iter.Scan(&role, &super, &login, &options, &dcs) {
		roles = append(roles, role)
	}
	if err := iter.Close(); err != nil || strings.Join(roles, ",") != "app,cassandra" {
		t.Fatalf("LIST ROLES: %v, %v", roles, err)
	}
	var re gocql.RequestError
	if err := app.Query("DROP ROLE cassandra").Exec(); !errors.As(err, &re) || re.Code() != gocql.ErrCodeUnauthorized ||
		re.Message() != "Only superusers can drop a role with superuser status" {
		t.Fatalf("DROP ROLE cassandra as app: %v", err)
	}

	mustExec(t, admin, "ALTER ROLE app WITH LOGIN = false")
	if _, err := loginCluster(srv, "app", "app pw").CreateSession(); err == nil ||
		!strings.Contains(err.Error(), "app is not permitted to log in") {
		t.Fatalf("role without LOGIN: %v", err)
	}
}

// TestSuperuserPasswordOption: the operator's password replaces cassandra
// for the default superuser, and roles are kept across restarts.
func TestSuperuserPasswordOption(t *testing.T) {
	dir := t.TempDir()
	srv, err := testserver.Start(testserver.Options{DataDir: dir, PasswordAuthentication: true, SuperuserPassword: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loginCluster(srv, "cassandra", "cassandra").CreateSession(); err == nil {
		t.Fatal("logged in with the default password")
	}
	s, err := loginCluster(srv, "cassandra", "s3cret").CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, s, "ALTER ROLE cassandra WITH PASSWORD = 'changed'")
	s.Close()
	srv.Stop()

	// A node with roles keeps them: the option counts only for an empty node.
	srv, err = testserver.Start(testserver.Options{DataDir: dir, PasswordAuthentication: true, SuperuserPassword: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	if _, err := loginCluster(srv, "cassandra", "s3cret").CreateSession(); err == nil {
		t.Fatal("the option replaced a password changed since")
	}
	s, err = loginCluster(srv, "cassandra", "changed").CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

// TestPythonDriverAuth logs in through the Python driver's
// PlainTextAuthProvider (test/drivers/python/auth_check.py).
func TestPythonDriverAuth(t *testing.T) {
	const python = "/usr/bin/python3"
	if out, err := exec.Command(python, "-c", "import cassandra").CombinedOutput(); err != nil {
		t.Fatalf("the Python driver is missing (%v: %s); install it with\n"+
			"    apt-get install -y python3-cassandra\nor run scripts/test.sh, which does", err, bytes.TrimSpace(out))
	}
	runScriptAgainst(t, authNode(t, ""), python, filepath.Join(repoRoot(t), "test", "drivers", "python", "auth_check.py"))
}

// TestCassandraAuthorizerGocql: with authorizer: CassandraAuthorizer a
// role reads and writes only what it was granted, through gocql's prepared
// statements, and gets Cassandra's Unauthorized error otherwise.
func TestCassandraAuthorizerGocql(t *testing.T) {
	srv, err := testserver.Start(testserver.Options{DataDir: t.TempDir(), PasswordAuthentication: true, Authorization: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	admin, err := loginCluster(srv, "cassandra", "cassandra").CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	mustExec(t, admin, "CREATE ROLE app WITH PASSWORD = 'pw' AND LOGIN = true")
	mustExec(t, admin, "CREATE KEYSPACE authz WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, admin, "CREATE TABLE authz.t (k int PRIMARY KEY, v int)")
	mustExec(t, admin, "GRANT SELECT ON TABLE authz.t TO app")

	app, err := loginCluster(srv, "app", "pw").CreateSession()
	if err != nil {
		t.Fatal(err) // connecting reads system tables, which stay readable
	}
	defer app.Close()
	var v int
	if err := app.Query("SELECT v FROM authz.t WHERE k = ?", 1).Scan(&v); !errors.Is(err, gocql.ErrNotFound) {
		t.Fatalf("granted read: %v", err)
	}
	err = app.Query("INSERT INTO authz.t (k, v) VALUES (?, ?)", 1, 1).Exec()
	var re gocql.RequestError
	if !errors.As(err, &re) || re.Code() != gocql.ErrCodeUnauthorized ||
		re.Message() != "User app has no MODIFY permission on <table authz.t> or any of its parents" {
		t.Fatalf("write without MODIFY: %v", err)
	}
	mustExec(t, admin, "GRANT MODIFY ON KEYSPACE authz TO app")
	mustExec(t, app, "INSERT INTO authz.t (k, v) VALUES (?, ?)", 1, 1)
}

// TestNodeDriverAuth logs in through the Node.js driver's
// PlainTextAuthProvider (test/drivers/node/auth_check.js).
func TestNodeDriverAuth(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not installed: the Node.js suite needs Node.js 20 or later and npm")
	}
	root := repoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "test", "drivers", "node", "node_modules", "cassandra-driver")); err != nil {
		t.Fatalf("cassandra-driver is not installed (%v); install it with\n"+
			"    (cd test/drivers/node && npm ci --no-audit --no-fund)\nor run scripts/test.sh, which does", err)
	}
	runScriptAgainst(t, authNode(t, ""), "node", "--test", filepath.Join(root, "test", "drivers", "node", "auth_check.js"))
}

// runScriptAgainst runs a driver script against srv, with PARTITA_HOST and
// PARTITA_PORT set, from the repository root, and fails with its output.
func runScriptAgainst(t *testing.T, srv *testserver.Server, name string, args ...string) {
	t.Helper()
	root := repoRoot(t)
	for _, a := range args {
		if strings.HasPrefix(a, root) {
			if _, err := os.ReadFile(a); err != nil { // go test's cache sees the script
				t.Fatal(err)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PARTITA_HOST="+srv.Host, "PARTITA_PORT="+strconv.Itoa(srv.Port),
		"PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	t.Logf("%s", lastLines(string(out), 8))
}
