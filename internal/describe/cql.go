package describe

import (
	"encoding/hex"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/types"
)

// keyspaceCQL is KeyspaceMetadata.toCqlString.
func keyspaceCQL(ks *catalog.Keyspace) string {
	var c cqlBuilder
	if ks.Virtual {
		c.append("/*").newLine().
			append("Warning: Keyspace ").ident(ks.Name).append(" is a virtual keyspace and cannot be recreated with CQL.").newLine().
			append("Structure, for reference:").newLine().
			append("VIRTUAL KEYSPACE ").ident(ks.Name).append(";").newLine().
			append("*/")
		return c.String()
	}
	c.append("CREATE KEYSPACE ").ident(ks.Name).append(" WITH replication = ")
	appendReplication(&c, ks.Replication)
	c.append("  AND durable_writes = ").append(strconv.FormatBool(ks.DurableWrites)).append(";")
	return c.String()
}

// appendReplication is ReplicationParams.appendCqlTo: a strategy of
// Cassandra's locator package by its simple name, then the options. They
// are in key order, as a keyspace read back from system_schema has them.
func appendReplication(c *cqlBuilder, replication map[string]string) {
	class := replication["class"]
	if simple, ok := strings.CutPrefix(class, "org.apache.cassandra.locator."); ok && !strings.Contains(simple, ".") {
		class = simple
	}
	c.append("{'class': ").quoted(class)
	options := maps.Clone(replication)
	delete(options, "class")
	for _, k := range sortedKeys(options) {
		c.append(", ").quoted(k).append(": ").quoted(options[k])
	}
	c.append("}")
}

// typeCQL is UserType.toCqlString.
func typeCQL(keyspace string, udt *types.Type) string {
	var c cqlBuilder
	c.append("CREATE TYPE ").ident(keyspace).append(".").ident(udt.Name).append(" (").newLine().increaseIndent()
	for i, name := range udt.FieldNames {
		if i > 0 {
			c.append(",").newLine()
		}
		c.ident(name).append(" ").append(udt.Elems[i].String())
	}
	c.newLine().decreaseIndent().append(");")
	return c.String()
}

// indexCQL is IndexMetadata.toCqlString: the target as
// IndexTarget.asCqlString writes it, and for a custom index its class and
// any other options.
func indexCQL(t *catalog.Table, ix *catalog.Index) string {
	var c cqlBuilder
	target := types.QuoteIdent(ix.Column)
	if ix.Target != "" {
		target = ix.Target + "(" + target + ")"
	}
	if !ix.Custom {
		c.append("CREATE INDEX ").ident(ix.Name).append(" ON ").append(t.QualifiedName()).
			append(" (").append(target).append(");")
		return c.String()
	}
	c.append("CREATE CUSTOM INDEX ").ident(ix.Name).append(" ON ").append(t.QualifiedName()).
		append(" (").append(target).append(") USING ").quoted(ix.Class)
	options := maps.Clone(ix.Options)
	delete(options, "target")
	delete(options, "class_name")
	if len(options) > 0 {
		c.append(" WITH OPTIONS = ").stringMap(options, true)
	}
	c.append(";")
	return c.String()
}

// tableCQL is TableMetadata.toCqlString(withInternals, false): WITH
// INTERNALS adds the table id and the dropped columns, replayed as the
// CREATE statement's columns followed by ALTER TABLE statements.
func tableCQL(t *catalog.Table, virtual, internals bool) string {
	var c cqlBuilder
	keyword := "CREATE"
	if virtual {
		c.append(fmt.Sprintf("/*\nWarning: Table %s is a virtual table and cannot be recreated with CQL.\nStructure, for reference:\n", t.QualifiedName()))
		keyword = "VIRTUAL"
	}
	c.append(keyword).append(" TABLE ").append(t.QualifiedName()).append(" (").newLine().increaseIndent()
	var dropped []string
	if internals {
		dropped = droppedNames(t)
	}
	single := len(t.PartitionKey) == 1 && len(t.Clustering) == 0
	appendColumns(&c, t, single, internals, dropped)
	if !single {
		appendPrimaryKey(&c, t)
	}
	c.decreaseIndent().append(")").append(" WITH ").increaseIndent()
	appendTableOptions(&c, t, virtual, internals)
	c.decreaseIndent()
	if virtual {
		c.newLine().append("*/")
	}
	for _, name := range dropped {
		d := t.Dropped[name]
		c.newLine().append("ALTER TABLE ").append(t.QualifiedName()).append(" DROP ").ident(name).
			append(" USING TIMESTAMP ").append(strconv.FormatInt(d.DroppedAt, 10)).append(";")
		if col := t.Column(name); col != nil {
			c.newLine().append("ALTER TABLE ").append(t.QualifiedName()).append(" ADD ")
			appendColumn(&c, col.Name, col.Type, col.Kind == catalog.Static)
			c.append(";")
		}
	}
	return c.String()
}

