package engine

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/exec"
	"github.com/partita-db/partita/internal/plan"
	"github.com/partita-db/partita/internal/types"
)

// Guardrails are Cassandra 5.0's guardrails that apply to one node
// (db/guardrails/Guardrails.java, the guardrails section of
// cassandra.yaml). A threshold of -1 (or 0) is off; a warning threshold
// adds a client warning, a failure threshold refuses the statement with an
// InvalidRequest. Sizes are in bytes. As in Cassandra, a guardrail applies
// only to ordinary users: with authentication off every client is a
// superuser (ClientState.isSuper), and superusers are never guarded
// (Guardrail.enabled).
type Guardrails struct {
	CollectionSizeWarn, CollectionSizeFail                     int64
	ItemsPerCollectionWarn, ItemsPerCollectionFail             int64
	ColumnValueSizeWarn, ColumnValueSizeFail                   int64
	PartitionKeysInSelectWarn, PartitionKeysInSelectFail       int64
	InSelectCartesianProductWarn, InSelectCartesianProductFail int64
	PageSizeWarn, PageSizeFail                                 int64
	TablesWarn, TablesFail                                     int64
	KeyspacesWarn, KeyspacesFail                               int64
	ColumnsPerTableWarn, ColumnsPerTableFail                   int64
	SecondaryIndexesPerTableWarn, SecondaryIndexesPerTableFail int64
	FieldsPerUDTWarn, FieldsPerUDTFail                         int64
	MaximumReplicationFactorWarn, MaximumReplicationFactorFail int64

	AllowFilteringEnabled                bool
	UserTimestampsEnabled                bool
	DropTruncateTableEnabled             bool
	DropKeyspaceEnabled                  bool
	ReadBeforeWriteListOperationsEnabled bool
	GroupByEnabled                       bool
	SimpleStrategyEnabled                bool
}

// DefaultGuardrails are Cassandra 5.0's defaults: every threshold off,
// every feature allowed.
func DefaultGuardrails() Guardrails {
	return Guardrails{
		CollectionSizeWarn: -1, CollectionSizeFail: -1, ItemsPerCollectionWarn: -1, ItemsPerCollectionFail: -1,
		ColumnValueSizeWarn: -1, ColumnValueSizeFail: -1, PartitionKeysInSelectWarn: -1, PartitionKeysInSelectFail: -1,
		InSelectCartesianProductWarn: -1, InSelectCartesianProductFail: -1, PageSizeWarn: -1, PageSizeFail: -1,
		TablesWarn: -1, TablesFail: -1, KeyspacesWarn: -1, KeyspacesFail: -1, ColumnsPerTableWarn: -1, ColumnsPerTableFail: -1,
		SecondaryIndexesPerTableWarn: -1, SecondaryIndexesPerTableFail: -1, FieldsPerUDTWarn: -1, FieldsPerUDTFail: -1,
		MaximumReplicationFactorWarn: -1, MaximumReplicationFactorFail: -1,
		AllowFilteringEnabled: true, UserTimestampsEnabled: true, DropTruncateTableEnabled: true, DropKeyspaceEnabled: true,
		ReadBeforeWriteListOperationsEnabled: true, GroupByEnabled: true, SimpleStrategyEnabled: true,
	}
}

// guard collects the warnings of one statement's guardrails.
type guard struct {
	g        *Guardrails
	warnings []string
}

// violation is GuardrailViolatedException's text (Guardrail.warn/fail).
func violation(name, msg string) string { return "Guardrail " + name + " violated: " + msg }

// threshold is MaxThreshold.guard: value above fail refuses, above warn
// warns; a threshold <= 0 is off. warn and fail build the message.
func (g *guard) threshold(name string, value, warnAt, failAt int64, warn, fail func(threshold int64) string) error {
	if failAt > 0 && value > failAt {
		return cqlerr.Invalidf("%s", violation(name, fail(failAt)))
	}
	if warnAt > 0 && value > warnAt {
		g.warnings = append(g.warnings, violation(name, warn(warnAt)))
	}
	return nil
}

