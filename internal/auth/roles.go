package auth

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"

	"golang.org/x/crypto/bcrypt"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/cqlerr"
)

// Authenticator class names, as AUTHENTICATE sends them and cassandra.yaml's
// authenticator option takes them (with or without the package).
const (
	PasswordAuthenticatorClass = "org.apache.cassandra.auth.PasswordAuthenticator"
	AllowAllAuthenticatorClass = "org.apache.cassandra.auth.AllowAllAuthenticator"
	roleManagerClass           = "org.apache.cassandra.auth.CassandraRoleManager"
)

// DefaultSuperuser and DefaultSuperuserPassword are CassandraRoleManager's
// DEFAULT_SUPERUSER_NAME and DEFAULT_SUPERUSER_PASSWORD.
const (
	DefaultSuperuser         = "cassandra"
	DefaultSuperuserPassword = "cassandra"
)

// bcryptCost is Cassandra's default auth_bcrypt_gensalt_log2_rounds.
const bcryptCost = 10

// metaRolePrefix prefixes every role's metadata key.
const metaRolePrefix = "auth/role/"

// Role is one row of system_auth.roles.
type Role struct {
	Name  string `json:"-"`
	Super bool   `json:"super,omitempty"`
	Login bool   `json:"login,omitempty"`
	// SaltedHash is the bcrypt hash of the password, "" when it has none.
	SaltedHash string `json:"salted_hash,omitempty"`
	// MemberOf lists the roles granted to this one, sorted.
	MemberOf []string `json:"member_of,omitempty"`
}

// Options configure a Manager.
type Options struct {
	// PasswordAuthentication is authenticator: PasswordAuthenticator.
	PasswordAuthentication bool
	// Authorization is authorizer: CassandraAuthorizer: statements check
	// the permissions granted to the session's role.
	Authorization bool
	// SuperuserPassword replaces DefaultSuperuserPassword for the default
	// superuser created on an empty node.
	SuperuserPassword string
	Logger            *slog.Logger
}

// Manager holds the roles. It is safe for concurrent use.
type Manager struct {
	b    backend.Backend
	opts Options
	mu   sync.RWMutex
	// roles is replaced, never modified, so that readers may keep it.
	roles map[string]*Role
	// perms holds, by role and resource, the permissions granted
	// (system_auth.role_permissions); guarded by mu.
	perms map[string]map[Resource][]Permission
}

// Open loads the roles from b and, when password authentication is on and
// no role exists, creates the default superuser (invariant 4).
func Open(ctx context.Context, b backend.Backend, opts Options) (*Manager, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	m := &Manager{b: b, opts: opts, roles: map[string]*Role{}}
	kvs, err := b.ScanMeta(ctx, []byte(metaRolePrefix))
	if err != nil {
		return nil, err
	}
	for _, kv := range kvs {
		r := &Role{Name: string(kv.Key[len(metaRolePrefix):])}
		if err := json.Unmarshal(kv.Value, r); err != nil {
			return nil, cqlerr.Serverf("role %q: corrupted metadata: %v", r.Name, err)
		}
		m.roles[r.Name] = r
	}
	if err := m.loadPermissions(ctx); err != nil {
		return nil, err
	}
	if opts.PasswordAuthentication && len(m.roles) == 0 {
		password := opts.SuperuserPassword
		if password == "" {
			password = DefaultSuperuserPassword
		}
		hash, err := hashPassword(password)
		if err != nil {
			return nil, err
		}
		su := &Role{Name: DefaultSuperuser, Super: true, Login: true, SaltedHash: hash}
		if err := m.apply(ctx, []*Role{su}, nil); err != nil {
			return nil, err
		}
		if opts.SuperuserPassword == "" {
			opts.Logger.Warn("Created default superuser role 'cassandra' with password 'cassandra'; " +
				"create another superuser and drop it, or change its password (ALTER ROLE cassandra WITH PASSWORD = '...')")
		} else {
			opts.Logger.Info("Created default superuser role 'cassandra' with the configured password")
		}
	}
	return m, nil
}

// PasswordAuthentication reports whether clients must log in.
func (m *Manager) PasswordAuthentication() bool { return m.opts.PasswordAuthentication }

// Role returns a copy of the named role.
func (m *Manager) Role(name string) (Role, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	r, ok := m.roles[name]
	if !ok {
		return Role{}, false
	}
	return *r, true
}

// Roles returns every role, sorted by name.
func (m *Manager) Roles() []Role {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]Role, 0, len(m.roles))
	for _, r := range m.roles {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b Role) int { return compareNames(a.Name, b.Name) })
	return out
}

func compareNames(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// granted returns name and every role granted to it, directly or (when
// recursive) through other roles, sorted; nil when name does not exist.
// The caller holds mu.
func (m *Manager) grantedLocked(name string, recursive bool) []string {
	if _, ok := m.roles[name]; !ok {
		return nil
	}
	seen := map[string]bool{name: true}
	queue := []string{name}
	for len(queue) > 0 {
		r := m.roles[queue[0]]
		queue = queue[1:]
		if r == nil {
			continue
		}
		for _, g := range r.MemberOf {
			if !seen[g] {
				seen[g] = true
				if recursive {
					queue = append(queue, g)
				}
			}
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Granted returns name and the roles granted to it (see grantedLocked).
func (m *Manager) Granted(name string, recursive bool) []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.grantedLocked(name, recursive)
}

// HasSuperuserStatus reports whether name or any role granted to it is a
// superuser (Roles.hasSuperuserStatus).
func (m *Manager) HasSuperuserStatus(name string) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	for _, g := range m.grantedLocked(name, true) {
		if r := m.roles[g]; r != nil && r.Super {
			return true
		}
	}
	return false
}

// apply writes the given roles and deletes the named ones durably, then
// makes the change visible (invariant 1).
func (m *Manager) apply(ctx context.Context, put []*Role, drop []string) error {
	batch := &backend.WriteBatch{}
	for _, r := range put {
		v, err := json.Marshal(r)
		if err != nil {
			return cqlerr.Serverf("role %q: %v", r.Name, err)
		}
		batch.Meta = append(batch.Meta, backend.MetaWrite{Key: []byte(metaRolePrefix + r.Name), Value: v})
	}
	for _, n := range drop {
		batch.Meta = append(batch.Meta, backend.MetaWrite{Key: []byte(metaRolePrefix + n)})
	}
	if err := m.b.Apply(ctx, batch); err != nil {
		return err
	}
	next := make(map[string]*Role, len(m.roles)+len(put))
	for n, r := range m.roles {
		next[n] = r
	}
	for _, n := range drop {
		delete(next, n)
	}
	for _, r := range put {
		next[r.Name] = r
	}
	m.roles = next
	return nil
}

// hashPassword is BCrypt.hashpw with Cassandra's cost.
func hashPassword(password string) (string, error) {
	// bcrypt reads at most 72 bytes, as jBCrypt does; longer ones are
	// refused by the Go package, so they are cut the same way.
	p := []byte(password)
	if len(p) > 72 {
		p = p[:72]
	}
	h, err := bcrypt.GenerateFromPassword(p, bcryptCost)
	if err != nil {
		return "", cqlerr.Serverf("hashing the password: %v", err)
	}
	return string(h), nil
}

// checkPassword reports whether password matches a bcrypt hash; a malformed
// hash never matches (PasswordAuthenticator.checkpw).
func checkPassword(password, hash string) bool {
	p := []byte(password)
	if len(p) > 72 {
		p = p[:72]
	}
	return hash != "" && bcrypt.CompareHashAndPassword([]byte(hash), p) == nil
}
