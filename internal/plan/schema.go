package plan

import (
	"strings"
	"time"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/types"
)

// Schema statements are planned into the catalog's specs; the engine runs
// them through the catalog.

// CreateKeyspace plans CREATE KEYSPACE.
type CreateKeyspace struct{ Spec catalog.KeyspaceSpec }

// AlterKeyspace plans ALTER KEYSPACE.
type AlterKeyspace struct{ Spec catalog.KeyspaceSpec }

// DropKeyspace plans DROP KEYSPACE.
type DropKeyspace struct {
	Name     string
	IfExists bool
}

// CreateTable plans CREATE TABLE.
type CreateTable struct{ Spec catalog.TableSpec }

// AlterTable plans ALTER TABLE.
type AlterTable struct{ Spec catalog.AlterTableSpec }

// DropTable plans DROP TABLE.
type DropTable struct {
	Keyspace, Name string
	IfExists       bool
}

// Truncate plans TRUNCATE.
type Truncate struct{ Table *catalog.Table }

// CreateType plans CREATE TYPE.
type CreateType struct{ Spec catalog.TypeSpec }

// AlterType plans ALTER TYPE.
type AlterType struct{ Spec catalog.AlterTypeSpec }

// CreateIndex plans CREATE INDEX.
type CreateIndex struct{ Spec catalog.IndexSpec }

// DropIndex plans DROP INDEX.
type DropIndex struct {
	Keyspace, Name string
	IfExists       bool
}

// DropType plans DROP TYPE.
type DropType struct {
	Keyspace, Name string
	IfExists       bool
}

func (p *planner) planSchema(stmt ast.Statement) (Statement, error) {
	switch s := stmt.(type) {
	case *ast.CreateKeyspace:
		return &CreateKeyspace{Spec: catalog.KeyspaceSpec{Name: s.Name, IfNotExists: s.IfNotExists, Properties: properties(s.Options)}}, nil
	case *ast.AlterKeyspace:
		return &AlterKeyspace{Spec: catalog.KeyspaceSpec{Name: s.Name, IfExists: s.IfExists, Properties: properties(s.Options)}}, nil
	case *ast.DropKeyspace:
		return &DropKeyspace{Name: s.Name, IfExists: s.IfExists}, nil
	case *ast.CreateTable:
		return p.planCreateTable(s)
	case *ast.AlterTable:
		return p.planAlterTable(s)
	case *ast.DropTable:
		ks, err := p.keyspaceOf(s.Name)
		if err != nil {
			return nil, err
		}
		return &DropTable{Keyspace: ks, Name: s.Name.Name, IfExists: s.IfExists}, nil
	case *ast.Truncate:
		t, err := p.modifiable(s.Name)
		if err != nil {
			return nil, err
		}
		if t.View != nil {
			return nil, cqlerr.Invalidf("Cannot TRUNCATE materialized view directly; must truncate base table instead")
		}
		return &Truncate{Table: t}, nil
	case *ast.CreateType:
		return p.planCreateType(s)
	case *ast.DropType:
		ks, err := p.keyspaceOf(s.Name)
		if err != nil {
			return nil, err
		}
		return &DropType{Keyspace: ks, Name: s.Name.Name, IfExists: s.IfExists}, nil
	case *ast.AlterType:
		return p.planAlterType(s)
	case *ast.CreateIndex:
		return p.planCreateIndex(s)
	case *ast.DropIndex:
		ks, err := p.keyspaceOf(s.Name)
		if err != nil {
			return nil, err
		}
		return &DropIndex{Keyspace: ks, Name: s.Name.Name, IfExists: s.IfExists}, nil
	case *ast.CreateView:
		return p.planCreateView(s)
	case *ast.AlterView:
		return p.planAlterView(s)
	case *ast.DropView:
		return p.planDropView(s)
	case *ast.CreateAggregate:
		return p.planCreateAggregate(s)
	case *ast.DropFunction:
		return p.planDropFunction(s)
	case *ast.Unsupported:
		if s.Keyword == "CREATE FUNCTION" {
			return &CreateFunction{}, nil
		}
		return nil, cqlerr.Invalidf("%s statements are not supported", strings.ToUpper(s.Keyword))
	}
	return nil, cqlerr.Invalidf("%s statements are not supported yet", statementWord(stmt))
}

