package plan

import (
	"strings"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
)

// CreateView plans CREATE MATERIALIZED VIEW; the engine refuses it unless
// materialized views are enabled.
type CreateView struct{ Spec catalog.ViewSpec }

// AlterView plans ALTER MATERIALIZED VIEW.
type AlterView struct {
	Keyspace, Name string
	IfExists       bool
	Properties     []catalog.Property
}

// DropView plans DROP MATERIALIZED VIEW.
type DropView struct {
	Keyspace, Name string
	IfExists       bool
}

// CreateFunction plans CREATE FUNCTION: the engine refuses it, with
// Cassandra's message when user-defined functions are disabled.
type CreateFunction struct{}

// NoOp is a schema statement that changes nothing (DROP FUNCTION IF EXISTS
// of a function that cannot exist).
type NoOp struct{}

// withViews finishes the plan of a write: a view is never written
// directly (ModificationStatement), and a base table's write carries its
// views, which exec keeps in step.
func (p *planner) withViews(m *Modify, err error) (*Modify, error) {
	if err != nil {
		return nil, err
	}
	if m.Table.View != nil {
		return nil, cqlerr.Invalidf("Cannot directly modify a materialized view")
	}
	if ks := p.schema.Keyspace(m.Table.Keyspace); ks != nil {
		m.Views = ks.ViewsOf(m.Table.Name)
	}
	return m, nil
}

func (p *planner) planCreateView(s *ast.CreateView) (Statement, error) {
	binds := false
	ast.Walk(s, func(n ast.Node) bool {
		if _, ok := n.(*ast.BindMarker); ok {
			binds = true
		}
		return !binds
	})
	if binds {
		return nil, cqlerr.Invalidf("Bind variables are not allowed in CREATE MATERIALIZED VIEW statements")
	}
	if s.CompactStorage {
		return nil, cqlerr.Syntaxf("COMPACT STORAGE tables are not allowed starting with version 4.0")
	}
	ks, err := p.keyspaceOf(s.Name)
	if err != nil {
		return nil, err
	}
	if s.Base.Keyspace != "" && s.Base.Keyspace != ks {
		return nil, cqlerr.Invalidf("Cannot create a materialized view on a table in a different keyspace")
	}
	spec := catalog.ViewSpec{Keyspace: ks, Name: s.Name.Name, Base: s.Base.Name, IfNotExists: s.IfNotExists,
		Properties: properties(s.Options)}
	if s.Selectors != nil {
		spec.Selected = []string{}
	}
	for _, sel := range s.Selectors {
		if sel.Alias != nil && spec.SelectError == nil {
			spec.SelectError = cqlerr.Invalidf("Cannot use aliases when defining a materialized view (got %s)", sel)
			continue
		}
		col, ok := sel.Expr.(*ast.ColumnRef)
		if !ok {
			if spec.SelectError == nil {
				spec.SelectError = cqlerr.Invalidf("Can only select columns by name when defining a materialized view (got %s)", sel.Expr)
			}
			continue
		}
		spec.Selected = append(spec.Selected, col.Name)
	}
	for _, k := range s.PartitionKey {
		spec.PartitionKey = append(spec.PartitionKey, k.Name)
	}
	for _, k := range s.Clustering {
		spec.Clustering = append(spec.Clustering, k.Name)
	}
	for _, o := range s.ClusteringOrder {
		spec.ClusteringOrder = append(spec.ClusteringOrder, catalog.OrderSpec{Column: o.Column.Name, Desc: o.Desc})
	}
	texts := make([]string, len(s.Where))
	for i, r := range s.Where {
		texts[i] = r.String()
	}
	spec.WhereClause = strings.Join(texts, " AND ")
	where := s.Where
	name := s.Name.Name
	spec.Where = func(base *catalog.Table) ([]string, []catalog.ViewFilter, error) {
		return p.viewWhere(base, name, where)
	}
	return &CreateView{Spec: spec}, nil
}

