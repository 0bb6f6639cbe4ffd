package ast

import (
	"sort"
	"strings"
)

// RoleOptions are the WITH options of CREATE and ALTER ROLE (and the
// legacy USER forms): each pointer is nil when the option is absent.
type RoleOptions struct {
	Super, Login   *bool
	Password       *string
	HashedPassword *string
	// Options is OPTIONS = {...}, HasOptions whether it was given.
	Options    map[string]string
	HasOptions bool
	// Datacenters is ACCESS TO DATACENTERS {...}; AllDatacenters is
	// ACCESS TO ALL DATACENTERS.
	Datacenters    []string
	AllDatacenters bool
}

// CreateRole is CREATE ROLE, or CREATE USER when User is set (whose
// options then hold LOGIN = true).
type CreateRole struct {
	Pos
	Name        string
	IfNotExists bool
	Options     RoleOptions
	User        bool
}

// AlterRole is ALTER ROLE, or ALTER USER when User is set.
type AlterRole struct {
	Pos
	Name     string
	IfExists bool
	Options  RoleOptions
	User     bool
}

// DropRole is DROP ROLE, or DROP USER when User is set.
type DropRole struct {
	Pos
	Name     string
	IfExists bool
	User     bool
}

// GrantRole is GRANT role TO grantee.
type GrantRole struct {
	Pos
	Role, Grantee string
}

// RevokeRole is REVOKE role FROM revokee.
type RevokeRole struct {
	Pos
	Role, Revokee string
}

// ListRoles is LIST ROLES [OF grantee] [NORECURSIVE].
type ListRoles struct {
	Pos
	Of          string
	HasOf       bool
	NoRecursive bool
}

// ListUsers is LIST USERS.
type ListUsers struct {
	Pos
}

func (*CreateRole) statementNode() {}
func (*AlterRole) statementNode()  {}
func (*DropRole) statementNode()   {}
func (*GrantRole) statementNode()  {}
func (*RevokeRole) statementNode() {}
func (*ListRoles) statementNode()  {}
func (*ListUsers) statementNode()  {}

// writeRoleName writes a role name as a string literal, which keeps its
// case and any character.
func writeRoleName(buf *strings.Builder, name string) {
	buf.WriteByte('\'')
	buf.WriteString(strings.ReplaceAll(name, "'", "''"))
	buf.WriteByte('\'')
}

func writeBool(buf *strings.Builder, b bool) {
	if b {
		buf.WriteString("true")
	} else {
		buf.WriteString("false")
	}
}