// appendColumns is TableMetadata.appendColumnDefinitions. Its comma rule
// is kept as is: after a dropped column of a table with a one-column
// primary key no comma is written, even before another dropped column.
func appendColumns(c *cqlBuilder, t *catalog.Table, single, internals bool, dropped []string) {
	cols := createOrder(t)
	for i, col := range cols {
		// A column dropped and re-added comes back after its DROP.
		if _, ok := t.Dropped[col.Name]; ok && internals {
			continue
		}
		appendColumn(c, col.Name, col.Type, col.Kind == catalog.Static)
		if single && col.Kind == catalog.PartitionKey {
			c.append(" PRIMARY KEY")
		}
		if !single || len(dropped) > 0 || i < len(cols)-1 {
			c.append(",")
		}
		c.newLine()
	}
	for _, name := range dropped {
		d := t.Dropped[name]
		appendColumn(c, name, expandUserTypes(d.Type), d.Kind == catalog.Static)
		if !single {
			c.append(",")
		}
		c.newLine()
	}
}

// appendColumn is ColumnMetadata.appendCqlTo.
func appendColumn(c *cqlBuilder, name string, typ *types.Type, static bool) {
	c.ident(name).append(" ").append(typ.String())
	if static {
		c.append(" static")
	}
}

// appendPrimaryKey is TableMetadata.appendPrimaryKey.
func appendPrimaryKey(c *cqlBuilder, t *catalog.Table) {
	c.append("PRIMARY KEY (")
	switch {
	case len(t.PartitionKey) > 1:
		c.append("(").append(joinNames(t.PartitionKey)).append(")")
	case len(t.PartitionKey) == 1:
		c.ident(t.PartitionKey[0].Name)
	}
	if len(t.Clustering) > 0 {
		c.append(", ").append(joinNames(t.Clustering))
	}
	c.append(")").newLine()
}

func joinNames(cols []*catalog.Column) string {
	names := make([]string, len(cols))
	for i, col := range cols {
		names[i] = types.QuoteIdent(col.Name)
	}
	return strings.Join(names, ", ")
}

// appendTableOptions is TableMetadata.appendTableOptions: the id WITH
// INTERNALS, the clustering order, then the options (only the comment for
// a virtual table).
func appendTableOptions(c *cqlBuilder, t *catalog.Table, virtual, internals bool) {
	if internals {
		c.append("ID = ").append(uuidString(t.ID)).newLine().append("AND ")
	}
	if len(t.Clustering) > 0 {
		order := make([]string, len(t.Clustering))
		for i, col := range t.Clustering {
			order[i] = types.QuoteIdent(col.Name) + " ASC"
			if col.Desc {
				order[i] = types.QuoteIdent(col.Name) + " DESC"
			}
		}
		c.append("CLUSTERING ORDER BY (").append(strings.Join(order, ", ")).append(")").newLine().append("AND ")
	}
	if virtual {
		c.append("comment = ").quoted(t.Options.Comment)
	} else {
		appendParams(c, t.Options, t.View != nil)
	}
	c.append(";")
}

