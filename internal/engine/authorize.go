package engine

import (
	"context"

	"github.com/partita-db/partita/internal/auth"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/plan"
	"github.com/partita-db/partita/internal/systables"
	"github.com/partita-db/partita/internal/types"
)

// alwaysReadable are the keyspaces every logged-in role may read, as
// Cassandra's ClientState.READABLE_SYSTEM_RESOURCES and virtual keyspaces:
// what drivers read when they connect.
var alwaysReadable = map[string]bool{
	systables.SystemKeyspace: true, systables.SchemaKeyspace: true, systables.VirtualSchemaKeyspace: true,
	systables.ViewsKeyspace: true, systables.PartitaKeyspace: true,
}

// authorize checks that the session's role may run p, with authorizer:
// CassandraAuthorizer (each statement's checkAccess). It runs on every
// execution, so a prepared statement is checked as whoever executes it.
func (s *Session) authorize(p plan.Statement) error {
	m := s.engine.auth
	if !m.Authorization() {
		return nil
	}
	c := auth.Caller{Name: s.Role()}
	table := func(t *catalog.Table) auth.Resource { return auth.TableResource(t.Keyspace, t.Name) }
	switch p := p.(type) {
	case *plan.Select:
		if alwaysReadable[p.Table.Keyspace] {
			return nil
		}
		if p.Table.View != nil {
			// A view is read with SELECT on its base table
			// (SelectStatement.authorize).
			return m.Authorize(c, auth.PermSelect, auth.TableResource(p.Table.Keyspace, p.Table.View.Base))
		}
		return m.Authorize(c, auth.PermSelect, table(p.Table))
	case *plan.Modify:
		if err := m.Authorize(c, auth.PermModify, table(p.Table)); err != nil {
			return err
		}
		if p.IsConditional() {
			return m.Authorize(c, auth.PermSelect, table(p.Table))
		}
	case *plan.Explain:
		return s.authorize(p.Select)
	case *plan.Batch:
		for _, st := range p.Statements {
			if err := s.authorize(st); err != nil {
				return err
			}
		}
	case *plan.Truncate:
		return m.Authorize(c, auth.PermModify, table(p.Table))
	case *plan.CreateKeyspace:
		return m.Authorize(c, auth.PermCreate, auth.AllKeyspaces())
	case *plan.AlterKeyspace:
		return m.Authorize(c, auth.PermAlter, auth.KeyspaceResource(p.Spec.Name))
	case *plan.DropKeyspace:
		return m.Authorize(c, auth.PermDrop, auth.KeyspaceResource(p.Name))
	case *plan.CreateTable:
		return m.Authorize(c, auth.PermCreate, auth.AllTablesResource(p.Spec.Keyspace))
	case *plan.AlterTable:
		return m.Authorize(c, auth.PermAlter, auth.TableResource(p.Spec.Keyspace, p.Spec.Name))
	case *plan.DropTable:
		return m.Authorize(c, auth.PermDrop, auth.TableResource(p.Keyspace, p.Name))
	case *plan.CreateIndex:
		return m.Authorize(c, auth.PermAlter, auth.TableResource(p.Spec.Keyspace, p.Spec.Table))
	case *plan.DropIndex:
		if t := indexTable(s.engine.catalog.Current(), p.Keyspace, p.Name); t != nil {
			return m.Authorize(c, auth.PermAlter, table(t))
		}
	case *plan.CreateView:
		return m.Authorize(c, auth.PermAlter, auth.TableResource(p.Spec.Keyspace, p.Spec.Base))
	case *plan.AlterView:
		// AlterViewStatement/DropViewStatement.authorize: ALTER on the base
		// table; a view that does not exist is left to the statement's
		// own error.
		if v := s.engine.catalog.Current().Table(p.Keyspace, p.Name); v != nil && v.View != nil {
			return m.Authorize(c, auth.PermAlter, auth.TableResource(p.Keyspace, v.View.Base))
		}
	case *plan.DropView:
		if v := s.engine.catalog.Current().Table(p.Keyspace, p.Name); v != nil && v.View != nil {
			return m.Authorize(c, auth.PermAlter, auth.TableResource(p.Keyspace, v.View.Base))
		}
	case *plan.CreateType:
		return m.Authorize(c, auth.PermCreate, auth.AllTablesResource(p.Spec.Keyspace))
	case *plan.AlterType:
		return m.Authorize(c, auth.PermAlter, auth.AllTablesResource(p.Spec.Keyspace))
	case *plan.DropType:
		return m.Authorize(c, auth.PermDrop, auth.AllTablesResource(p.Keyspace))
	}
	return nil
}

