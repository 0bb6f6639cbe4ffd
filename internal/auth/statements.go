package auth

import (
	"context"
	"slices"

	"golang.org/x/crypto/bcrypt"

	"github.com/partita-db/partita/internal/cqlerr"
)

// Caller is who runs a role statement: the role its connection logged in
// as, or the anonymous user ("") when authentication is off.
type Caller struct {
	Name string
}

// anonymous reports whether the caller did not log in.
func (c Caller) anonymous() bool { return c.Name == "" }

// RoleOptions are the WITH options of CREATE and ALTER ROLE (and USER), each
// nil when not given. Options and Datacenters are parsed but refused, as
// CassandraRoleManager refuses them.
type RoleOptions struct {
	Super, Login   *bool
	Password       *string
	HashedPassword *string
	Options        map[string]string
	HasOptions     bool
	// Datacenters is ACCESS TO DATACENTERS {...}; AllDatacenters ACCESS TO
	// ALL DATACENTERS.
	Datacenters    []string
	AllDatacenters bool
}

func (o *RoleOptions) empty() bool {
	return o.Super == nil && o.Login == nil && o.Password == nil && o.HashedPassword == nil &&
		!o.HasOptions && o.Datacenters == nil && !o.AllDatacenters
}

// validate is RoleOptions.validate with CassandraRoleManager's supported
// options: PASSWORD and HASHED PASSWORD only under PasswordAuthenticator.
func (m *Manager) validateOptions(o *RoleOptions) error {
	if o.HasOptions {
		return cqlerr.Invalidf("%s doesn't support OPTIONS", roleManagerClass)
	}
	if !m.opts.PasswordAuthentication {
		if o.Password != nil {
			return cqlerr.Invalidf("%s doesn't support PASSWORD", roleManagerClass)
		}
		if o.HashedPassword != nil {
			return cqlerr.Invalidf("%s doesn't support HASHED_PASSWORD", roleManagerClass)
		}
	}
	if o.HashedPassword != nil {
		if _, err := bcrypt.Cost([]byte(*o.HashedPassword)); err != nil {
			return cqlerr.Invalidf("Invalid hashed password value. Please use jBcrypt.")
		}
	}
	if o.Datacenters != nil {
		return cqlerr.Invalidf("Invalid value(s) for DATACENTERS '[%s]',All values must be valid datacenters", joinComma(o.Datacenters))
	}
	return nil
}

func joinComma(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return out
}

// ensureNotAnonymous is ClientState.ensureNotAnonymous.
func ensureNotAnonymous(c Caller) error {
	if c.anonymous() {
		return cqlerr.New(cqlerr.Unauthorized, "You have to be logged in and not anonymous to perform this request")
	}
	return nil
}

// isSuper is AuthenticatedUser.isSuper: never for the anonymous user.
func (m *Manager) isSuper(c Caller) bool {
	return !c.anonymous() && m.HasSuperuserStatus(c.Name)
}

// CreateRole runs CREATE ROLE (and CREATE USER, whose Login is set), in
// Cassandra's order: access, then validation, then the change.
func (m *Manager) CreateRole(ctx context.Context, c Caller, name string, o RoleOptions, ifNotExists bool) error {
	if err := m.authorizeRoleOp(c, PermCreate, AllRoles()); err != nil {
		return err
	}
	if o.Super != nil && *o.Super && !m.isSuper(c) {
		return cqlerr.New(cqlerr.Unauthorized, "Only superusers can create a role with superuser status")
	}
	if err := m.validateOptions(&o); err != nil {
		return err
	}
	if name == "" {
		return cqlerr.Invalidf("Role name can't be an empty string")
	}
	if err := ensureNotAnonymous(c); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, exists := m.roles[name]; exists {
		if ifNotExists {
			return nil
		}
		return cqlerr.Invalidf("%s already exists", name)
	}
	r := &Role{Name: name}
	if err := setOptions(r, &o); err != nil {
		return err
	}
	if err := m.apply(ctx, []*Role{r}, nil); err != nil {
		return err
	}
	if !m.opts.Authorization || c.anonymous() {
		return nil
	}
	res := RoleResource(name)
	return m.applyPermsLocked(ctx, []permWrite{{c.Name, res, union(m.permsLocked(c.Name, res), res.Applicable())}})
}