// flag is EnableFlag.ensureEnabled.
func flag(name string, enabled bool, feature string) error {
	if enabled {
		return nil
	}
	return cqlerr.Invalidf("%s", violation(name, feature+" is not allowed"))
}

// guardrailsApply reports whether the session's statements are guarded.
func (s *Session) guardrailsApply() bool {
	m := s.engine.auth
	if !m.PasswordAuthentication() {
		return false
	}
	role := s.Role()
	return role == "" || !m.HasSuperuserStatus(role)
}

// checkStatement applies the guardrails a plan can be judged by before it
// runs, with its bound values and options.
func (g *guard) checkStatement(p plan.Statement, vals []boundValue, opts *Options, schema *catalog.Schema) error {
	switch p := p.(type) {
	case *plan.Select:
		return g.checkSelect(p, vals, opts)
	case *plan.Modify:
		return g.checkModify(p, vals)
	case *plan.Batch:
		for _, m := range p.Statements {
			if err := g.checkModify(m, vals); err != nil {
				return err
			}
		}
	case *plan.Truncate, *plan.DropTable:
		return flag("drop_truncate_table_enabled", g.g.DropTruncateTableEnabled, "DROP and TRUNCATE TABLE functionality")
	case *plan.DropKeyspace:
		return flag("drop_keyspace_enabled", g.g.DropKeyspaceEnabled, "DROP KEYSPACE functionality")
	default:
		return g.checkSchema(p, schema)
	}
	return nil
}

// boundValue is a statement's bound value, as bindValues ordered them.
type boundValue = []byte

func (g *guard) checkSelect(p *plan.Select, vals []boundValue, opts *Options) error {
	if p.AllowFiltering && !g.g.AllowFilteringEnabled {
		// Whether or not the query filters, as Cassandra 5.0 checks it.
		return cqlerr.Invalidf("%s", violation("allow_filtering", "Querying with ALLOW FILTERING is not allowed. "+
			"ALLOW FILTERING can potentially visit all the data in the table and have unpredictable performance."))
	}
	if p.GroupBy {
		if err := flag("group_by", g.g.GroupByEnabled, "GROUP BY functionality"); err != nil {
			return err
		}
	}
	table := p.Table.Name
	if ps := int64(opts.PageSize); ps > 0 {
		err := g.threshold("page_size", ps, g.g.PageSizeWarn, g.g.PageSizeFail,
			func(t int64) string {
				return fmt.Sprintf("Query for table %s with page size %d exceeds warning threshold of %d.", table, ps, t)
			},
			func(t int64) string {
				return fmt.Sprintf("Aborting query for table %s, page size %d exceeds fail threshold of %d.", table, ps, t)
			})
		if err != nil {
			return err
		}
	}
	if p.PartitionKey == nil || p.IsKeyRange {
		return nil
	}
	keys, in := partitionKeyCount(p.PartitionKey, vals)
	if in {
		if err := g.cartesian("partition key", keys); err != nil {
			return err
		}
		err := g.threshold("partition_keys_in_select", keys, g.g.PartitionKeysInSelectWarn, g.g.PartitionKeysInSelectFail,
			func(t int64) string {
				return fmt.Sprintf("Query with partition keys in IN clause on table %s, with number of partition keys %d exceeds warning threshold of %d.", table, keys, t)
			},
			func(t int64) string {
				return fmt.Sprintf("Aborting query with partition keys in IN clause on table %s, number of partition keys %d exceeds fail threshold of %d.", table, keys, t)
			})
		if err != nil {
			return err
		}
	}
	return g.clusteringCartesian(p.Clustering, vals)
}

