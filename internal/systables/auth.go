package systables

import (
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/types"
)

// AuthRole is one role, as system_auth.roles shows it.
type AuthRole struct {
	Name       string
	Super      bool
	Login      bool
	SaltedHash string // "" when the role has no password
	MemberOf   []string
}

// AuthPermissions are the permissions one role holds on one resource, by
// the resource's name (data/ks/t, roles/r, ...).
type AuthPermissions struct {
	Role, Resource string
	Permissions    []string
}

// AuthSource provides the system_auth tables: the node's roles and the
// permissions granted to them.
type AuthSource interface {
	AuthRoles() []AuthRole
	AuthPermissions() []AuthPermissions
}

// authTables are Cassandra 5.0's auth/AuthKeyspace.java tables, with its comments and
// gc_grace_seconds of 90 days; generation 1 unset memtable_flush_period_in_ms.
func authTables() []*catalog.Table {
	const ks = AuthKeyspace
	const ninetyDays = 90 * 24 * 3600
	role := col("role", text)
	tables := []*catalog.Table{
		builtinTable(catalog.BuiltinTable{Keyspace: ks, Name: "roles", Comment: "role definitions",
			PartitionKey: []catalog.ColumnSpec{role},
			Regular: []catalog.ColumnSpec{col("can_login", types.Boolean), col("is_superuser", types.Boolean),
				col("member_of", setOfText), col("salted_hash", text)}}, ninetyDays),
		builtinTable(catalog.BuiltinTable{Keyspace: ks, Name: "role_members", Comment: "role memberships lookup table",
			PartitionKey: []catalog.ColumnSpec{role}, Clustering: []catalog.ColumnSpec{col("member", text)}}, ninetyDays),
		builtinTable(catalog.BuiltinTable{Keyspace: ks, Name: "role_permissions", Comment: "permissions granted to db roles",
			PartitionKey: []catalog.ColumnSpec{role}, Clustering: []catalog.ColumnSpec{col("resource", text)},
			Regular: []catalog.ColumnSpec{col("permissions", setOfText)}}, ninetyDays),
		builtinTable(catalog.BuiltinTable{Keyspace: ks, Name: "resource_role_permissons_index",
			Comment:      "index of db roles with permissions granted on a resource",
			PartitionKey: []catalog.ColumnSpec{col("resource", text)}, Clustering: []catalog.ColumnSpec{role}}, ninetyDays),
		builtinTable(catalog.BuiltinTable{Keyspace: ks, Name: "network_permissions", Comment: "user network permissions",
			PartitionKey: []catalog.ColumnSpec{role}, Regular: []catalog.ColumnSpec{col("dcs", frozenTextSet)}}, ninetyDays),
		// Cassandra 5.0's CIDR authorizer and mutual TLS authenticator
		// tables; Partita has neither, so they stay empty.
		builtinTable(catalog.BuiltinTable{Keyspace: ks, Name: "cidr_groups", Comment: "cidr groups to cidrs mapping",
			PartitionKey: []catalog.ColumnSpec{col("cidr_group", text)},
			Regular:      []catalog.ColumnSpec{col("cidrs", types.Frozen(types.SetOf(types.Frozen(types.TupleOf(types.Inet, types.Smallint)))))}}, ninetyDays),
		builtinTable(catalog.BuiltinTable{Keyspace: ks, Name: "cidr_permissions", Comment: "user cidr permissions",
			PartitionKey: []catalog.ColumnSpec{role}, Regular: []catalog.ColumnSpec{col("cidr_groups", frozenTextSet)}}, ninetyDays),
		builtinTable(catalog.BuiltinTable{Keyspace: ks, Name: "identity_to_role", Comment: "mtls authorized identities lookup table",
			PartitionKey: []catalog.ColumnSpec{col("identity", text)}, Regular: []catalog.ColumnSpec{role}}, ninetyDays),
	}
	for _, t := range tables {
		t.Options.MemtableFlushPeriodMs = 0
	}
	return tables
}

func authRolesRows(env *Env, rs *rowSet) {
	if env.Auth == nil {
		return
	}
	for _, r := range env.Auth.AuthRoles() {
		row := rs.newRow().put("role", textValue(r.Name)).put("can_login", booleanValue(r.Login)).
			put("is_superuser", booleanValue(r.Super))
		if len(r.MemberOf) > 0 {
			row.put("member_of", textSetValue(r.MemberOf))
		}
		if r.SaltedHash != "" {
			row.put("salted_hash", textValue(r.SaltedHash))
		}
	}
}

func authRoleMembersRows(env *Env, rs *rowSet) {
	if env.Auth == nil {
		return
	}
	for _, r := range env.Auth.AuthRoles() {
		for _, granted := range r.MemberOf {
			rs.newRow().put("role", textValue(granted)).put("member", textValue(r.Name))
		}
	}
}

func authRolePermissionsRows(env *Env, rs *rowSet) {
	if env.Auth == nil {
		return
	}
	for _, p := range env.Auth.AuthPermissions() {
		rs.newRow().put("role", textValue(p.Role)).put("resource", textValue(p.Resource)).
			put("permissions", textSetValue(p.Permissions))
	}
}

func authResourceRoleRows(env *Env, rs *rowSet) {
	if env.Auth == nil {
		return
	}
	for _, p := range env.Auth.AuthPermissions() {
		rs.newRow().put("resource", textValue(p.Resource)).put("role", textValue(p.Role))
	}
}
