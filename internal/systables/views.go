package systables

import "github.com/partita-db/partita/internal/catalog"

// viewsRows renders system_schema.views: one row per materialized view
// (SchemaKeyspace.addViewToSchemaMutation), its table parameters as a
// table's.
func viewsRows(env *Env, rs *rowSet) {
	schemaTablesOf(env.Schema, func(t *catalog.Table) {
		if t.View == nil {
			return
		}
		r := rs.newRow().
			put("keyspace_name", textValue(t.Keyspace)).
			put("view_name", textValue(t.Name)).
			put("id", uuidValue(t.ID)).
			put("base_table_id", uuidValue(t.View.BaseID)).
			put("base_table_name", textValue(t.View.Base)).
			put("include_all_columns", booleanValue(t.View.IncludeAll)).
			put("where_clause", textValue(t.View.WhereClause))
		putTableParams(r, t.Options)
	})
}