func (g *guard) checkModify(m *plan.Modify, vals []boundValue) error {
	if m.Timestamp != nil {
		if err := flag("user_timestamps", g.g.UserTimestampsEnabled, "User provided timestamps (USING TIMESTAMP)"); err != nil {
			return err
		}
	}
	for _, op := range m.Operations {
		if op.Column.Type.Kind != types.KindList || !op.Column.Type.IsMultiCell() {
			continue
		}
		feature := ""
		switch op.Kind {
		case plan.OpSetElement:
			feature = "Setting of list items by index requiring read before write"
		case plan.OpDeleteElement:
			feature = "Removal of list items by index requiring read before write"
		case plan.OpSubtract:
			feature = "Removal of list items requiring read before write"
		}
		if feature != "" {
			if err := flag("read_before_write_list_operations", g.g.ReadBeforeWriteListOperationsEnabled, feature); err != nil {
				return err
			}
		}
	}
	keys, in := partitionKeyCount(m.PartitionKey, vals)
	if in {
		if err := g.cartesian("partition key", keys); err != nil {
			return err
		}
	}
	return g.clusteringCartesian(m.Clustering, vals)
}

// clusteringCartesian guards the clusterings an IN on clustering columns
// names (ClusteringColumnRestrictions.valuesAsClustering).
func (g *guard) clusteringCartesian(rs []*plan.Restriction, vals []boundValue) error {
	product, in := int64(1), false
	for _, r := range rs {
		switch r.Kind {
		case plan.RestrictIN:
			n := termCount(r.Values, vals)
			in = in || n > 1
			product *= n
		case plan.RestrictEQ:
		default:
			return nil
		}
	}
	if !in {
		return nil
	}
	return g.cartesian("clustering key", product)
}

func (g *guard) cartesian(what string, n int64) error {
	return g.threshold("in_select_cartesian_product", n, g.g.InSelectCartesianProductWarn, g.g.InSelectCartesianProductFail,
		func(t int64) string {
			return fmt.Sprintf("The cartesian product of the IN restrictions on %s produces %d values, this exceeds warning threshold of %d.", what, n, t)
		},
		func(t int64) string {
			return fmt.Sprintf("Aborting query because the cartesian product of the IN restrictions on %s produces %d values, this exceeds fail threshold of %d.", what, n, t)
		})
}

// termCount is how many values terms give: one each, or the elements of
// a bound list (IN ?).
func termCount(terms []*plan.Term, vals []boundValue) int64 {
	n := int64(0)
	for _, t := range terms {
		if t == nil || t.Kind != plan.TermBindList {
			n++
			continue
		}
		if t.Bind < len(vals) && len(vals[t.Bind]) >= 4 {
			n += int64(int32(binary.BigEndian.Uint32(vals[t.Bind])))
		}
	}
	return n
}

