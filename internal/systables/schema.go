package systables

import (
	"maps"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/types"
)

// The system_schema tables, rendered as SchemaKeyspace.makeCreateKeyspaceMutation
// and the add*ToSchemaMutation methods write them.

// schemaKeyspaces returns the keyspaces system_schema describes
// (invariant 4), in name order.
func schemaKeyspaces(s *catalog.Schema) []*catalog.Keyspace {
	var out []*catalog.Keyspace
	for _, name := range s.KeyspaceNames() {
		if ks := s.Keyspaces[name]; !ks.Virtual {
			out = append(out, ks)
		}
	}
	return out
}

// schemaTablesOf calls f for every table of the described keyspaces.
func schemaTablesOf(s *catalog.Schema, f func(t *catalog.Table)) {
	for _, ks := range schemaKeyspaces(s) {
		for _, name := range ks.TableNames() {
			f(ks.Tables[name])
		}
	}
}

func keyspacesRows(env *Env, rs *rowSet) {
	for _, ks := range schemaKeyspaces(env.Schema) {
		rs.newRow().
			put("keyspace_name", textValue(ks.Name)).
			put("durable_writes", booleanValue(ks.DurableWrites)).
			put("replication", textMapValue(ks.Replication))
	}
}

func tablesRows(env *Env, rs *rowSet) {
	schemaTablesOf(env.Schema, func(t *catalog.Table) {
		if t.View != nil {
			return // system_schema.views
		}
		r := rs.newRow().
			put("keyspace_name", textValue(t.Keyspace)).
			put("table_name", textValue(t.Name)).
			put("id", uuidValue(t.ID)).
			put("flags", textSetValue(tableFlags(t)))
		putTableParams(r, t.Options)
	})
}

// tableFlags is TableMetadata.Flag.toStringSet for a CQL table: every
// table Cassandra 4 creates is compound (TableMetadata.Builder's default),
// and counter tables add counter. Compact tables do not exist in 4.0+.
func tableFlags(t *catalog.Table) []string {
	if t.IsCounter {
		return []string{"compound", "counter"}
	}
	return []string{"compound"}
}

// putTableParams is SchemaKeyspace.addTableParamsToRowBuilder. The
// read-repair chances are no longer used and always 0.0. Cassandra writes
// cdc only where CDC is enabled on the node and memtable only for a
// non-default memtable, so with Partita's defaults both are null; a table
// created WITH cdc = true still shows it.
func putTableParams(r row, o catalog.Options) {
	r.put("additional_write_policy", textValue(o.AdditionalWritePolicy)).
		put("bloom_filter_fp_chance", doubleValue(o.BloomFilterFPChance)).
		put("caching", textMapValue(o.Caching)).
		put("comment", textValue(o.Comment)).
		put("compaction", textMapValue(o.Compaction)).
		put("compression", textMapValue(o.Compression)).
		put("crc_check_chance", doubleValue(o.CRCCheckChance)).
		put("dclocal_read_repair_chance", doubleValue(0)).
		put("default_time_to_live", intValue(o.DefaultTTL)).
		put("extensions", blobMapValue(o.Extensions)).
		put("gc_grace_seconds", intValue(o.GCGraceSeconds)).
		put("max_index_interval", intValue(o.MaxIndexInterval)).
		put("memtable_flush_period_in_ms", intValue(o.MemtableFlushPeriodMs)).
		put("min_index_interval", intValue(o.MinIndexInterval)).
		put("read_repair", textValue(o.ReadRepair)).
		put("read_repair_chance", doubleValue(0)).
		put("speculative_retry", textValue(o.SpeculativeRetry))
	if o.CDC {
		r.put("cdc", booleanValue(true))
	}
	// Cassandra 5.0 writes these two only when they are off, as the
	// reference node shows.
	if o.NoAutoSnapshot {
		r.put("allow_auto_snapshot", booleanValue(false))
	}
	if o.NoIncrementalBackups {
		r.put("incremental_backups", booleanValue(false))
	}
}

func columnsRows(env *Env, rs *rowSet) {
	schemaTablesOf(env.Schema, func(t *catalog.Table) { putColumns(rs, t) })
}

