package auth

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/cqlerr"
)

// Permission is one of auth/Permission.java's, in its declaration order.
type Permission int

const (
	PermCreate Permission = iota
	PermAlter
	PermDrop
	PermSelect
	PermModify
	PermAuthorize
	PermDescribe
	PermExecute
	PermUnmask
	PermSelectMasked
	numPermissions
)

var permissionNames = [numPermissions]string{"CREATE", "ALTER", "DROP", "SELECT", "MODIFY", "AUTHORIZE",
	"DESCRIBE", "EXECUTE", "UNMASK", "SELECT_MASKED"}

func (p Permission) String() string { return permissionNames[p] }

// ParsePermission reads a permission name (any case).
func ParsePermission(name string) (Permission, bool) {
	for i, n := range permissionNames {
		if strings.EqualFold(n, name) {
			return Permission(i), true
		}
	}
	return 0, false
}

// Resource is an IResource by its name: "data", "data/ks", "data/ks/t",
// "data/ks/*" (all tables of ks, checked only), "functions",
// "functions/ks", "roles", "roles/r".
type Resource string

// Resource constructors.
func AllKeyspaces() Resource              { return "data" }
func KeyspaceResource(ks string) Resource { return Resource("data/" + ks) }
func AllTablesResource(ks string) Resource {
	return Resource("data/" + ks + "/*")
}
func TableResource(ks, t string) Resource  { return Resource("data/" + ks + "/" + t) }
func AllFunctions() Resource               { return "functions" }
func KeyspaceFunctions(ks string) Resource { return Resource("functions/" + ks) }

// FunctionResource is one function, ks.name(argument types).
func FunctionResource(ks, name string, argTypes []string) Resource {
	return Resource("functions/" + ks + "/" + name + "(" + strings.Join(argTypes, ", ") + ")")
}

// builtinFunctions reports whether r is a native function or all of
// them, whose permissions cannot be changed (they need none).
func (r Resource) builtinFunctions() bool {
	p := r.parts()
	return p[0] == "functions" && len(p) >= 2 && p[1] == "system"
}
func AllRoles() Resource                { return "roles" }
func RoleResource(role string) Resource { return Resource("roles/" + role) }
func (r Resource) parts() []string      { return strings.SplitN(string(r), "/", 3) }
func (r Resource) isData() bool         { return r.parts()[0] == "data" }
func (r Resource) isRole() bool         { return r.parts()[0] == "roles" }

// String is the resource as Cassandra prints it: <table ks.t>, ...
func (r Resource) String() string {
	p := r.parts()
	switch {
	case p[0] == "data" && len(p) == 1:
		return "<all keyspaces>"
	case p[0] == "data" && len(p) == 2:
		return "<keyspace " + p[1] + ">"
	case p[0] == "data" && p[2] == "*":
		return "<all tables in " + p[1] + ">"
	case p[0] == "data":
		return "<table " + p[1] + "." + p[2] + ">"
	case p[0] == "functions" && len(p) == 1:
		return "<all functions>"
	case p[0] == "functions" && len(p) == 2:
		return "<all functions in " + p[1] + ">"
	case p[0] == "functions":
		return "<function " + p[1] + "." + p[2] + ">"
	case p[0] == "roles" && len(p) == 1:
		return "<all roles>"
	}
	return "<role " + strings.Join(p[1:], "/") + ">"
}

// Chain is r and its parents, nearest first.
func (r Resource) Chain() []Resource {
	p := r.parts()
	out := []Resource{r}
	switch {
	case p[0] == "data" && len(p) == 3:
		out = append(out, Resource("data/"+p[1]), "data")
	case len(p) >= 2:
		out = append(out, Resource(p[0]))
	}
	return out
}