// afterSchemaChange keeps permissions in step with the schema: the creator
// of a keyspace or table gets every permission on it, and a dropped one
// takes its permissions with it (so a new one of that name starts bare).
func (s *Session) afterSchemaChange(ctx context.Context, p plan.Statement, res *Result) error {
	m := s.engine.auth
	if !m.Authorization() || res == nil || res.Kind != ResultSchemaChange {
		return nil
	}
	c := auth.Caller{Name: s.Role()}
	switch p := p.(type) {
	case *plan.CreateKeyspace:
		return m.GrantToCreator(ctx, c, auth.KeyspaceResource(p.Spec.Name), auth.KeyspaceFunctions(p.Spec.Name))
	case *plan.CreateTable:
		return m.GrantToCreator(ctx, c, auth.TableResource(p.Spec.Keyspace, p.Spec.Name))
	case *plan.DropKeyspace:
		return m.RevokeAllOn(ctx, auth.KeyspaceResource(p.Name), auth.KeyspaceFunctions(p.Name))
	case *plan.DropTable:
		return m.RevokeAllOn(ctx, auth.TableResource(p.Keyspace, p.Name))
	}
	return nil
}

// permissionResource resolves the resource of a permission statement and
// whether it exists (PermissionsManagementStatement.maybeCorrectResource).
func (s *Session) permissionResource(r *ast.PermissionResource) (auth.Resource, bool) {
	schema := s.engine.catalog.Current()
	ks := r.Keyspace
	if ks == "" {
		ks = s.Keyspace()
	}
	switch r.Kind {
	case ast.ResourceAllKeyspaces:
		return auth.AllKeyspaces(), true
	case ast.ResourceKeyspace:
		return auth.KeyspaceResource(ks), schema.Keyspace(ks) != nil
	case ast.ResourceTable:
		k := schema.Keyspace(ks)
		return auth.TableResource(ks, r.Name), k != nil && k.Table(r.Name) != nil
	case ast.ResourceAllTablesIn:
		return auth.AllTablesResource(ks), schema.Keyspace(ks) != nil
	case ast.ResourceAllFunctions:
		return auth.AllFunctions(), true
	case ast.ResourceAllFunctionsIn:
		return auth.KeyspaceFunctions(ks), schema.Keyspace(ks) != nil
	case ast.ResourceAllRoles:
		return auth.AllRoles(), true
	case ast.ResourceFunction:
		// Partita runs no user-defined functions, so none exists.
		args := make([]string, len(r.ArgTypes))
		for i, t := range r.ArgTypes {
			args[i] = t.String()
		}
		return auth.FunctionResource(ks, r.Name, args), false
	}
	_, ok := s.engine.auth.Role(r.Name)
	return auth.RoleResource(r.Name), ok
}

func permissions(names []string) []auth.Permission {
	if names == nil {
		return nil
	}
	out := make([]auth.Permission, 0, len(names))
	for _, n := range names {
		if p, ok := auth.ParsePermission(n); ok {
			out = append(out, p)
		}
	}
	return out
}

// runPermissions runs GRANT, REVOKE and LIST permissions.
func (s *Session) runPermissions(ctx context.Context, stmt ast.Statement) (*Result, error) {
	m, c := s.engine.auth, auth.Caller{Name: s.Role()}
	var res *ast.PermissionResource
	switch st := stmt.(type) {
	case *ast.GrantPermissions:
		res = &st.Resource
	case *ast.ListPermissions:
		res = st.Resource
	}
	if res != nil && res.Kind == ast.ResourceFunction && res.Keyspace == "" {
		// FunctionResource.functionFromCql (the message's spelling is Cassandra's).
		return nil, cqlerr.Invalidf("In this context function name must be explictly qualified by a keyspace")
	}
	switch st := stmt.(type) {
	case *ast.GrantPermissions:
		r, exists := s.permissionResource(&st.Resource)
		var err error
		if st.Revoke {
			err = m.RevokePermissions(ctx, c, permissions(st.Permissions), r, st.Role, exists)
		} else {
			err = m.GrantPermissions(ctx, c, permissions(st.Permissions), r, st.Role, exists)
		}
		if err != nil {
			return nil, err
		}
		return &Result{Kind: ResultVoid}, nil
	case *ast.ListPermissions:
		var r auth.Resource
		exists := true
		if st.Resource != nil {
			r, exists = s.permissionResource(st.Resource)
		}
		rows, err := m.ListPermissions(c, permissions(st.Permissions), r, st.Resource != nil, st.Of, st.HasOf, !st.NoRecursive, exists)
		if err != nil {
			return nil, err
		}
		return listPermissionsResult(rows), nil
	}
	return nil, nil
}

// listPermissionsResult is ListPermissionsStatement's result: role,
// username, resource and permission.
func listPermissionsResult(rows []auth.PermissionRow) *Result {
	col := func(name string) Column {
		return Column{Keyspace: systables.AuthKeyspace, Table: "permissions", Name: name, Type: types.Text}
	}
	res := &Result{Kind: ResultRows, Columns: []Column{col("role"), col("username"), col("resource"), col("permission")}}
	for _, r := range rows {
		res.Rows = append(res.Rows, [][]byte{[]byte(r.Role), []byte(r.Role), []byte(r.Resource.String()), []byte(r.Permission.String())})
	}
	return res
}

// indexTable is the table of the named index, nil if there is none.
func indexTable(schema *catalog.Schema, keyspace, name string) *catalog.Table {
	ks := schema.Keyspace(keyspace)
	if ks == nil {
		return nil
	}
	for _, t := range ks.Tables {
		for _, ix := range t.Indexes {
			if ix.Name == name {
				return t
			}
		}
	}
	return nil
}