func statementWord(stmt ast.Statement) string {
	s := stmt.String()
	if i := strings.IndexByte(s, ' '); i > 0 {
		s = s[:i]
	}
	return strings.ToUpper(s)
}

// properties converts WITH options to the catalog's form; values keep their
// text as written.
func properties(ps ast.Properties) []catalog.Property {
	out := make([]catalog.Property, 0, len(ps))
	for _, p := range ps {
		cp := catalog.Property{Name: strings.ToLower(p.Name)}
		switch v := p.Value.(type) {
		case *ast.MapLiteral:
			cp.IsMap, cp.Map = true, map[string]string{}
			for _, e := range v.Entries {
				cp.Map[constantText(e.Key)] = constantText(e.Value)
			}
		case *ast.SetLiteral:
			cp.IsMap, cp.Map = true, map[string]string{}
		default:
			cp.Value = constantText(p.Value)
		}
		out = append(out, cp)
	}
	return out
}

func constantText(e ast.Expr) string {
	switch v := e.(type) {
	case *ast.Literal:
		return v.Text
	case *ast.Negation:
		return "-" + constantText(v.Operand)
	case *ast.ColumnRef:
		return v.Name
	}
	return e.String()
}

func (p *planner) planCreateTable(s *ast.CreateTable) (Statement, error) {
	ks, err := p.keyspaceOf(s.Name)
	if err != nil {
		return nil, err
	}
	spec := catalog.TableSpec{Keyspace: ks, Name: s.Name.Name, Display: s.Name.String(), IfNotExists: s.IfNotExists,
		PrimaryKeyDecls: s.PrimaryKeyDeclarations(), CompactStorage: s.CompactStorage, Properties: properties(s.Options)}
	for _, id := range s.PartitionKey {
		spec.PartitionKey = append(spec.PartitionKey, id.Name)
	}
	for _, id := range s.Clustering {
		spec.Clustering = append(spec.Clustering, id.Name)
	}
	for _, o := range s.ClusteringOrder {
		spec.ClusteringOrder = append(spec.ClusteringOrder, catalog.OrderSpec{Column: o.Column.Name, Desc: o.Desc})
	}
	for _, c := range s.Columns {
		t, err := p.resolveType(ks, c.Type, true)
		if err != nil {
			return nil, err
		}
		spec.Columns = append(spec.Columns, catalog.ColumnSpec{Name: c.Name.Name, Type: t, Static: c.Static})
	}
	return &CreateTable{Spec: spec}, nil
}

func (p *planner) planAlterTable(s *ast.AlterTable) (Statement, error) {
	ks, err := p.keyspaceOf(s.Name)
	if err != nil {
		return nil, err
	}
	spec := catalog.AlterTableSpec{Keyspace: ks, Name: s.Name.Name, IfExists: s.IfExists}
	switch a := s.Action.(type) {
	case *ast.AddColumns:
		spec.AddIfNotExists = a.IfNotExists
		for _, c := range a.Columns {
			t, err := p.resolveType(ks, c.Type, true)
			if err != nil {
				return nil, err
			}
			spec.Add = append(spec.Add, catalog.ColumnSpec{Name: c.Name.Name, Type: t, Static: c.Static})
		}
	case *ast.DropColumns:
		spec.DropIfExists = a.IfExists
		for _, c := range a.Columns {
			spec.Drop = append(spec.Drop, c.Name)
		}
		spec.DropTimestamp = time.Now().UnixMicro()
		if a.Timestamp != nil {
			t, err := p.binder.prepareTerm(a.Timestamp, receiver{Name: "[timestamp]", Type: types.Bigint})
			if err != nil {
				return nil, err
			}
			if !t.IsConst() {
				return nil, cqlerr.Invalidf("Bind variables are not supported in ALTER TABLE DROP USING TIMESTAMP")
			}
			ts, err := types.Int64(types.Bigint, t.Value)
			if err != nil {
				return nil, err
			}
			spec.DropTimestamp = ts
		}
	case *ast.RenameColumns:
		spec.RenameIfExists = a.IfExists
		for _, r := range a.Renames {
			spec.Rename = append(spec.Rename, [2]string{r.From.Name, r.To.Name})
		}
	case *ast.AlterColumnType:
		spec.AlterColumnType = a.Column.Name
	case *ast.AlterTableOptions:
		spec.Properties = properties(a.Options)
	default:
		return nil, cqlerr.Invalidf("Unsupported ALTER TABLE operation: %s", s.Action)
	}
	return &AlterTable{Spec: spec}, nil
}

