package systables

import "github.com/partita-db/partita/internal/catalog"

// The system_virtual_schema tables (db/virtual/VirtualSchemaKeyspace.java):
// the same description as system_schema's, for the virtual keyspaces only.

// virtualKeyspaces returns the virtual keyspaces in name order.
func virtualKeyspaces(s *catalog.Schema) []*catalog.Keyspace {
	var out []*catalog.Keyspace
	for _, name := range s.KeyspaceNames() {
		if ks := s.Keyspaces[name]; ks.Virtual {
			out = append(out, ks)
		}
	}
	return out
}

func virtualKeyspacesRows(env *Env, rs *rowSet) {
	for _, ks := range virtualKeyspaces(env.Schema) {
		rs.newRow().put("keyspace_name", textValue(ks.Name))
	}
}

func virtualTablesRows(env *Env, rs *rowSet) {
	for _, ks := range virtualKeyspaces(env.Schema) {
		for _, name := range ks.TableNames() {
			t := ks.Tables[name]
			rs.newRow().
				put("keyspace_name", textValue(ks.Name)).
				put("table_name", textValue(t.Name)).
				put("comment", textValue(t.Options.Comment))
		}
	}
}

func virtualColumnsRows(env *Env, rs *rowSet) {
	for _, ks := range virtualKeyspaces(env.Schema) {
		for _, name := range ks.TableNames() {
			putColumns(rs, ks.Tables[name])
		}
	}
}
