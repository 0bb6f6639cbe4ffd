package auth

import (
	"context"
	"testing"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/storage"
)

func TestDecodePlain(t *testing.T) {
	for _, tc := range []struct {
		token, user, password, err string
	}{
		{token: "\x00bob\x00pw", user: "bob", password: "pw"},
		{token: "authz\x00bob\x00pw", user: "bob", password: "pw"},
		{token: "bob\x00pw", err: "Authentication ID must not be null"},
		{token: "\x00bob\x00", err: "Password must not be null"},
		{token: "", err: "Password must not be null"},
		{token: "pw", err: "Password must not be null"},
		{token: "\x00pw", err: "Authentication ID must not be null"},
		{token: "\x00\x00pw", err: "Authentication ID must not be null"},
		{token: "\x00a\x00b\x00c", err: "Credential format error: username or password is empty or contains NUL(\\0) character"},
	} {
		t.Run(tc.token, func(t *testing.T) {
			user, password, err := decodePlain([]byte(tc.token))
			if tc.err != "" {
				if e := cqlerr.As(err); e == nil || e.Code != cqlerr.BadCredentials || e.Message != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || user != tc.user || password != tc.password {
				t.Fatalf("got %q %q %v", user, password, err)
			}
		})
	}
}

func FuzzDecodePlain(f *testing.F) {
	f.Add([]byte("\x00cassandra\x00cassandra"))
	f.Fuzz(func(t *testing.T, token []byte) {
		_, _, _ = decodePlain(token)
	})
}

// TestDefaultSuperuser: created once, on an empty node with password
// authentication, and never again once roles exist (invariant 4).
func TestDefaultSuperuser(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func(opts Options) (*Manager, func()) {
		st, err := storage.Open(storage.Options{Dir: dir, NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		m, err := Open(ctx, st, opts)
		if err != nil {
			t.Fatal(err)
		}
		return m, func() { st.Close() }
	}
	m, done := open(Options{})
	if len(m.Roles()) != 0 {
		t.Fatalf("roles without authentication: %v", m.Roles())
	}
	done()
	m, done = open(Options{PasswordAuthentication: true})
	if _, err := m.Authenticate([]byte("\x00cassandra\x00cassandra")); err != nil {
		t.Fatal(err)
	}
	su := Caller{Name: DefaultSuperuser}
	if err := m.CreateRole(ctx, su, "other", RoleOptions{}, false); err != nil {
		t.Fatal(err)
	}
	if err := m.DropRole(ctx, Caller{Name: "other"}, DefaultSuperuser, false); err == nil {
		t.Fatal("a role without superuser status dropped the superuser")
	}
	done()
	m, done = open(Options{PasswordAuthentication: true, SuperuserPassword: "x"})
	defer done()
	if len(m.Roles()) != 2 {
		t.Fatalf("roles after restart: %v", m.Roles())
	}
	if _, err := m.Authenticate([]byte("\x00cassandra\x00x")); err == nil {
		t.Fatal("the superuser password option applied to a node with roles")
	}
}

// TestLongPassword: bcrypt reads 72 bytes, as jBCrypt does, so a longer
// password is accepted and checked on its first 72 bytes.
func TestLongPassword(t *testing.T) {
	p := []byte{}
	for i := 0; i < 100; i++ {
		p = append(p, byte('a'+i%26))
	}
	h, err := hashPassword(string(p))
	if err != nil {
		t.Fatal(err)
	}
	if !checkPassword(string(p), h) || !checkPassword(string(p[:72])+"zzz", h) || checkPassword(string(p[:71]), h) {
		t.Fatal("72-byte truncation not applied")
	}
	if checkPassword("x", "not a hash") || checkPassword("", "") {
		t.Fatal("a malformed hash matched")
	}
}