// appendParams is Cassandra 5.0's TableParams.appendCqlTo: 4.1 added
// memtable, out of alphabetical order, and prints the default memtable
// configuration as 'default'; 5.0 added allow_auto_snapshot and
// incremental_backups. A view has no default_time_to_live.
func appendParams(c *cqlBuilder, o catalog.Options, view bool) {
	c.append("additional_write_policy = ").quoted(o.AdditionalWritePolicy).newLine().
		append("AND allow_auto_snapshot = ").append(strconv.FormatBool(!o.NoAutoSnapshot)).newLine().
		append("AND bloom_filter_fp_chance = ").append(javaDouble(o.BloomFilterFPChance)).newLine().
		append("AND caching = ").stringMap(o.Caching, true).newLine().
		append("AND cdc = ").append(strconv.FormatBool(o.CDC)).newLine().
		append("AND comment = ").quoted(o.Comment).newLine().
		append("AND compaction = ").stringMap(o.Compaction, true).newLine().
		append("AND compression = ").stringMap(o.Compression, true).newLine().
		append("AND memtable = 'default'").newLine().
		append("AND crc_check_chance = ").append(javaDouble(o.CRCCheckChance)).newLine()
	if !view {
		c.append("AND default_time_to_live = ").append(strconv.Itoa(int(o.DefaultTTL))).newLine()
	}
	c.append("AND extensions = ").stringMap(hexValues(o.Extensions), false).newLine().
		append("AND gc_grace_seconds = ").append(strconv.Itoa(int(o.GCGraceSeconds))).newLine().
		append("AND incremental_backups = ").append(strconv.FormatBool(!o.NoIncrementalBackups)).newLine().
		append("AND max_index_interval = ").append(strconv.Itoa(int(o.MaxIndexInterval))).newLine().
		append("AND memtable_flush_period_in_ms = ").append(strconv.Itoa(int(o.MemtableFlushPeriodMs))).newLine().
		append("AND min_index_interval = ").append(strconv.Itoa(int(o.MinIndexInterval))).newLine().
		append("AND read_repair = ").quoted(o.ReadRepair).newLine().
		append("AND speculative_retry = ").quoted(o.SpeculativeRetry)
}

// hexValues writes extension values as blob literals
// (ByteBufferUtil.bytesToHex, lower case).
func hexValues(m map[string][]byte) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = "0x" + hex.EncodeToString(v)
	}
	return out
}

// createOrder is TableMetadata.allColumnsInCreateOrder: partition key and
// clustering columns by position, then static and regular columns as their
// Columns objects iterate, single-cell ones before multi-cell ones, each in
// ColumnMetadata order.
func createOrder(t *catalog.Table) []*catalog.Column {
	out := make([]*catalog.Column, 0, len(t.Columns))
	out = append(out, t.PartitionKey...)
	out = append(out, t.Clustering...)
	for _, group := range [][]*catalog.Column{t.Statics, t.Regulars} {
		var simple, complex []*catalog.Column
		for _, col := range group {
			if col.Type.IsMultiCell() {
				complex = append(complex, col)
			} else {
				simple = append(simple, col)
			}
		}
		out = append(out, sortedColumns(simple)...)
		out = append(out, sortedColumns(complex)...)
	}
	return out
}

func sortedColumns(cols []*catalog.Column) []*catalog.Column {
	out := append([]*catalog.Column(nil), cols...)
	sort.SliceStable(out, func(i, j int) bool { return columnLess(out[i].Name, out[j].Name) })
	return out
}

// droppedNames lists a table's dropped columns in the order Cassandra
// keeps them (javaHashOrder).
func droppedNames(t *catalog.Table) []string {
	names := make([]string, 0, len(t.Dropped))
	for name := range t.Dropped {
		names = append(names, name)
	}
	return javaHashOrder(names)
}

// expandUserTypes replaces user-defined types by tuples of their fields,
// as Cassandra records a dropped column's type
// (TableMetadata.Builder.recordColumnDrop, AbstractType.expandUserTypes).
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
	n := *t
	n.Elems = elems
	return &n
}

// uuidString is UUID.toString: lower-case 8-4-4-4-12 hex.
func uuidString(u catalog.UUID) string {
	h := hex.EncodeToString(u[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