// checkSchema guards DDL: the schema's size and the replication chosen.
func (g *guard) checkSchema(p plan.Statement, schema *catalog.Schema) error {
	switch p := p.(type) {
	case *plan.CreateKeyspace:
		if schema.Keyspace(p.Spec.Name) != nil {
			return nil
		}
		if err := g.checkReplication(p.Spec.Name, p.Spec.Properties); err != nil {
			return err
		}
		n := int64(len(userKeyspaces(schema))) + 1
		return g.threshold("keyspaces", n, g.g.KeyspacesWarn, g.g.KeyspacesFail,
			func(t int64) string {
				return fmt.Sprintf("Creating keyspace %s, current number of keyspaces %d exceeds warning threshold of %d.", p.Spec.Name, n, t)
			},
			func(t int64) string {
				return fmt.Sprintf("Cannot have more than %d keyspaces, aborting the creation of keyspace %s", t, p.Spec.Name)
			})
	case *plan.AlterKeyspace:
		return g.checkReplication(p.Spec.Name, p.Spec.Properties)
	case *plan.CreateTable:
		if schema.Keyspace(p.Spec.Keyspace) == nil || schema.Table(p.Spec.Keyspace, p.Spec.Name) != nil {
			return nil
		}
		tables := int64(1)
		for _, ks := range userKeyspaces(schema) {
			for _, t := range ks.Tables {
				if t.View == nil {
					tables++
				}
			}
		}
		err := g.threshold("tables", tables, g.g.TablesWarn, g.g.TablesFail,
			func(t int64) string {
				return fmt.Sprintf("Creating table %s, current number of tables %d exceeds warning threshold of %d.", p.Spec.Name, tables, t)
			},
			func(t int64) string {
				return fmt.Sprintf("Cannot have more than %d tables, aborting the creation of table %s", t, p.Spec.Name)
			})
		if err != nil {
			return err
		}
		return g.columnsPerTable(p.Spec.Name, int64(len(p.Spec.Columns)))
	case *plan.AlterTable:
		t := schema.Table(p.Spec.Keyspace, p.Spec.Name)
		if t == nil || len(p.Spec.Add) == 0 {
			return nil
		}
		return g.columnsPerTable(t.Name, int64(len(t.Columns)+len(p.Spec.Add)))
	case *plan.CreateIndex:
		t := schema.Table(p.Spec.Keyspace, p.Spec.Table)
		if t == nil {
			return nil
		}
		n := int64(len(t.Indexes)) + 1
		return g.threshold("secondary_indexes_per_table", n, g.g.SecondaryIndexesPerTableWarn, g.g.SecondaryIndexesPerTableFail,
			func(th int64) string {
				return fmt.Sprintf("Creating secondary index on table %s, current number of indexes %d exceeds warning threshold of %d.", t.Name, n, th)
			},
			func(th int64) string {
				return fmt.Sprintf("Tables cannot have more than %d secondary indexes, aborting the creation of secondary index on table %s", th, t.Name)
			})
	case *plan.CreateType:
		return g.fieldsPerUDT(p.Spec.Name, int64(len(p.Spec.FieldNames)))
	case *plan.AlterType:
		if p.Spec.AddField == "" {
			return nil
		}
		ks := schema.Keyspace(p.Spec.Keyspace)
		if ks == nil {
			return nil
		}
		for _, ut := range ks.Types {
			if ut.Name == p.Spec.Name {
				return g.fieldsPerUDT(p.Spec.Name, int64(len(ut.FieldNames)+1))
			}
		}
	}
	return nil
}

func (g *guard) columnsPerTable(table string, n int64) error {
	return g.threshold("columns_per_table", n, g.g.ColumnsPerTableWarn, g.g.ColumnsPerTableFail,
		func(t int64) string {
			return fmt.Sprintf("The table %s has %d columns, this exceeds the warning threshold of %d.", table, n, t)
		},
		func(t int64) string {
			return fmt.Sprintf("Tables cannot have more than %d columns, but %d provided for table %s", t, n, table)
		})
}

func (g *guard) fieldsPerUDT(name string, n int64) error {
	return g.threshold("fields_per_udt", n, g.g.FieldsPerUDTWarn, g.g.FieldsPerUDTFail,
		func(t int64) string {
			return fmt.Sprintf("The user type %s has %d columns, this exceeds the warning threshold of %d.", name, n, t)
		},
		func(t int64) string {
			return fmt.Sprintf("User types cannot have more than %d columns, but %d provided for user type %s.", t, n, name)
		})
}