// Applicable is the permissions a resource takes (applicablePermissions).
func (r Resource) Applicable() []Permission {
	p := r.parts()
	switch {
	case p[0] == "data" && len(p) == 3:
		return []Permission{PermAlter, PermDrop, PermSelect, PermModify, PermAuthorize, PermUnmask, PermSelectMasked}
	case p[0] == "data":
		return []Permission{PermCreate, PermAlter, PermDrop, PermSelect, PermModify, PermAuthorize, PermUnmask, PermSelectMasked}
	case p[0] == "functions" && len(p) == 3:
		return []Permission{PermAlter, PermDrop, PermAuthorize, PermExecute}
	case p[0] == "functions":
		return []Permission{PermCreate, PermAlter, PermDrop, PermAuthorize, PermExecute}
	case len(p) == 1:
		return []Permission{PermCreate, PermAlter, PermDrop, PermAuthorize, PermDescribe}
	}
	return []Permission{PermAlter, PermDrop, PermAuthorize, PermDescribe}
}

// typeName is the resource's class, for messages.
func (r Resource) typeName() string {
	switch r.parts()[0] {
	case "data":
		return "DataResource"
	case "functions":
		return "FunctionResource"
	}
	return "RoleResource"
}

// metaPermPrefix prefixes the permissions of one (role, resource).
const metaPermPrefix = "auth/perm/"

func permKey(role string, r Resource) []byte {
	return []byte(metaPermPrefix + role + "\x00" + string(r))
}

// permsLocked returns the permissions role holds directly on r. The caller
// holds mu.
func (m *Manager) permsLocked(role string, r Resource) []Permission {
	return m.perms[role][r]
}

// loadPermissions reads the stored permissions.
func (m *Manager) loadPermissions(ctx context.Context) error {
	kvs, err := m.b.ScanMeta(ctx, []byte(metaPermPrefix))
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		role, res, ok := strings.Cut(string(kv.Key[len(metaPermPrefix):]), "\x00")
		if !ok {
			continue
		}
		var names []string
		if err := json.Unmarshal(kv.Value, &names); err != nil {
			return cqlerr.Serverf("permissions of %q on %q: corrupted metadata: %v", role, res, err)
		}
		var ps []Permission
		for _, n := range names {
			if p, ok := ParsePermission(n); ok {
				ps = append(ps, p)
			}
		}
		m.setPermsLocked(role, Resource(res), ps)
	}
	return nil
}

func (m *Manager) setPermsLocked(role string, r Resource, ps []Permission) {
	if m.perms == nil {
		m.perms = map[string]map[Resource][]Permission{}
	}
	if len(ps) == 0 {
		delete(m.perms[role], r)
		return
	}
	if m.perms[role] == nil {
		m.perms[role] = map[Resource][]Permission{}
	}
	m.perms[role][r] = ps
}

// permWrite is one (role, resource) permission set to store.
type permWrite struct {
	role  string
	r     Resource
	perms []Permission
}

// applyPermsLocked stores and then shows permission changes (invariant 1).
func (m *Manager) applyPermsLocked(ctx context.Context, writes []permWrite) error {
	batch := &backend.WriteBatch{}
	for _, w := range writes {
		mw := backend.MetaWrite{Key: permKey(w.role, w.r)}
		if len(w.perms) > 0 {
			names := make([]string, len(w.perms))
			for i, p := range w.perms {
				names[i] = p.String()
			}
			mw.Value, _ = json.Marshal(names)
		}
		batch.Meta = append(batch.Meta, mw)
	}
	if len(batch.Meta) == 0 {
		return nil
	}
	if err := m.b.Apply(ctx, batch); err != nil {
		return err
	}
	for _, w := range writes {
		m.setPermsLocked(w.role, w.r, w.perms)
	}
	return nil
}

// Authorization reports whether authorizer: CassandraAuthorizer is on.
func (m *Manager) Authorization() bool { return m.opts.Authorization }