// viewWhere checks a view's WHERE clause as CreateViewStatement and
// StatementRestrictions do, and returns the restricted columns and the
// restrictions on base primary key columns.
func (p *planner) viewWhere(base *catalog.Table, view string, where []ast.Relation) ([]string, []catalog.ViewFilter, error) {
	for _, r := range where {
		if _, ok := r.(*ast.TokenRelation); ok {
			return nil, nil, cqlerr.Invalidf("Cannot use token relation when defining a materialized view")
		}
	}
	for _, r := range where {
		if _, ok := r.(*ast.CustomIndexRelation); ok {
			return nil, nil, cqlerr.Invalidf("WHERE clause for materialized view '%s' cannot contain custom index expressions", view)
		}
	}
	var restricted, illegal []string
	var filters []catalog.ViewFilter
	for _, r := range where {
		var cols []*catalog.Column
		var op ast.Operator
		var value ast.Expr
		switch rel := r.(type) {
		case *ast.SingleColumnRelation:
			col := base.Column(rel.Column.Name)
			if col == nil {
				return nil, nil, cqlerr.Invalidf("Undefined column name %s in table %s.%s", rel.Column.Name, base.Keyspace, base.Name)
			}
			cols, op, value = []*catalog.Column{col}, rel.Op, rel.Value
		case *ast.MultiColumnRelation:
			for _, id := range rel.Columns {
				col := base.Column(id.Name)
				if col == nil {
					return nil, nil, cqlerr.Invalidf("Undefined column name %s in table %s.%s", id.Name, base.Keyspace, base.Name)
				}
				if col.Kind != catalog.Clustering {
					return nil, nil, cqlerr.Invalidf("Multi-column relations can only be applied to clustering columns but was applied to: %s", col.Name)
				}
				cols = append(cols, col)
			}
			op, value = rel.Op, rel.Value
		default:
			return nil, nil, cqlerr.Invalidf("Unsupported restriction in a materialized view's WHERE clause: %s", r)
		}
		for _, c := range cols {
			restricted = append(restricted, c.Name)
		}
		switch op {
		case ast.OpIsNot:
			continue
		case ast.OpNeq:
			return nil, nil, cqlerr.Invalidf("Unsupported \"!=\" relation: %s", r)
		case ast.OpContains, ast.OpContainsKey:
			if !cols[0].Type.IsCollection() {
				return nil, nil, cqlerr.Invalidf("Cannot use %s on non-collection column %s", op, cols[0].Name)
			}
		}
		if !cols[0].IsPrimaryKey() {
			illegal = append(illegal, cols[0].Name)
			continue
		}
		f, err := p.viewFilter(base, cols, op, value, r)
		if err != nil {
			return nil, nil, err
		}
		filters = append(filters, f)
	}
	if len(illegal) > 0 {
		return nil, nil, cqlerr.Invalidf("Non-primary key columns can only be restricted with 'IS NOT NULL' (got: %s restricted illegally)", strings.Join(illegal, ","))
	}
	return restricted, filters, nil
}

