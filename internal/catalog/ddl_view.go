package catalog

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/types"
)

// A materialized view is a table of its own (its own StorageID and column
// ids) whose View names its base table. Its rows are written only by the
// base table's writes (package exec keeps them in step), never directly.

// ViewDef is what makes a table a materialized view.
type ViewDef struct {
	Base       string `json:"base"`
	BaseID     UUID   `json:"base_id"`
	IncludeAll bool   `json:"include_all"`
	// WhereClause is the view's WHERE as system_schema.views shows it.
	WhereClause string `json:"where_clause"`
	// Filters are the WHERE clause's restrictions on base primary key
	// columns: a base row is in the view only if it meets them all.
	Filters []ViewFilter `json:"filters,omitempty"`
	// NotNull lists the base regular columns the WHERE clause requires
	// (IS NOT NULL).
	NotNull []string `json:"not_null,omitempty"`
	// KeyColumn is the base regular column in the view's primary key, ""
	// when the view's key is the base's. A view with one shows a row only
	// while its row marker is live (strict liveness), so that an expired
	// marker hides a row whose key column moved.
	KeyColumn string `json:"key_column,omitempty"`
}

// ViewFilter is one restriction of a view's WHERE clause on base primary
// key columns: one column, or a tuple of clustering columns, compared with
// Op ("=", "<", "<=", ">", ">=" or "IN") to Values, one tuple of
// serialized values each (several for IN).
type ViewFilter struct {
	Columns []string   `json:"columns"`
	Op      string     `json:"op"`
	Values  [][][]byte `json:"values"`
}

// ViewSpec is a CREATE MATERIALIZED VIEW statement's content.
type ViewSpec struct {
	Keyspace, Name, Base string
	IfNotExists          bool
	// Selected is nil for SELECT *.
	Selected        []string
	PartitionKey    []string
	Clustering      []string
	ClusteringOrder []OrderSpec
	Properties      []Property
	WhereClause     string
	// SelectError is found by the planner, and Where checks the WHERE
	// clause against the base table, returning the restricted columns (IS
	// NOT NULL or EQ) and the EQ values; both are reported in Cassandra's
	// order (after the base table checks).
	SelectError error
	Where       func(base *Table) (restricted []string, filters []ViewFilter, err error)
}