func (p *planner) planCreateType(s *ast.CreateType) (Statement, error) {
	ks, err := p.keyspaceOf(s.Name)
	if err != nil {
		return nil, err
	}
	spec := catalog.TypeSpec{Keyspace: ks, Name: s.Name.Name, IfNotExists: s.IfNotExists}
	if p.schema.Keyspace(ks) == nil {
		return nil, cqlerr.Invalidf("Keyspace '%s' doesn't exist", ks)
	}
	for _, f := range s.Fields {
		t, err := p.resolveType(ks, f.Type, false)
		if err != nil {
			return nil, err
		}
		spec.FieldNames = append(spec.FieldNames, f.Name.Name)
		spec.FieldTypes = append(spec.FieldTypes, t)
	}
	return &CreateType{Spec: spec}, nil
}

// resolveType prepares a written type (CQL3Type.Raw.prepare): UDT names
// are looked up in keyspace; collections inside collections, UDTs inside
// collections and tuple components must be frozen.
func (p *planner) resolveType(keyspace string, t ast.TypeRef, topLevel bool) (*types.Type, error) {
	return p.resolveTypeIn(keyspace, t, false, topLevel)
}

func (p *planner) resolveTypeIn(keyspace string, t ast.TypeRef, frozen, topLevel bool) (*types.Type, error) {
	switch t.Kind {
	case ast.TypeNative:
		nt := types.NativeByName(t.Name)
		if nt == nil {
			return nil, cqlerr.Invalidf("Unknown type %s", t.Name)
		}
		if frozen {
			return nil, cqlerr.Invalidf("frozen<> is only allowed on collections, tuples, and user-defined types (got %s)", t.Name)
		}
		return nt, nil
	case ast.TypeFrozen:
		return p.resolveTypeIn(keyspace, t.Args[0], true, topLevel)
	case ast.TypeList, ast.TypeSet, ast.TypeMap:
		return p.resolveCollection(keyspace, t, frozen)
	case ast.TypeTuple:
		elems := make([]*types.Type, len(t.Args))
		for i, a := range t.Args {
			et, err := p.resolveTypeIn(keyspace, a, false, false)
			if err != nil {
				return nil, err
			}
			if et.IsCounter() {
				return nil, cqlerr.Invalidf("Counters are not allowed inside tuples")
			}
			elems[i] = types.Frozen(et)
		}
		return types.TupleOf(elems...), nil
	case ast.TypeUser:
		ks := keyspace
		if t.Keyspace != "" {
			if t.Keyspace != keyspace {
				return nil, cqlerr.Invalidf("Statement on keyspace %s cannot refer to a user type in keyspace %s; user types can only be used in the keyspace they are defined in", keyspace, t.Keyspace)
			}
			ks = t.Keyspace
		}
		var udt *types.Type
		if k := p.schema.Keyspace(ks); k != nil {
			udt = k.Type(t.Name)
		}
		if udt == nil {
			return nil, cqlerr.Invalidf("Unknown type %s.%s", ks, t.Name)
		}
		if frozen {
			return types.Frozen(udt), nil
		}
		return udt, nil
	case ast.TypeCustom:
		return types.CustomOf(t.Name), nil
	}
	return nil, cqlerr.Invalidf("Unsupported type %s", t)
}

func (p *planner) resolveCollection(keyspace string, t ast.TypeRef, frozen bool) (*types.Type, error) {
	elems := make([]*types.Type, len(t.Args))
	for i, a := range t.Args {
		et, err := p.resolveTypeIn(keyspace, a, false, false)
		if err != nil {
			return nil, err
		}
		if et.IsCounter() {
			return nil, cqlerr.Invalidf("Counters are not allowed inside collections: %s", t)
		}
		if et.IsMultiCell() {
			if frozen {
				et = types.Frozen(et)
			} else if et.Kind == types.KindUDT {
				return nil, cqlerr.Invalidf("Non-frozen UDTs are not allowed inside collections: %s", t)
			} else {
				return nil, cqlerr.Invalidf("Non-frozen collections are not allowed inside collections: %s", t)
			}
		}
		elems[i] = et
	}
	var out *types.Type
	switch t.Kind {
	case ast.TypeList:
		out = types.ListOf(elems[0])
	case ast.TypeSet:
		out = types.SetOf(elems[0])
	default:
		out = types.MapOf(elems[0], elems[1])
	}
	if frozen {
		out = types.Frozen(out)
	}
	return out, nil
}