// setOptions applies the given options to r.
func setOptions(r *Role, o *RoleOptions) error {
	if o.Super != nil {
		r.Super = *o.Super
	}
	if o.Login != nil {
		r.Login = *o.Login
	}
	switch {
	case o.Password != nil:
		h, err := hashPassword(*o.Password)
		if err != nil {
			return err
		}
		r.SaltedHash = h
	case o.HashedPassword != nil:
		r.SaltedHash = *o.HashedPassword
	}
	return nil
}

// AlterRole runs ALTER ROLE and ALTER USER.
func (m *Manager) AlterRole(ctx context.Context, c Caller, name string, o RoleOptions, ifExists bool) error {
	if o.Super != nil {
		if !c.anonymous() && slices.Contains(m.Granted(c.Name, true), name) {
			return cqlerr.New(cqlerr.Unauthorized, "You aren't allowed to alter your own superuser status or that of a role granted to you")
		}
		if !m.isSuper(c) {
			return cqlerr.New(cqlerr.Unauthorized, "Only superusers are allowed to alter superuser status")
		}
	}
	if !m.isSuper(c) && !c.anonymous() {
		if c.Name == name && o.Login != nil {
			// CassandraRoleManager.alterableOptions: PASSWORD and HASHED PASSWORD.
			return cqlerr.New(cqlerr.Unauthorized, "You aren't allowed to alter LOGIN")
		}
		if c.Name != name {
			if err := m.authorizeRoleOp(c, PermAlter, RoleResource(name)); err != nil {
				return err
			}
		}
	}
	if err := m.validateOptions(&o); err != nil {
		return err
	}
	if o.empty() {
		return cqlerr.Invalidf("ALTER [ROLE|USER] can't be empty")
	}
	if err := ensureNotAnonymous(c); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	old, exists := m.roles[name]
	if !exists {
		if ifExists {
			return nil
		}
		return cqlerr.Invalidf("Role %s doesn't exist", name)
	}
	r := *old
	r.MemberOf = slices.Clone(old.MemberOf)
	if err := setOptions(&r, &o); err != nil {
		return err
	}
	return m.apply(ctx, []*Role{&r}, nil)
}

// DropRole runs DROP ROLE and DROP USER: the role goes, and with it its
// memberships both ways (invariant 3).
func (m *Manager) DropRole(ctx context.Context, c Caller, name string, ifExists bool) error {
	if err := m.authorizeRoleOp(c, PermDrop, RoleResource(name)); err != nil {
		return err
	}
	if _, exists := m.Role(name); exists && m.HasSuperuserStatus(name) && !m.isSuper(c) {
		return cqlerr.New(cqlerr.Unauthorized, "Only superusers can drop a role with superuser status")
	}
	if err := ensureNotAnonymous(c); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, exists := m.roles[name]; !exists {
		if ifExists {
			return nil
		}
		return cqlerr.Invalidf("%s doesn't exist", name)
	}
	if c.Name == name {
		return cqlerr.Invalidf("Cannot DROP primary role for current login")
	}
	var put []*Role
	for _, r := range m.roles {
		if i := slices.Index(r.MemberOf, name); i >= 0 && r.Name != name {
			nr := *r
			nr.MemberOf = slices.Delete(slices.Clone(r.MemberOf), i, i+1)
			put = append(put, &nr)
		}
	}
	if err := m.apply(ctx, put, []string{name}); err != nil {
		return err
	}
	// The role's own permissions, and those on it (revokeAllFrom, revokeAllOn).
	writes := m.revokeAllFromLocked(name)
	for role, byRes := range m.perms {
		if _, ok := byRes[RoleResource(name)]; ok {
			writes = append(writes, permWrite{role: role, r: RoleResource(name)})
		}
	}
	return m.applyPermsLocked(ctx, writes)
}

