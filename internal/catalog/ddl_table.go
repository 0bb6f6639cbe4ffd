package catalog

import (
	"context"
	"strings"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/types"
)

// ColumnSpec declares a column.
type ColumnSpec struct {
	Name   string
	Type   *types.Type
	Static bool
}

// OrderSpec is one CLUSTERING ORDER BY entry.
type OrderSpec struct {
	Column string
	Desc   bool
}

// TableSpec is a CREATE TABLE statement's content, names resolved and types
// prepared.
type TableSpec struct {
	Keyspace, Name string
	// Display is the table name as the statement wrote it (for messages).
	Display         string
	IfNotExists     bool
	Columns         []ColumnSpec
	PartitionKey    []string
	Clustering      []string
	PrimaryKeyDecls int
	ClusteringOrder []OrderSpec
	Properties      []Property
	CompactStorage  bool
}

// CreateTable implements CREATE TABLE (CreateTableStatement.java).
func (c *Catalog) CreateTable(ctx context.Context, spec TableSpec) (Result, error) {
	return c.update(ctx, func(s *Schema) (Result, []backend.TableID, error) {
		ks := s.Keyspaces[spec.Keyspace]
		if ks == nil {
			return Result{}, nil, cqlerr.Invalidf("Keyspace '%s' doesn't exist", spec.Keyspace)
		}
		if ks.Tables[spec.Name] != nil {
			if spec.IfNotExists {
				return Result{}, nil, nil
			}
			return Result{}, nil, cqlerr.NewAlreadyExists(spec.Keyspace, spec.Name,
				"Cannot add already existing table \"%s\" to keyspace \"%s\"", spec.Name, spec.Keyspace)
		}
		if ks.IsSystem() {
			return Result{}, nil, notModifiable(spec.Keyspace)
		}
		t, err := buildTable(spec)
		if err != nil {
			return Result{}, nil, err
		}
		t.StorageID = s.NextTableID
		s.NextTableID++
		ks = ks.clone()
		ks.Tables[t.Name] = t
		s.Keyspaces[ks.Name] = ks
		return Result{Change: &Change{Type: "CREATED", Target: "TABLE", Keyspace: ks.Name, Name: t.Name}}, nil, nil
	})
}

func buildTable(spec TableSpec) (*Table, error) {
	display := spec.Display
	if display == "" {
		display = spec.Name
	}
	if spec.PrimaryKeyDecls == 0 {
		return nil, cqlerr.Invalidf("No PRIMARY KEY specifed for table '%s' (exactly one required)", display)
	}
	if spec.PrimaryKeyDecls > 1 {
		return nil, cqlerr.Invalidf("Multiple PRIMARY KEY specified for table '%s' (exactly one required)", display)
	}
	if spec.CompactStorage {
		return nil, cqlerr.Invalidf("Compact tables are not allowed in Cassandra starting with 4.0 version.")
	}
	// TableMetadata.validate prefixes its messages with the table's name.
	if !validName.MatchString(spec.Name) {
		return nil, cqlerr.Configf("%s.%s: Table name must not be empty or not contain non-alphanumeric-underscore characters (got \"%s\")", spec.Keyspace, spec.Name, spec.Name)
	}
	if len(spec.Name) > maxTableName {
		return nil, cqlerr.Configf("%s.%s: Table name must not be more than %d characters long (got %d characters for \"%s\")", spec.Keyspace, spec.Name, maxTableName, len(spec.Name), spec.Name)
	}
	declared := map[string]ColumnSpec{}
	for _, col := range spec.Columns {
		if _, dup := declared[col.Name]; dup {
			return nil, cqlerr.Invalidf("Duplicate column '%s' declaration for table '%s'", col.Name, display)
		}
		declared[col.Name] = col
	}
	orderSeen := map[string]bool{}
	for _, o := range spec.ClusteringOrder {
		if orderSeen[o.Column] {
			return nil, cqlerr.Invalidf("Duplicate column '%s' in CLUSTERING ORDER BY clause for table '%s'", o.Column, display)
		}
		orderSeen[o.Column] = true
	}
	opts := DefaultOptions()
	if err := opts.Apply(spec.Properties); err != nil {
		return nil, err
	}
	for _, col := range spec.Columns {
		if col.Type.Kind == types.KindUDT && col.Type.IsMultiCell() {
			for _, f := range col.Type.Elems {
				if f.IsMultiCell() {
					return nil, cqlerr.Invalidf("Non-frozen UDTs with nested non-frozen collections are not supported")
				}
			}
		}
	}
	if err := checkPrimaryKey(spec, declared); err != nil {
		return nil, err
	}
	desc, err := clusteringOrder(spec)
	if err != nil {
		return nil, err
	}
	t := &Table{Keyspace: spec.Keyspace, Name: spec.Name, ID: newUUID(), Options: opts, Dropped: map[string]Dropped{}}
	isPK := map[string]bool{}
	for i, name := range spec.PartitionKey {
		isPK[name] = true
		t.addColumn(name, declared[name].Type, PartitionKey, i, false)
	}
	for i, name := range spec.Clustering {
		isPK[name] = true
		t.addColumn(name, declared[name].Type, Clustering, i, desc[name])
	}
	hasStatic, hasCounter, hasNonCounter := false, false, false
	for _, col := range spec.Columns {
		if isPK[col.Name] {
			continue
		}
		kind := Regular
		if col.Static {
			kind, hasStatic = Static, true
		}
		if col.Type.IsCounter() {
			hasCounter = true
		} else {
			hasNonCounter = true
		}
		t.addColumn(col.Name, col.Type, kind, -1, false)
	}
	if hasStatic && len(spec.Clustering) == 0 {
		return nil, cqlerr.Invalidf("Static columns are only useful (and thus allowed) if the table has at least one clustering column")
	}
	if hasCounter {
		if hasNonCounter {
			return nil, cqlerr.Invalidf("Cannot mix counter and non counter columns in the same table")
		}
		if opts.DefaultTTL > 0 {
			return nil, cqlerr.Invalidf("Cannot set default_time_to_live on a table with counters")
		}
	}
	t.finish()
	return t, nil
}