// ViewsOf returns the views of a base table, by name.
func (k *Keyspace) ViewsOf(base string) []*Table {
	var out []*Table
	for _, t := range k.Tables {
		if t.View != nil && t.View.Base == base {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// CreateView implements CREATE MATERIALIZED VIEW (CreateViewStatement.java).
func (c *Catalog) CreateView(ctx context.Context, spec ViewSpec) (Result, *Table, error) {
	var created *Table
	res, err := c.update(ctx, func(s *Schema) (Result, []backend.TableID, error) {
		ks := s.Keyspaces[spec.Keyspace]
		if ks == nil {
			return Result{}, nil, cqlerr.Invalidf("Keyspace '%s' doesn't exist", spec.Keyspace)
		}
		base := ks.Tables[spec.Base]
		if base == nil || base.View != nil {
			return Result{}, nil, cqlerr.Invalidf("Base table '%s' doesn't exist", spec.Base)
		}
		if existing := ks.Tables[spec.Name]; existing != nil {
			if existing.View == nil {
				return Result{}, nil, cqlerr.Invalidf("Cannot create materialized view '%s' - a table with the same name already exists", spec.Name)
			}
			if spec.IfNotExists {
				return Result{Warnings: []string{ViewUsageWarning}}, nil, nil
			}
			return Result{}, nil, cqlerr.NewAlreadyExists(spec.Keyspace, spec.Name,
				"Cannot add already existing table \"%s\" to keyspace \"%s\"", spec.Name, spec.Keyspace)
		}
		if ks.IsSystem() || base.Virtual {
			return Result{}, nil, notModifiable(spec.Keyspace)
		}
		if base.IsCounter {
			return Result{}, nil, cqlerr.Invalidf("Materialized views are not supported on counter tables")
		}
		if base.Options.GCGraceSeconds == 0 {
			return Result{}, nil, cqlerr.Invalidf("Cannot create materialized view '%s' for base table '%s' with gc_grace_seconds of 0, since this value is used to TTL undelivered updates. Setting gc_grace_seconds too low might cause undelivered updates to expire before being replayed.", spec.Name, spec.Base)
		}
		t, err := buildView(base, spec)
		if err != nil {
			return Result{}, nil, err
		}
		t.StorageID = s.NextTableID
		s.NextTableID++
		ks = ks.clone()
		ks.Tables[t.Name] = t
		s.Keyspaces[ks.Name] = ks
		created = t
		return Result{Change: &Change{Type: "CREATED", Target: "TABLE", Keyspace: ks.Name, Name: t.Name},
			Warnings: []string{ViewUsageWarning}}, nil, nil
	})
	return res, created, err
}

// ViewUsageWarning is the client warning of CREATE MATERIALIZED VIEW
// (View.USAGE_WARNING).
const ViewUsageWarning = "Materialized views are experimental and are not recommended for production use."

func buildView(base *Table, spec ViewSpec) (*Table, error) {
	if spec.SelectError != nil {
		return nil, spec.SelectError
	}
	selected := map[string]bool{}
	if spec.Selected == nil {
		for _, c := range base.Columns {
			selected[c.Name] = true
		}
	}
	for _, name := range spec.Selected {
		if base.Column(name) == nil {
			return nil, cqlerr.Invalidf("Undefined column name %s in table %s", name, base.QualifiedName())
		}
		selected[name] = true
	}
	for _, c := range base.Statics {
		if selected[c.Name] {
			return nil, cqlerr.Invalidf("Cannot include static column '%s' in materialized view '%s'", c.Name, spec.Name)
		}
	}
	if len(spec.PartitionKey) == 0 {
		return nil, cqlerr.Invalidf("Must provide at least one partition key column for materialized view '%s'", spec.Name)
	}
	inKey := map[string]bool{}
	for _, name := range append(append([]string(nil), spec.PartitionKey...), spec.Clustering...) {
		col := base.Column(name)
		if col == nil || !selected[name] {
			return nil, cqlerr.Invalidf("Unknown column '%s' referenced in PRIMARY KEY for materialized view '%s'", name, spec.Name)
		}
		if inKey[name] {
			return nil, cqlerr.Invalidf("Duplicate column '%s' in PRIMARY KEY clause for materialized view '%s'", name, spec.Name)
		}
		inKey[name] = true
		if col.Type.IsMultiCell() {
			if col.Type.IsCollection() {
				return nil, cqlerr.Invalidf("Invalid non-frozen collection type '%s' for PRIMARY KEY column '%s'", col.Type, name)
			}
			return nil, cqlerr.Invalidf("Invalid non-frozen user-defined type '%s' for PRIMARY KEY column '%s'", col.Type, name)
		}
		if col.Type.IsCounter() {
			return nil, cqlerr.Invalidf("counter type is not supported for PRIMARY KEY column '%s'", name)
		}
		if col.Type.ReferencesDuration() {
			return nil, cqlerr.Invalidf("duration type is not supported for PRIMARY KEY column '%s'", name)
		}
	}
	if len(spec.ClusteringOrder) > 0 {
		same := len(spec.ClusteringOrder) == len(spec.Clustering)
		for i := 0; same && i < len(spec.Clustering); i++ {
			same = spec.ClusteringOrder[i].Column == spec.Clustering[i]
		}
		if !same {
			return nil, cqlerr.Invalidf("Clustering key columns must exactly match columns in CLUSTERING ORDER BY directive")
		}
	}
	var missing []string
	for _, c := range base.Columns {
		if c.IsPrimaryKey() && !inKey[c.Name] {
			missing = append(missing, c.Name)
		}
	}
	if len(missing) > 0 {
		return nil, cqlerr.Invalidf("Cannot create materialized view '%s' without primary key columns %s from base table '%s'", spec.Name, strings.Join(missing, ", "), spec.Base)
	}
	var regularInKey []string
	for name := range inKey {
		if !base.Column(name).IsPrimaryKey() {
			regularInKey = append(regularInKey, name)
		}
	}
	if len(regularInKey) > 1 {
		sort.Strings(regularInKey)
		return nil, cqlerr.Invalidf("Cannot include more than one non-primary key column in materialized view primary key (got %s)", strings.Join(regularInKey, ", "))
	}
	restricted := map[string]bool{}
	var filters []ViewFilter
	if spec.Where != nil {
		names, fs, err := spec.Where(base)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			restricted[name] = true
		}
		filters = fs
	}
	var unrestricted []string
	for _, name := range append(append([]string(nil), spec.PartitionKey...), spec.Clustering...) {
		if !restricted[name] {
			unrestricted = append(unrestricted, name)
		}
	}
	if len(unrestricted) > 0 {
		return nil, cqlerr.Invalidf("Primary key columns %s must be restricted with 'IS NOT NULL' or otherwise", strings.Join(unrestricted, ", "))
	}
	opts := DefaultOptions()
	if err := opts.Apply(spec.Properties); err != nil {
		return nil, err
	}
	for _, p := range spec.Properties {
		if p.Name == "default_time_to_live" {
			return nil, cqlerr.Invalidf("Cannot set default_time_to_live for a materialized view. Data in a materialized view always expire at the same time than the corresponding data in the parent table.")
		}
	}
	t := newViewTable(base, spec, selected, inKey, opts)
	t.View.Filters = filters
	if len(regularInKey) == 1 {
		t.View.KeyColumn = regularInKey[0]
	}
	for name := range restricted {
		if !base.Column(name).IsPrimaryKey() {
			t.View.NotNull = append(t.View.NotNull, name)
		}
	}
	sort.Strings(t.View.NotNull)
	return t, nil
}

func newViewTable(base *Table, spec ViewSpec, selected, inKey map[string]bool, opts Options) *Table {
	t := &Table{Keyspace: spec.Keyspace, Name: spec.Name, ID: newUUID(), Options: opts, Dropped: map[string]Dropped{},
		View: &ViewDef{Base: base.Name, BaseID: base.ID, IncludeAll: spec.Selected == nil, WhereClause: spec.WhereClause}}
	order := map[string]OrderSpec{}
	for _, o := range spec.ClusteringOrder {
		order[o.Column] = o
	}
	for i, name := range spec.PartitionKey {
		t.addColumn(name, base.Column(name).Type, PartitionKey, i, false)
	}
	for i, name := range spec.Clustering {
		desc := base.Column(name).Desc
		if o, ok := order[name]; ok {
			desc = o.Desc
		}
		t.addColumn(name, base.Column(name).Type, Clustering, i, desc)
	}
	for _, c := range base.Columns {
		if selected[c.Name] && !inKey[c.Name] {
			t.addColumn(c.Name, c.Type, Regular, -1, false)
		}
	}
	t.finish()
	return t
}

// AlterView implements ALTER MATERIALIZED VIEW (AlterViewStatement.java).
func (c *Catalog) AlterView(ctx context.Context, keyspace, name string, ifExists bool, props []Property) (Result, error) {
	return c.update(ctx, func(s *Schema) (Result, []backend.TableID, error) {
		ks := s.Keyspaces[keyspace]
		var old *Table
		if ks != nil {
			old = ks.Tables[name]
		}
		if old == nil || old.View == nil {
			if ifExists {
				return Result{}, nil, nil
			}
			return Result{}, nil, cqlerr.Invalidf("Materialized view '%s.%s' doesn't exist", keyspace, name)
		}
		t := old.clone()
		if err := t.Options.Apply(props); err != nil {
			return Result{}, nil, err
		}
		if t.Options.DefaultTTL != 0 {
			return Result{}, nil, cqlerr.Invalidf("Forbidden default_time_to_live detected for a materialized view. Data in a materialized view always expire at the same time than the corresponding data in the parent table. default_time_to_live must be set to zero, see CASSANDRA-12868 for more information")
		}
		if t.Options.GCGraceSeconds == 0 {
			return Result{}, nil, cqlerr.Invalidf("Cannot alter gc_grace_seconds of a materialized view to 0, since this value is used to TTL undelivered updates. Setting gc_grace_seconds too low might cause undelivered updates to expire before being replayed.")
		}
		ks = ks.clone()
		ks.Tables[t.Name] = t
		s.Keyspaces[ks.Name] = ks
		return Result{Change: &Change{Type: "UPDATED", Target: "TABLE", Keyspace: ks.Name, Name: t.Name}}, nil, nil
	})
}

// DropView implements DROP MATERIALIZED VIEW; the view's rows go with it.
func (c *Catalog) DropView(ctx context.Context, keyspace, name string, ifExists bool) (Result, error) {
	return c.update(ctx, func(s *Schema) (Result, []backend.TableID, error) {
		ks := s.Keyspaces[keyspace]
		var t *Table
		if ks != nil {
			t = ks.Tables[name]
		}
		if t == nil || t.View == nil {
			if ifExists {
				return Result{}, nil, nil
			}
			return Result{}, nil, cqlerr.Invalidf("Materialized view '%s.%s' doesn't exist", keyspace, name)
		}
		ks = ks.clone()
		delete(ks.Tables, name)
		s.Keyspaces[keyspace] = ks
		return Result{Change: &Change{Type: "DROPPED", Target: "TABLE", Keyspace: keyspace, Name: name}},
			[]backend.TableID{t.StorageID}, nil
	})
}

// checkBaseAlter refuses what Cassandra refuses on a view or on a base
// table with views (AlterTableStatement), and returns the views the change
// carries to (updateViews).
func checkBaseAlter(ks *Keyspace, t *Table, spec AlterTableSpec) ([]*Table, error) {
	if t.View != nil {
		return nil, cqlerr.Invalidf("Cannot use ALTER TABLE on a materialized view; use ALTER MATERIALIZED VIEW instead")
	}
	views := ks.ViewsOf(t.Name)
	if len(views) == 0 {
		return nil, nil
	}
	for _, name := range spec.Drop {
		if t.Column(name) != nil {
			return nil, cqlerr.Invalidf("Cannot drop column %s on base table %s with materialized views", name, t.Name)
		}
	}
	for _, p := range spec.Properties {
		if n, err := strconv.Atoi(strings.TrimSpace(p.Value)); err == nil && n == 0 && p.Name == "gc_grace_seconds" {
			return nil, cqlerr.Invalidf("Cannot alter gc_grace_seconds of the base table of a materialized view to 0, since this value is used to TTL undelivered updates. Setting gc_grace_seconds too low might cause undelivered updates to expire before being replayed.")
		}
	}
	var out []*Table
	switch {
	case len(spec.Add) > 0:
		for _, v := range views {
			if v.View.IncludeAll {
				out = append(out, v)
			}
		}
	case len(spec.Rename) > 0:
		out = views
	}
	return out, nil
}

// updateViews carries an ALTER TABLE of a base to its views: added columns
// to the views that select every column, renamed key columns to all.
func updateViews(ks *Keyspace, base *Table, spec AlterTableSpec, views []*Table) {
	if len(spec.Rename) == 0 {
		addViewColumns(ks, base, views)
		return
	}
	for _, v := range views {
		nv := v.clone()
		def := *nv.View
		def.Filters = append([]ViewFilter(nil), def.Filters...)
		for _, pair := range spec.Rename {
			from, to := pair[0], pair[1]
			if base.Column(to) == nil {
				continue // IF EXISTS skipped it
			}
			if c := nv.Column(from); c != nil {
				c.Name = to
			}
			for i := range def.Filters {
				cols := append([]string(nil), def.Filters[i].Columns...)
				for j := range cols {
					if cols[j] == from {
						cols[j] = to
					}
				}
				def.Filters[i].Columns = cols
			}
			def.WhereClause = renameInWhere(def.WhereClause, from, to)
		}
		nv.View = &def
		nv.finish()
		ks.Tables[nv.Name] = nv
	}
}

// renameInWhere renames a column in a WHERE clause's text (each relation
// starts with its column, or a tuple of columns).
func renameInWhere(where, from, to string) string {
	old, repl := types.QuoteIdent(from), types.QuoteIdent(to)
	rels := strings.Split(where, " AND ")
	for i, r := range rels {
		if strings.HasPrefix(r, "(") {
			end := strings.IndexByte(r, ')')
			if end < 0 {
				continue
			}
			names := strings.Split(r[1:end], ", ")
			for j := range names {
				if names[j] == old {
					names[j] = repl
				}
			}
			rels[i] = "(" + strings.Join(names, ", ") + r[end:]
			continue
		}
		if head, rest, ok := strings.Cut(r, " "); ok && head == old {
			rels[i] = repl + " " + rest
		}
	}
	return strings.Join(rels, " AND ")
}

// addViewColumns adds the base's new regular columns to views that select
// every column.
func addViewColumns(ks *Keyspace, base *Table, views []*Table) {
	for _, v := range views {
		nv := v.clone()
		for _, c := range base.Columns {
			if c.Kind == Regular && nv.Column(c.Name) == nil {
				nv.addColumn(c.Name, c.Type, Regular, -1, false)
			}
		}
		nv.finish()
		ks.Tables[nv.Name] = nv
	}
}