// GrantRole runs GRANT role TO grantee.
func (m *Manager) GrantRole(ctx context.Context, c Caller, role, grantee string) error {
	if err := m.authorizeRoleOp(c, PermAuthorize, RoleResource(role)); err != nil {
		return err
	}
	if err := ensureNotAnonymous(c); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.checkExistLocked(role, grantee); err != nil {
		return err
	}
	if slices.Contains(m.grantedLocked(grantee, true), role) {
		return cqlerr.Invalidf("%s is a member of %s", grantee, role)
	}
	if slices.Contains(m.grantedLocked(role, true), grantee) {
		return cqlerr.Invalidf("%s is a member of %s", role, grantee)
	}
	r := *m.roles[grantee]
	r.MemberOf = append(slices.Clone(r.MemberOf), role)
	slices.Sort(r.MemberOf)
	return m.apply(ctx, []*Role{&r}, nil)
}

// RevokeRole runs REVOKE role FROM revokee.
func (m *Manager) RevokeRole(ctx context.Context, c Caller, role, revokee string) error {
	if err := m.authorizeRoleOp(c, PermAuthorize, RoleResource(role)); err != nil {
		return err
	}
	if err := ensureNotAnonymous(c); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.checkExistLocked(role, revokee); err != nil {
		return err
	}
	r := *m.roles[revokee]
	i := slices.Index(r.MemberOf, role)
	if i < 0 {
		return cqlerr.Invalidf("%s is not a member of %s", revokee, role)
	}
	r.MemberOf = slices.Delete(slices.Clone(r.MemberOf), i, i+1)
	return m.apply(ctx, []*Role{&r}, nil)
}

func (m *Manager) checkExistLocked(names ...string) error {
	for _, n := range names {
		if _, ok := m.roles[n]; !ok {
			return cqlerr.Invalidf("%s doesn't exist", n)
		}
	}
	return nil
}

// ListRoles runs LIST ROLES [OF grantee] [NORECURSIVE]: every role, or
// grantee and the roles granted to it, sorted by name. Without an
// authorizer every caller may describe every role (AllowAllAuthorizer).
func (m *Manager) ListRoles(c Caller, grantee string, of, recursive bool) ([]Role, error) {
	if err := ensureNotAnonymous(c); err != nil {
		return nil, err
	}
	if of {
		if _, ok := m.Role(grantee); !ok {
			return nil, cqlerr.Invalidf("<role %s> doesn't exist", grantee)
		}
	}
	// Without DESCRIBE on all roles, a role sees only the roles granted to
	// it (ListRolesStatement.execute).
	if !m.hasPermission(c, PermDescribe, AllRoles()) {
		if !of {
			grantee, of = c.Name, true
		} else if !slices.Contains(m.Granted(c.Name, true), grantee) {
			return nil, cqlerr.New(cqlerr.Unauthorized, "You are not authorized to view roles granted to %s ", grantee)
		}
	}
	if !of {
		return m.Roles(), nil
	}
	names := m.Granted(grantee, recursive)
	out := make([]Role, 0, len(names))
	for _, n := range names {
		if r, ok := m.Role(n); ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// ListUsers runs LIST USERS: the roles that may log in, each with whether
// it has superuser status through any role granted to it.
func (m *Manager) ListUsers(c Caller) ([]Role, error) {
	if err := ensureNotAnonymous(c); err != nil {
		return nil, err
	}
	var out []Role
	for _, r := range m.Roles() {
		if r.Login {
			r.Super = m.HasSuperuserStatus(r.Name)
			out = append(out, r)
		}
	}
	return out, nil
}