func (t *Table) addColumn(name string, typ *types.Type, kind ColumnKind, pos int, desc bool) {
	t.Columns = append(t.Columns, &Column{Name: name, Type: typ, Kind: kind, Position: pos, Desc: desc, ID: t.NextColumnID})
	t.NextColumnID++
}

func checkPrimaryKey(spec TableSpec, declared map[string]ColumnSpec) error {
	seen := map[string]bool{}
	for _, name := range append(append([]string(nil), spec.PartitionKey...), spec.Clustering...) {
		col, ok := declared[name]
		if !ok {
			return cqlerr.Invalidf("Unknown column '%s' referenced in PRIMARY KEY for table '%s'", name, spec.Name)
		}
		if seen[name] {
			return cqlerr.Invalidf("Duplicate column '%s' in PRIMARY KEY clause for table '%s'", name, spec.Name)
		}
		seen[name] = true
		if col.Type.IsMultiCell() {
			if col.Type.IsCollection() {
				return cqlerr.Invalidf("Invalid non-frozen collection type %s for PRIMARY KEY column '%s'", col.Type, name)
			}
			return cqlerr.Invalidf("Invalid non-frozen user-defined type %s for PRIMARY KEY column '%s'", col.Type, name)
		}
		if col.Type.IsCounter() {
			return cqlerr.Invalidf("counter type is not supported for PRIMARY KEY column '%s'", name)
		}
		if col.Type.ReferencesDuration() {
			return cqlerr.Invalidf("duration type is not supported for PRIMARY KEY column '%s'", name)
		}
		if col.Static {
			return cqlerr.Invalidf("Static column '%s' cannot be part of the PRIMARY KEY", name)
		}
	}
	return nil
}

// clusteringOrder checks CLUSTERING ORDER BY and returns the DESC columns.
func clusteringOrder(spec TableSpec) (map[string]bool, error) {
	desc := map[string]bool{}
	isClustering := map[string]bool{}
	for _, c := range spec.Clustering {
		isClustering[c] = true
	}
	var notClustering []string
	for _, o := range spec.ClusteringOrder {
		if !isClustering[o.Column] {
			notClustering = append(notClustering, o.Column)
		}
	}
	if len(notClustering) > 0 {
		return nil, cqlerr.Invalidf("Only clustering key columns can be defined in CLUSTERING ORDER directive: [%s] are not clustering columns", strings.Join(notClustering, ", "))
	}
	ordered := map[string]bool{}
	for _, o := range spec.ClusteringOrder {
		ordered[o.Column] = true
	}
	for i, o := range spec.ClusteringOrder {
		c := spec.Clustering[i]
		if o.Column != c {
			if ordered[c] {
				return nil, cqlerr.Invalidf("The order of columns in the CLUSTERING ORDER directive must match that of the clustering columns (%s must appear before %s)", c, o.Column)
			}
			return nil, cqlerr.Invalidf("Missing CLUSTERING ORDER for column %s", c)
		}
		desc[o.Column] = o.Desc
	}
	return desc, nil
}

// DropTable implements DROP TABLE; the table's data goes with it.
func (c *Catalog) DropTable(ctx context.Context, keyspace, name string, ifExists bool) (Result, error) {
	return c.update(ctx, func(s *Schema) (Result, []backend.TableID, error) {
		ks := s.Keyspaces[keyspace]
		var t *Table
		if ks != nil {
			t = ks.Tables[name]
		}
		if t == nil {
			if ifExists {
				return Result{}, nil, nil
			}
			return Result{}, nil, cqlerr.Invalidf("Table '%s.%s' doesn't exist", keyspace, name)
		}
		if ks.IsSystem() {
			return Result{}, nil, notModifiable(keyspace)
		}
		if t.View != nil {
			return Result{}, nil, cqlerr.Invalidf("Cannot use DROP TABLE on a materialized view. Please use DROP MATERIALIZED VIEW instead.")
		}
		if len(ks.ViewsOf(name)) > 0 {
			return Result{}, nil, cqlerr.Invalidf("Cannot drop a table when materialized views still depend on it (%s)", keyspace)
		}
		ks = ks.clone()
		delete(ks.Tables, name)
		s.Keyspaces[keyspace] = ks
		return Result{Change: &Change{Type: "DROPPED", Target: "TABLE", Keyspace: keyspace, Name: name}},
			t.storageIDs(), nil
	})
}

// storageIDs lists the storage prefixes of a table and of its indexes.
func (t *Table) storageIDs() []backend.TableID {
	ids := []backend.TableID{t.StorageID}
	for _, ix := range t.Indexes {
		ids = append(ids, ix.StorageID)
	}
	return ids
}