// hasPermission reports whether c holds p on r or a parent, through any
// role granted to it; superusers hold everything.
func (m *Manager) hasPermission(c Caller, p Permission, r Resource) bool {
	if !m.opts.Authorization || m.isSuper(c) {
		return true
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	for _, role := range m.grantedLocked(c.Name, true) {
		for _, res := range r.Chain() {
			if slices.Contains(m.permsLocked(role, res), p) {
				return true
			}
		}
	}
	return false
}

// Authorize checks that c holds p on a data resource
// (ClientState.ensurePermission).
func (m *Manager) Authorize(c Caller, p Permission, r Resource) error {
	if m.hasPermission(c, p, r) {
		return nil
	}
	return cqlerr.New(cqlerr.Unauthorized, "User %s has no %s permission on %s or any of its parents", c.Name, p, r)
}

// authorizeRoleOp checks a permission on a role resource, whose refusal
// Cassandra words without naming it (AuthenticationStatement.checkPermission).
func (m *Manager) authorizeRoleOp(c Caller, p Permission, r Resource) error {
	if m.hasPermission(c, p, r) {
		return nil
	}
	return cqlerr.New(cqlerr.Unauthorized, "User %s does not have sufficient privileges to perform the requested operation", c.Name)
}

// GrantToCreator gives the creator of resources every permission they take
// (grantPermissionsToCreator); nothing for the anonymous user or without an
// authorizer.
func (m *Manager) GrantToCreator(ctx context.Context, c Caller, resources ...Resource) error {
	if !m.opts.Authorization || c.anonymous() {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var writes []permWrite
	for _, r := range resources {
		writes = append(writes, permWrite{c.Name, r, union(m.permsLocked(c.Name, r), r.Applicable())})
	}
	return m.applyPermsLocked(ctx, writes)
}

// RevokeAllOn removes every permission on the resources and on any
// resource below them (IAuthorizer.revokeAllOn, on DROP).
func (m *Manager) RevokeAllOn(ctx context.Context, resources ...Resource) error {
	if !m.opts.Authorization {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var writes []permWrite
	for role, byRes := range m.perms {
		for res := range byRes {
			for _, r := range resources {
				if res == r || strings.HasPrefix(string(res), string(r)+"/") {
					writes = append(writes, permWrite{role: role, r: res})
				}
			}
		}
	}
	return m.applyPermsLocked(ctx, writes)
}

// revokeAllFromLocked removes every permission granted to role (on DROP
// ROLE, IAuthorizer.revokeAllFrom).
func (m *Manager) revokeAllFromLocked(role string) []permWrite {
	var writes []permWrite
	for res := range m.perms[role] {
		writes = append(writes, permWrite{role: role, r: res})
	}
	return writes
}

func union(a, b []Permission) []Permission {
	out := slices.Clone(a)
	for _, p := range b {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// requested narrows the permissions of a GRANT, REVOKE or LIST (nil: ALL)
// to those r takes; none is Cassandra's syntax error.
func requested(perms []Permission, r Resource) ([]Permission, error) {
	applicable := r.Applicable()
	if perms == nil {
		return applicable, nil
	}
	var out []Permission
	for _, p := range perms {
		if slices.Contains(applicable, p) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, cqlerr.Syntaxf("Resource type %s does not support any of the requested permissions", r.typeName())
	}
	slices.Sort(out)
	return out, nil
}

// GrantPermissions runs GRANT perms ON r TO grantee; exists tells whether
// a data resource exists in the schema.
func (m *Manager) GrantPermissions(ctx context.Context, c Caller, perms []Permission, r Resource, grantee string, exists bool) error {
	return m.changePermissions(ctx, c, perms, r, grantee, exists, true)
}

// RevokePermissions runs REVOKE perms ON r FROM revokee.
func (m *Manager) RevokePermissions(ctx context.Context, c Caller, perms []Permission, r Resource, revokee string, exists bool) error {
	return m.changePermissions(ctx, c, perms, r, revokee, exists, false)
}

func (m *Manager) changePermissions(ctx context.Context, c Caller, perms []Permission, r Resource, role string, exists, grant bool) error {
	ps, err := requested(perms, r)
	if err != nil {
		return err
	}
	if err := m.Authorize(c, PermAuthorize, r); err != nil {
		return err
	}
	for _, p := range ps {
		if err := m.Authorize(c, p, r); err != nil {
			return err
		}
	}
	if err := ensureNotAnonymous(c); err != nil {
		return err
	}
	if !m.opts.Authorization {
		return cqlerr.Invalidf("GRANT operation is not supported by AllowAllAuthorizer")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.roles[role]; !ok {
		return cqlerr.Invalidf("Role %s doesn't exist", role)
	}
	if r.builtinFunctions() {
		return cqlerr.Invalidf("Altering permissions on builtin functions is not supported")
	}
	if !exists {
		return cqlerr.Invalidf("Resource %s doesn't exist", r)
	}
	cur := m.permsLocked(role, r)
	var next []Permission
	if grant {
		next = union(cur, ps)
	} else {
		for _, p := range cur {
			if !slices.Contains(ps, p) {
				next = append(next, p)
			}
		}
	}
	return m.applyPermsLocked(ctx, []permWrite{{role, r, next}})
}

// PermissionRow is one row of LIST PERMISSIONS.
type PermissionRow struct {
	Role       string
	Resource   Resource
	Permission Permission
}

// ListPermissions runs LIST perms [ON r] [OF of] [NORECURSIVE]: the
// permissions held by of and the roles granted to it (or by every role),
// on r and, unless norecursive, its parents (or on every resource), sorted
// by role, resource name and permission as Cassandra sorts them.
func (m *Manager) ListPermissions(c Caller, perms []Permission, r Resource, on bool, of string, hasOf, recursive bool, exists bool) ([]PermissionRow, error) {
	var err error
	var wanted []Permission
	if on {
		if wanted, err = requested(perms, r); err != nil {
			return nil, err
		}
	} else if perms != nil {
		wanted = perms
	}
	if err := ensureNotAnonymous(c); err != nil {
		return nil, err
	}
	if !m.isSuper(c) {
		if !hasOf {
			return nil, cqlerr.New(cqlerr.Unauthorized, "You are not authorized to view everyone's permissions")
		}
		if !slices.Contains(m.Granted(c.Name, true), of) {
			return nil, cqlerr.New(cqlerr.Unauthorized, "You are not authorized to view %s's permissions", of)
		}
	}
	if !m.opts.Authorization {
		return nil, cqlerr.Invalidf("LIST PERMISSIONS operation is not supported by AllowAllAuthorizer")
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	var roles []string
	if hasOf {
		if roles = m.grantedLocked(of, true); roles == nil {
			return nil, cqlerr.Invalidf("<role %s> doesn't exist", of)
		}
	} else {
		for role := range m.perms {
			roles = append(roles, role)
		}
	}
	if on && !exists {
		return nil, cqlerr.Invalidf("%s doesn't exist", r)
	}
	var rows []PermissionRow
	for _, role := range roles {
		for res, ps := range m.perms[role] {
			if on && res != r && !(recursive && slices.Contains(r.Chain(), res)) {
				continue
			}
			for _, p := range ps {
				if wanted == nil || slices.Contains(wanted, p) {
					rows = append(rows, PermissionRow{role, res, p})
				}
			}
		}
	}
	slices.SortFunc(rows, func(a, b PermissionRow) int {
		if c := strings.Compare(a.Role, b.Role); c != 0 {
			return c
		}
		if c := strings.Compare(string(a.Resource), string(b.Resource)); c != 0 {
			return c
		}
		return int(a.Permission) - int(b.Permission)
	})
	return rows, nil
}

// Grants lists every (role, resource) with the permissions granted, for
// system_auth.role_permissions.
func (m *Manager) Grants() []PermissionSet {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var out []PermissionSet
	for role, byRes := range m.perms {
		for res, ps := range byRes {
			out = append(out, PermissionSet{Role: role, Resource: res, Permissions: slices.Clone(ps)})
		}
	}
	return out
}

// PermissionSet is the permissions one role holds on one resource.
type PermissionSet struct {
	Role        string
	Resource    Resource
	Permissions []Permission
}
