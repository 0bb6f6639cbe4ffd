package engine

import (
	"context"

	"github.com/partita-db/partita/internal/auth"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/systables"
	"github.com/partita-db/partita/internal/types"
)

// Auth returns the engine's role manager.
func (e *Engine) Auth() *auth.Manager { return e.auth }

// Login makes the session run as role, once its connection authenticated.
func (s *Session) Login(role string) {
	s.mu.Lock()
	s.role = role
	s.mu.Unlock()
}

// Role returns the role the session logged in as ("" when anonymous).
func (s *Session) Role() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.role
}

// isRoleStatement reports whether stmt is run by the role manager.
func isRoleStatement(stmt ast.Statement) bool {
	switch stmt.(type) {
	case *ast.CreateRole, *ast.AlterRole, *ast.DropRole, *ast.GrantRole, *ast.RevokeRole,
		*ast.ListRoles, *ast.ListUsers, *ast.GrantPermissions, *ast.ListPermissions:
		return true
	}
	return false
}

// prepareRole prepares a role statement: it has no bind markers, and it
// runs as whichever session executes it.
func (s *Session) prepareRole(stmt ast.Statement, query, keyspace string, schema *catalog.Schema) (*Result, error) {
	if err := s.engine.prepared.tooLarge(query); err != nil {
		return nil, err
	}
	id := statementID(keyspace, query)
	s.engine.prepared.put(&prepared{id: id, query: query, keyspace: keyspace, stmt: stmt, schema: schema})
	return &Result{Kind: ResultPrepared, PreparedID: id}, nil
}

// runRole runs a role statement as the session's role.
func (s *Session) runRole(ctx context.Context, stmt ast.Statement) (*Result, error) {
	m, c := s.engine.auth, auth.Caller{Name: s.Role()}
	var err error
	switch st := stmt.(type) {
	case *ast.GrantPermissions, *ast.ListPermissions:
		return s.runPermissions(ctx, stmt)
	case *ast.CreateRole:
		err = m.CreateRole(ctx, c, st.Name, roleOptions(&st.Options), st.IfNotExists)
	case *ast.AlterRole:
		err = m.AlterRole(ctx, c, st.Name, roleOptions(&st.Options), st.IfExists)
	case *ast.DropRole:
		err = m.DropRole(ctx, c, st.Name, st.IfExists)
	case *ast.GrantRole:
		err = m.GrantRole(ctx, c, st.Role, st.Grantee)
	case *ast.RevokeRole:
		err = m.RevokeRole(ctx, c, st.Role, st.Revokee)
	case *ast.ListRoles:
		roles, err := m.ListRoles(c, st.Of, st.HasOf, !st.NoRecursive)
		if err != nil {
			return nil, err
		}
		return listRolesResult(roles), nil
	case *ast.ListUsers:
		roles, err := m.ListUsers(c)
		if err != nil {
			return nil, err
		}
		return listUsersResult(roles), nil
	}
	if err != nil {
		return nil, err
	}
	return &Result{Kind: ResultVoid}, nil
}

func roleOptions(o *ast.RoleOptions) auth.RoleOptions {
	return auth.RoleOptions{Super: o.Super, Login: o.Login, Password: o.Password, HashedPassword: o.HashedPassword,
		Options: o.Options, HasOptions: o.HasOptions, Datacenters: o.Datacenters, AllDatacenters: o.AllDatacenters}
}

// allDatacenters is the datacenters column of a role without network
// restrictions (ListRolesStatement).
const allDatacenters = "ALL"

// listRolesResult is ListRolesStatement's result: role, super, login,
// options and datacenters, as columns of system_auth.roles.
func listRolesResult(roles []auth.Role) *Result {
	col := func(name string, t *types.Type) Column {
		return Column{Keyspace: systables.AuthKeyspace, Table: "roles", Name: name, Type: t}
	}
	res := &Result{Kind: ResultRows, Columns: []Column{col("role", types.Text), col("super", types.Boolean),
		col("login", types.Boolean), col("options", types.MapOf(types.Text, types.Text)), col("datacenters", types.Text)}}
	for _, r := range roles {
		res.Rows = append(res.Rows, [][]byte{[]byte(r.Name), boolCell(r.Super), boolCell(r.Login),
			{0, 0, 0, 0}, []byte(allDatacenters)})
	}
	return res
}

// listUsersResult is ListUsersStatement's result: name, super and
// datacenters, as columns of system_auth.users.
func listUsersResult(roles []auth.Role) *Result {
	col := func(name string, t *types.Type) Column {
		return Column{Keyspace: systables.AuthKeyspace, Table: "users", Name: name, Type: t}
	}
	res := &Result{Kind: ResultRows, Columns: []Column{col("name", types.Text), col("super", types.Boolean),
		col("datacenters", types.Text)}}
	for _, r := range roles {
		res.Rows = append(res.Rows, [][]byte{[]byte(r.Name), boolCell(r.Super), []byte(allDatacenters)})
	}
	return res
}

func boolCell(b bool) []byte {
	if b {
		return []byte{1}
	}
	return []byte{0}
}

// authSource shows the roles in system_auth.
type authSource struct{ m *auth.Manager }

func (a authSource) AuthRoles() []systables.AuthRole {
	if a.m == nil {
		return nil
	}
	roles := a.m.Roles()
	out := make([]systables.AuthRole, len(roles))
	for i, r := range roles {
		out[i] = systables.AuthRole{Name: r.Name, Super: r.Super, Login: r.Login, SaltedHash: r.SaltedHash, MemberOf: r.MemberOf}
	}
	return out
}

func (a authSource) AuthPermissions() []systables.AuthPermissions {
	if a.m == nil {
		return nil
	}
	grants := a.m.Grants()
	out := make([]systables.AuthPermissions, len(grants))
	for i, g := range grants {
		names := make([]string, len(g.Permissions))
		for j, p := range g.Permissions {
			names[j] = p.String()
		}
		out[i] = systables.AuthPermissions{Role: g.Role, Resource: string(g.Resource), Permissions: names}
	}
	return out
}