// viewFilter types the values of a restriction on base key columns.
func (p *planner) viewFilter(base *catalog.Table, cols []*catalog.Column, op ast.Operator, value ast.Expr, r ast.Relation) (catalog.ViewFilter, error) {
	f := catalog.ViewFilter{Op: op.String()}
	for _, c := range cols {
		f.Columns = append(f.Columns, c.Name)
	}
	switch op {
	case ast.OpEq, ast.OpLt, ast.OpLte, ast.OpGt, ast.OpGte, ast.OpIn:
	default:
		return f, cqlerr.Invalidf("Unsupported restriction in a materialized view's WHERE clause: %s", r)
	}
	values := []ast.Expr{value}
	if op == ast.OpIn {
		list, ok := value.(*ast.InList)
		if !ok {
			return f, cqlerr.Invalidf("Unsupported restriction in a materialized view's WHERE clause: %s", r)
		}
		values = list.Elems
	}
	for _, v := range values {
		elems := []ast.Expr{v}
		if _, multi := r.(*ast.MultiColumnRelation); multi {
			tuple, ok := v.(*ast.TupleLiteral)
			if !ok || len(tuple.Elems) != len(cols) {
				return f, cqlerr.Invalidf("Unsupported restriction in a materialized view's WHERE clause: %s", r)
			}
			elems = tuple.Elems
		}
		tuple := make([][]byte, len(cols))
		for i, e := range elems {
			term, err := p.binder.prepareTerm(e, receiver{base.Keyspace, base.Name, cols[i].Name, cols[i].Type})
			if err != nil {
				return f, err
			}
			if !term.IsConst() || term.Value == nil {
				return f, cqlerr.Invalidf("Invalid null value in condition for column %s", cols[i].Name)
			}
			tuple[i] = term.Value
		}
		f.Values = append(f.Values, tuple)
	}
	return f, nil
}

func (p *planner) planAlterView(s *ast.AlterView) (Statement, error) {
	ks, err := p.keyspaceOf(s.Name)
	if err != nil {
		return nil, err
	}
	return &AlterView{Keyspace: ks, Name: s.Name.Name, IfExists: s.IfExists, Properties: properties(s.Options)}, nil
}

func (p *planner) planDropView(s *ast.DropView) (Statement, error) {
	ks, err := p.keyspaceOf(s.Name)
	if err != nil {
		return nil, err
	}
	return &DropView{Keyspace: ks, Name: s.Name.Name, IfExists: s.IfExists}, nil
}

// planCreateAggregate answers CREATE AGGREGATE as Cassandra does when no
// user-defined function exists: its state function is never found
// (CreateAggregateStatement looks only among the keyspace's functions).
func (p *planner) planCreateAggregate(s *ast.CreateAggregate) (Statement, error) {
	if s.OrReplace && s.IfNotExists {
		return nil, cqlerr.Invalidf("Cannot use both 'OR REPLACE' and 'IF NOT EXISTS' directives")
	}
	ks, err := p.keyspaceOf(s.Name)
	if err != nil {
		return nil, err
	}
	if p.schema.Keyspace(ks) == nil {
		return nil, cqlerr.Configf("Keyspace %s doesn't exist", ks)
	}
	args := make([]string, 0, len(s.Args)+1)
	for _, ref := range append([]ast.TypeRef{s.StateType}, s.Args...) {
		t, err := p.resolveType(ks, ref, false)
		if err != nil {
			return nil, err
		}
		args = append(args, t.String())
	}
	return nil, cqlerr.Invalidf("State function %s.%s(%s) doesn't exist", ks, s.StateFunc.Name, strings.Join(args, ", "))
}

// planDropFunction answers DROP FUNCTION / DROP AGGREGATE: no user-defined
// function or aggregate can exist here.
func (p *planner) planDropFunction(s *ast.DropFunction) (Statement, error) {
	ks, err := p.keyspaceOf(s.Name)
	if err != nil {
		return nil, err
	}
	var args []string
	for _, ref := range s.Args {
		t, err := p.resolveType(ks, ref, false)
		if err != nil {
			return nil, err
		}
		if ref.Kind == ast.TypeFrozen {
			return nil, cqlerr.Invalidf("Argument '%s' cannot be frozen; remove frozen<> modifier from '%s'", ref, ref)
		}
		args = append(args, t.String())
	}
	if catalog.IsSystemKeyspace(ks) {
		return nil, cqlerr.Invalidf("System keyspace '%s' is not user-modifiable", ks)
	}
	if s.IfExists {
		return &NoOp{}, nil
	}
	what, name := "Function", ks+"."+s.Name.Name
	if s.Aggregate {
		what = "Aggregate"
	}
	if s.HasArgs {
		name += "(" + strings.Join(args, ", ") + ")"
	}
	return nil, cqlerr.Invalidf("%s '%s' doesn't exist", what, name)
}