// format appends " WITH o" in the ROLE syntax, nothing when o is empty.
func (o *RoleOptions) format(buf *strings.Builder) {
	var parts []string
	add := func(f func(b *strings.Builder)) {
		var b strings.Builder
		f(&b)
		parts = append(parts, b.String())
	}
	if o.Password != nil {
		add(func(b *strings.Builder) { b.WriteString("PASSWORD = "); writeRoleName(b, *o.Password) })
	}
	if o.HashedPassword != nil {
		add(func(b *strings.Builder) { b.WriteString("HASHED PASSWORD = "); writeRoleName(b, *o.HashedPassword) })
	}
	if o.HasOptions {
		add(func(b *strings.Builder) {
			keys := make([]string, 0, len(o.Options))
			for k := range o.Options {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			b.WriteString("OPTIONS = {")
			for i, k := range keys {
				if i > 0 {
					b.WriteString(", ")
				}
				writeRoleName(b, k)
				b.WriteString(": ")
				writeRoleName(b, o.Options[k])
			}
			b.WriteByte('}')
		})
	}
	if o.Super != nil {
		add(func(b *strings.Builder) { b.WriteString("SUPERUSER = "); writeBool(b, *o.Super) })
	}
	if o.Login != nil {
		add(func(b *strings.Builder) { b.WriteString("LOGIN = "); writeBool(b, *o.Login) })
	}
	if o.AllDatacenters {
		parts = append(parts, "ACCESS TO ALL DATACENTERS")
	}
	if o.Datacenters != nil {
		add(func(b *strings.Builder) {
			b.WriteString("ACCESS TO DATACENTERS {")
			for i, dc := range o.Datacenters {
				if i > 0 {
					b.WriteString(", ")
				}
				writeRoleName(b, dc)
			}
			b.WriteByte('}')
		})
	}
	if len(parts) > 0 {
		buf.WriteString(" WITH ")
		buf.WriteString(strings.Join(parts, " AND "))
	}
}

// formatUser appends the legacy USER options: WITH [HASHED] PASSWORD and
// SUPERUSER or NOSUPERUSER.
func (o *RoleOptions) formatUser(buf *strings.Builder) {
	switch {
	case o.Password != nil:
		buf.WriteString(" WITH PASSWORD ")
		writeRoleName(buf, *o.Password)
	case o.HashedPassword != nil:
		buf.WriteString(" WITH HASHED PASSWORD ")
		writeRoleName(buf, *o.HashedPassword)
	}
	if o.Super != nil {
		if *o.Super {
			buf.WriteString(" SUPERUSER")
		} else {
			buf.WriteString(" NOSUPERUSER")
		}
	}
}

// Format appends the statement as canonical CQL.
func (s *CreateRole) Format(buf *strings.Builder) {
	if s.User {
		buf.WriteString("CREATE USER ")
	} else {
		buf.WriteString("CREATE ROLE ")
	}
	writeIf(buf, s.IfNotExists, "IF NOT EXISTS ")
	writeRoleName(buf, s.Name)
	if s.User {
		s.Options.formatUser(buf)
	} else {
		s.Options.format(buf)
	}
}

// Format appends the statement as canonical CQL.
func (s *AlterRole) Format(buf *strings.Builder) {
	if s.User {
		buf.WriteString("ALTER USER ")
	} else {
		buf.WriteString("ALTER ROLE ")
	}
	writeIf(buf, s.IfExists, "IF EXISTS ")
	writeRoleName(buf, s.Name)
	if s.User {
		s.Options.formatUser(buf)
	} else {
		s.Options.format(buf)
	}
}

// Format appends the statement as canonical CQL.
func (s *DropRole) Format(buf *strings.Builder) {
	if s.User {
		buf.WriteString("DROP USER ")
	} else {
		buf.WriteString("DROP ROLE ")
	}
	writeIf(buf, s.IfExists, "IF EXISTS ")
	writeRoleName(buf, s.Name)
}

// Format appends the statement as canonical CQL.
func (s *GrantRole) Format(buf *strings.Builder) {
	buf.WriteString("GRANT ")
	writeRoleName(buf, s.Role)
	buf.WriteString(" TO ")
	writeRoleName(buf, s.Grantee)
}

// Format appends the statement as canonical CQL.
func (s *RevokeRole) Format(buf *strings.Builder) {
	buf.WriteString("REVOKE ")
	writeRoleName(buf, s.Role)
	buf.WriteString(" FROM ")
	writeRoleName(buf, s.Revokee)
}

// Format appends the statement as canonical CQL.
func (s *ListRoles) Format(buf *strings.Builder) {
	buf.WriteString("LIST ROLES")
	if s.HasOf {
		buf.WriteString(" OF ")
		writeRoleName(buf, s.Of)
	}
	writeIf(buf, s.NoRecursive, " NORECURSIVE")
}

// Format appends the statement as canonical CQL.
func (s *ListUsers) Format(buf *strings.Builder) { buf.WriteString("LIST USERS") }

func (s *CreateRole) String() string { return format(s) }
func (s *AlterRole) String() string  { return format(s) }
func (s *DropRole) String() string   { return format(s) }
func (s *GrantRole) String() string  { return format(s) }
func (s *RevokeRole) String() string { return format(s) }
func (s *ListRoles) String() string  { return format(s) }
func (s *ListUsers) String() string  { return format(s) }

// ResourceKind is the kind of resource a permission statement names.
type ResourceKind int

const (
	ResourceAllKeyspaces ResourceKind = iota + 1
	ResourceKeyspace
	ResourceTable
	ResourceAllTablesIn
	ResourceAllFunctions
	ResourceAllFunctionsIn
	ResourceAllRoles
	ResourceRole
	ResourceFunction // FUNCTION ks.f(types): Keyspace, Name, ArgTypes
)

// PermissionResource is the resource of GRANT, REVOKE and LIST
// permissions; Keyspace is empty for a table named without one.
type PermissionResource struct {
	Kind     ResourceKind
	Keyspace string
	Name     string
	ArgTypes []TypeRef // ResourceFunction
}

// Format appends the resource as canonical CQL.
func (r *PermissionResource) Format(buf *strings.Builder) {
	switch r.Kind {
	case ResourceAllKeyspaces:
		buf.WriteString("ALL KEYSPACES")
	case ResourceKeyspace:
		buf.WriteString("KEYSPACE ")
		writeIdent(buf, r.Keyspace)
	case ResourceTable:
		buf.WriteString("TABLE ")
		if r.Keyspace != "" {
			writeIdent(buf, r.Keyspace)
			buf.WriteByte('.')
		}
		writeIdent(buf, r.Name)
	case ResourceAllTablesIn:
		buf.WriteString("ALL TABLES IN KEYSPACE ")
		writeIdent(buf, r.Keyspace)
	case ResourceAllFunctions:
		buf.WriteString("ALL FUNCTIONS")
	case ResourceAllFunctionsIn:
		buf.WriteString("ALL FUNCTIONS IN KEYSPACE ")
		writeIdent(buf, r.Keyspace)
	case ResourceAllRoles:
		buf.WriteString("ALL ROLES")
	case ResourceRole:
		buf.WriteString("ROLE ")
		writeRoleName(buf, r.Name)
	case ResourceFunction:
		buf.WriteString("FUNCTION ")
		if r.Keyspace != "" {
			writeIdent(buf, r.Keyspace)
			buf.WriteByte('.')
		}
		writeIdent(buf, r.Name)
		buf.WriteByte('(')
		for i, t := range r.ArgTypes {
			if i > 0 {
				buf.WriteString(", ")
			}
			t.Format(buf)
		}
		buf.WriteByte(')')
	}
}

// GrantPermissions is GRANT permissions ON resource TO role, and
// RevokePermissions REVOKE ... FROM role. Permissions nil means ALL.
type GrantPermissions struct {
	Pos
	Permissions []string
	Resource    PermissionResource
	Role        string
	Revoke      bool
}

// ListPermissions is LIST permissions [ON resource] [OF role] [NORECURSIVE].
type ListPermissions struct {
	Pos
	Permissions []string
	Resource    *PermissionResource
	Of          string
	HasOf       bool
	NoRecursive bool
}

func (*GrantPermissions) statementNode() {}
func (*ListPermissions) statementNode()  {}

func writePermissions(buf *strings.Builder, perms []string) {
	if perms == nil {
		buf.WriteString("ALL PERMISSIONS")
		return
	}
	buf.WriteString(strings.Join(perms, ", "))
}

// Format appends the statement as canonical CQL.
func (s *GrantPermissions) Format(buf *strings.Builder) {
	if s.Revoke {
		buf.WriteString("REVOKE ")
	} else {
		buf.WriteString("GRANT ")
	}
	writePermissions(buf, s.Permissions)
	buf.WriteString(" ON ")
	s.Resource.Format(buf)
	if s.Revoke {
		buf.WriteString(" FROM ")
	} else {
		buf.WriteString(" TO ")
	}
	writeRoleName(buf, s.Role)
}

// Format appends the statement as canonical CQL.
func (s *ListPermissions) Format(buf *strings.Builder) {
	buf.WriteString("LIST ")
	writePermissions(buf, s.Permissions)
	if s.Resource != nil {
		buf.WriteString(" ON ")
		s.Resource.Format(buf)
	}
	if s.HasOf {
		buf.WriteString(" OF ")
		writeRoleName(buf, s.Of)
	}
	writeIf(buf, s.NoRecursive, " NORECURSIVE")
}

func (s *GrantPermissions) String() string { return format(s) }
func (s *ListPermissions) String() string  { return format(s) }