func (p *planner) planCreateIndex(s *ast.CreateIndex) (Statement, error) {
	ks, err := p.keyspaceOf(s.Table)
	if err != nil {
		return nil, err
	}
	if len(s.Targets) != 1 {
		return nil, cqlerr.Invalidf("Only CUSTOM indexes support multiple columns")
	}
	spec := catalog.IndexSpec{Keyspace: ks, Table: s.Table.Name, Name: s.Name, IfNotExists: s.IfNotExists,
		Column: s.Targets[0].Column.Name, Custom: s.Custom}
	switch s.Targets[0].Kind {
	case ast.IndexValues:
		spec.Target = "values"
	case ast.IndexKeys:
		spec.Target = "keys"
	case ast.IndexEntries:
		spec.Target = "entries"
	case ast.IndexFull:
		spec.Target = "full"
	}
	if err := indexAttributes(s, &spec); err != nil {
		return nil, err
	}
	return &CreateIndex{Spec: spec}, nil
}

// legacyIndexClass names the default index implementation, the one a plain
// CREATE INDEX makes (default_secondary_index in cassandra.yaml).
const legacyIndexClass = "legacy_local_table"

// indexAttributes reads USING and WITH of CREATE INDEX
// (CreateIndexStatement.Raw.prepare, IndexAttributes.validate). USING
// 'legacy_local_table' names the default index; any other class, and
// CUSTOM without USING (the default class, which is no custom indexer),
// makes a custom index whose class the catalog resolves.
func indexAttributes(s *ast.CreateIndex, spec *catalog.IndexSpec) error {
	spec.Custom = s.Custom
	switch {
	case s.Using != nil && (s.Custom || !strings.EqualFold(s.Using.Text, legacyIndexClass)):
		spec.Class, spec.Custom = s.Using.Text, true
	case s.Using == nil && s.Custom:
		spec.Class = legacyIndexClass
	}
	props := properties(s.Options)
	for _, prop := range props {
		if prop.Name != "options" {
			return cqlerr.Syntaxf("Unknown property '%s'", prop.Name)
		}
	}
	if !spec.Custom && len(props) > 0 {
		return cqlerr.Invalidf("Cannot specify options for a non-CUSTOM index")
	}
	for _, prop := range props {
		if prop.IsMap {
			spec.Options = prop.Map
		}
	}
	for _, reserved := range []string{"class_name", "target"} {
		if _, ok := spec.Options[reserved]; ok {
			return cqlerr.Invalidf("Cannot specify %s as a CUSTOM option", reserved)
		}
	}
	if spec.Class == "org.apache.cassandra.index.sasi.SASIIndex" {
		return cqlerr.Invalidf("SASI indexes are disabled. Enable in cassandra.yaml to use.")
	}
	return nil
}

func (p *planner) planAlterType(s *ast.AlterType) (Statement, error) {
	ks, err := p.keyspaceOf(s.Name)
	if err != nil {
		return nil, err
	}
	spec := catalog.AlterTypeSpec{Keyspace: ks, Name: s.Name.Name, IfExists: s.IfExists}
	switch a := s.Action.(type) {
	case *ast.AddField:
		t, err := p.resolveType(ks, a.Field.Type, false)
		if err != nil {
			return nil, err
		}
		if t.IsMultiCell() {
			t = types.Frozen(t)
		}
		spec.AddField, spec.AddType, spec.AddIfNotExists = a.Field.Name.Name, t, a.IfNotExists
	case *ast.RenameFields:
		spec.RenameIfExists = a.IfExists
		for _, r := range a.Renames {
			spec.Renames = append(spec.Renames, [2]string{r.From.Name, r.To.Name})
		}
	case *ast.AlterFieldType:
		spec.AlterField = a.Field.Name
	}
	return &AlterType{Spec: spec}, nil
}