// checkReplication guards a keyspace's replication: SimpleStrategy and
// the replication factor of each data center.
func (g *guard) checkReplication(keyspace string, props []catalog.Property) error {
	for _, p := range props {
		if p.Name != "replication" || !p.IsMap {
			continue
		}
		if class := p.Map["class"]; class == "SimpleStrategy" || class == "org.apache.cassandra.locator.SimpleStrategy" {
			if err := flag("simplestrategy", g.g.SimpleStrategyEnabled, "SimpleStrategy"); err != nil {
				return err
			}
		}
		for k, v := range p.Map {
			if k == "class" {
				continue
			}
			head, _, _ := strings.Cut(v, "/")
			rf, err := strconv.ParseInt(head, 10, 64)
			if err != nil {
				continue
			}
			err = g.threshold("maximum_replication_factor", rf, g.g.MaximumReplicationFactorWarn, g.g.MaximumReplicationFactorFail,
				func(t int64) string {
					return fmt.Sprintf("The keyspace %s has a replication factor of %d, above the warning threshold of %d.", keyspace, rf, t)
				},
				func(t int64) string {
					return fmt.Sprintf("The keyspace %s has a replication factor of %d, above the failure threshold of %d.", keyspace, rf, t)
				})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func userKeyspaces(schema *catalog.Schema) []*catalog.Keyspace {
	var out []*catalog.Keyspace
	for _, name := range schema.KeyspaceNames() {
		if ks := schema.Keyspace(name); ks != nil && !ks.IsSystem() && !ks.Virtual {
			out = append(out, ks)
		}
	}
	return out
}

// checkMutations guards the values a write is about to apply
// (items_per_collection, collection_size, column_value_size): per row and
// column, the cells it writes, each counted as Cassandra's Cell.dataSize
// (20 bytes besides its value and path).
func (g *guard) checkMutations(schema *catalog.Schema, muts []backend.Mutation) error {
	for i := range muts {
		t := schema.TableByStorageID(muts[i].Partition.Table)
		if t == nil {
			continue
		}
		if muts[i].Static != nil {
			if err := g.checkRow(t, muts[i].Static); err != nil {
				return err
			}
		}
		for j := range muts[i].Rows {
			if err := g.checkRow(t, &muts[i].Rows[j]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (g *guard) checkRow(t *catalog.Table, r *backend.Row) error {
	for i := 0; i < len(r.Cells); {
		c := &r.Cells[i]
		col := t.ColumnByID(c.Column)
		if col == nil || col.Type.IsCounter() {
			i++
			continue
		}
		if !col.Type.IsMultiCell() {
			if !c.IsTombstone() {
				if err := g.columnValueSize(col.Name, int64(len(c.Value))); err != nil {
					return err
				}
			}
			i++
			continue
		}
		items, size := int64(0), int64(0)
		for ; i < len(r.Cells) && r.Cells[i].Column == c.Column; i++ {
			if r.Cells[i].IsTombstone() {
				continue
			}
			items++
			size += 20 + int64(len(r.Cells[i].Value)) + int64(exec.CellPathSize(col.Type, r.Cells[i].Path))
		}
		if col.Type.Kind == types.KindUDT {
			continue
		}
		if err := g.collection(col.Name, items, size); err != nil {
			return err
		}
	}
	return nil
}

func (g *guard) columnValueSize(column string, n int64) error {
	return g.threshold("column_value_size", n, g.g.ColumnValueSizeWarn, g.g.ColumnValueSizeFail,
		func(t int64) string {
			return fmt.Sprintf("Value of column '%s' has size %d, this exceeds the warning threshold of %d.", column, n, t)
		},
		func(t int64) string {
			return fmt.Sprintf("Value of column '%s' has size %d, this exceeds the failure threshold of %d.", column, n, t)
		})
}

// collection is ColumnData's check of a collection write: its items, then
// its size.
func (g *guard) collection(column string, items, size int64) error {
	err := g.threshold("items_per_collection", items, g.g.ItemsPerCollectionWarn, g.g.ItemsPerCollectionFail,
		func(t int64) string {
			return fmt.Sprintf("Detected collection %s with %d items, this exceeds the warning threshold of %d.", column, items, t)
		},
		func(t int64) string {
			return fmt.Sprintf("Detected collection %s with %d items, this exceeds the failure threshold of %d.", column, items, t)
		})
	if err != nil {
		return err
	}
	return g.threshold("collection_size", size, g.g.CollectionSizeWarn, g.g.CollectionSizeFail,
		func(t int64) string {
			return fmt.Sprintf("Detected collection %s of size %d, this exceeds the warning threshold of %d.", column, size, t)
		},
		func(t int64) string {
			return fmt.Sprintf("Detected collection %s of size %d, this exceeds the failure threshold of %d.", column, size, t)
		})
}

// partitionKeyCount is the number of partition keys a statement names (the
// product of each column's value count) and whether an IN names them.
func partitionKeyCount(pk [][]*plan.Term, vals []boundValue) (keys int64, in bool) {
	keys = 1
	for _, terms := range pk {
		n := termCount(terms, vals)
		in = in || len(terms) != 1 || n != 1
		keys *= n
	}
	return keys, in
}
