package systables

import (
	"context"
	"strings"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cqlerr"
)

// Env is what the rows are rendered from: the current schema snapshot and
// the node's description.
type Env struct {
	Schema *catalog.Schema
	Node   Node
	// Peers are the other live nodes (gateways over one cluster keyspace);
	// a single node has none.
	Peers []Node
	// Partita provides the system_partita tables (nil: they are empty).
	Partita PartitaSource
	// Traces provides the system_traces tables (nil: they are empty).
	Traces TracesSource
	// Auth provides the system_auth tables (nil: they are empty).
	Auth AuthSource
}

// renderer fills in every row of one built-in table, in any order.
type renderer func(env *Env, rs *rowSet)

// renderers answer the built-in tables, by "keyspace.table".
var renderers = map[string]renderer{
	"system.local":    localRows,
	"system.peers":    peersRows,
	"system.peers_v2": peersV2Rows,

	"system_schema.keyspaces":       keyspacesRows,
	"system_schema.tables":          tablesRows,
	"system_schema.columns":         columnsRows,
	"system_schema.dropped_columns": droppedColumnsRows,
	"system_schema.types":           typesRows,
	"system_schema.indexes":         indexesRows,
	"system_schema.functions":       noRows,
	"system_schema.aggregates":      noRows,
	"system_schema.triggers":        noRows,
	"system_schema.views":           viewsRows,

	"system_virtual_schema.keyspaces": virtualKeyspacesRows,
	"system_virtual_schema.tables":    virtualTablesRows,
	"system_virtual_schema.columns":   virtualColumnsRows,

	"system_partita.splits":           splitsRows,
	"system_partita.split_history":    splitHistoryRows,
	"system_partita.large_partitions": largePartitionsRows,
	"system_partita.statements":       statementsRows,

	"system_auth.roles":                          authRolesRows,
	"system_auth.role_members":                   authRoleMembersRows,
	"system_auth.role_permissions":               authRolePermissionsRows,
	"system_auth.resource_role_permissons_index": authResourceRoleRows,
	"system_auth.network_permissions":            noRows,
	"system_auth.cidr_groups":                    noRows,
	"system_auth.cidr_permissions":               noRows,
	"system_auth.identity_to_role":               noRows,

	"system_traces.sessions": traceSessionsRows,
	"system_traces.events":   traceEventsRows,
}

// Answers reports whether Rows can render table t.
func Answers(t *catalog.Table) bool {
	_, ok := renderers[t.Keyspace+"."+t.Name]
	return ok
}

// Rows returns every row of a built-in table: each row holds one serialized
// value per column of t.Columns, in that order (nil = null), and the rows
// come in full-scan order (invariant 3). The caller filters, orders and
// pages them.
func Rows(ctx context.Context, env *Env, t *catalog.Table) ([][][]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	render, ok := renderers[t.Keyspace+"."+t.Name]
	if !ok {
		return nil, cqlerr.Serverf("no rows for built-in table %s", t.QualifiedName())
	}
	if env == nil || env.Schema == nil {
		return nil, cqlerr.Serverf("no schema to render %s from", t.QualifiedName())
	}
	rs := newRowSet(t)
	render(env, rs)
	if len(rs.unknown) > 0 {
		return nil, cqlerr.Serverf("table %s has no column %s", t.QualifiedName(), strings.Join(rs.unknown, ", "))
	}
	SortRows(t, orderOfKeyspace(env.Schema, t.Keyspace), rs.rows)
	return rs.rows, nil
}

// TableOrder is the partition order of table t's rows in env's schema.
func TableOrder(env *Env, t *catalog.Table) PartitionOrder {
	return orderOfKeyspace(env.Schema, t.Keyspace)
}

// orderOfKeyspace is OrderOf for a keyspace named in a table, also when the
// snapshot lacks the keyspace (virtual keyspaces are known by name).
func orderOfKeyspace(s *catalog.Schema, name string) PartitionOrder {
	if ks := s.Keyspace(name); ks != nil {
		return OrderOf(ks)
	}
	switch name {
	case ViewsKeyspace, VirtualSchemaKeyspace, PartitaKeyspace:
		return KeyOrder
	}
	return TokenOrder
}