// putColumns adds one row per column of t, as
// SchemaKeyspace.addColumnToSchemaMutation and VirtualSchemaKeyspace's
// columns table write them.
func putColumns(rs *rowSet, t *catalog.Table) {
	for _, c := range t.Columns {
		rs.newRow().
			put("keyspace_name", textValue(t.Keyspace)).
			put("table_name", textValue(t.Name)).
			put("column_name", textValue(c.Name)).
			put("clustering_order", textValue(clusteringOrder(c))).
			put("column_name_bytes", textValue(c.Name)).
			put("kind", textValue(c.Kind.String())).
			put("position", intValue(int32(columnPosition(c)))).
			put("type", textValue(c.Type.String()))
	}
}

// clusteringOrder is ColumnMetadata.clusteringOrder, lower-cased.
func clusteringOrder(c *catalog.Column) string {
	switch {
	case c.Kind != catalog.Clustering:
		return "none"
	case c.Desc:
		return "desc"
	}
	return "asc"
}

// columnPosition is ColumnMetadata.position: the index within the
// partition key or clustering columns, -1 for static and regular columns.
func columnPosition(c *catalog.Column) int {
	if c.IsPrimaryKey() {
		return c.Position
	}
	return -1
}

func droppedColumnsRows(env *Env, rs *rowSet) {
	schemaTablesOf(env.Schema, func(t *catalog.Table) {
		for name, d := range t.Dropped {
			rs.newRow().
				put("keyspace_name", textValue(t.Keyspace)).
				put("table_name", textValue(t.Name)).
				put("column_name", textValue(name)).
				put("dropped_time", timestampValue(d.DroppedAt/1000)).
				put("kind", textValue(d.Kind.String())).
				put("type", textValue(expandUserTypes(d.Type).String()))
		}
	})
}

// expandUserTypes replaces every user-defined type in t by the tuple of its
// fields, as AbstractType.expandUserTypes does for dropped_columns, so that a
// dropped column does not keep its type alive.
func expandUserTypes(t *types.Type) *types.Type {
	if t == nil || len(t.Elems) == 0 {
		return t
	}
	elems := make([]*types.Type, len(t.Elems))
	for i, e := range t.Elems {
		elems[i] = expandUserTypes(e)
	}
	if t.Kind == types.KindUDT {
		return types.TupleOf(elems...)
	}
	c := *t
	c.Elems = elems
	return &c
}

func typesRows(env *Env, rs *rowSet) {
	for _, ks := range schemaKeyspaces(env.Schema) {
		for _, udt := range ks.Types {
			fieldTypes := make([]string, len(udt.Elems))
			for i, f := range udt.Elems {
				fieldTypes[i] = f.String()
			}
			rs.newRow().
				put("keyspace_name", textValue(ks.Name)).
				put("type_name", textValue(udt.Name)).
				put("field_names", textListValue(udt.FieldNames)).
				put("field_types", textListValue(fieldTypes))
		}
	}
}

func indexesRows(env *Env, rs *rowSet) {
	schemaTablesOf(env.Schema, func(t *catalog.Table) {
		for _, ix := range t.Indexes {
			kind := "COMPOSITES"
			if ix.Custom {
				kind = "CUSTOM"
			}
			rs.newRow().
				put("keyspace_name", textValue(t.Keyspace)).
				put("table_name", textValue(t.Name)).
				put("index_name", textValue(ix.Name)).
				put("kind", textValue(kind)).
				put("options", textMapValue(indexOptions(ix)))
		}
	})
}

// indexOptions are IndexMetadata.options: the user's options plus target
// (IndexTarget.asCqlString: the quoted column name, or keys(c), values(c),
// entries(c), full(c)) and, for a custom index, class_name.
func indexOptions(ix *catalog.Index) map[string]string {
	opts := maps.Clone(ix.Options)
	if opts == nil {
		opts = map[string]string{}
	}
	target := types.QuoteIdent(ix.Column)
	if ix.Target != "" {
		target = ix.Target + "(" + target + ")"
	}
	opts["target"] = target
	if ix.Custom && ix.Class != "" {
		opts["class_name"] = ix.Class
	}
	return opts
}

// noRows renders the tables of objects Partita does not have: functions,
// aggregates, triggers.
func noRows(*Env, *rowSet) {}
