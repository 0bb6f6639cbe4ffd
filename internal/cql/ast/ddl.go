package ast

import (
	"strings"
)

// CreateKeyspace is CREATE KEYSPACE.
type CreateKeyspace struct {
	Pos
	IfNotExists bool
	Name        string
	Options     Properties
}

// AlterKeyspace is ALTER KEYSPACE.
type AlterKeyspace struct {
	Pos
	IfExists bool
	Name     string
	Options  Properties
}

// DropKeyspace is DROP KEYSPACE.
type DropKeyspace struct {
	Pos
	IfExists bool
	Name     string
}

// ColumnMask is a Cassandra 5.0 dynamic data mask: MASKED WITH DEFAULT or
// MASKED WITH [keyspace.]function(args).
type ColumnMask struct {
	Pos
	Default  bool
	Keyspace string
	Function string
	Args     []Expr
}

// Format appends MASKED WITH ....
func (m *ColumnMask) Format(buf *strings.Builder) {
	buf.WriteString("MASKED WITH ")
	if m.Default {
		buf.WriteString("DEFAULT")
		return
	}
	if m.Keyspace != "" {
		writeIdent(buf, m.Keyspace)
		buf.WriteByte('.')
	}
	writeFunctionName(buf, m.Function)
	buf.WriteByte('(')
	writeExprs(buf, m.Args)
	buf.WriteByte(')')
}

func (m *ColumnMask) String() string { return format(m) }

// ColumnDef declares a column in CREATE TABLE or ALTER TABLE ADD.
// PrimaryKey is the inline `name type PRIMARY KEY` form.
type ColumnDef struct {
	Pos
	Name       Ident
	Type       TypeRef
	Static     bool
	Mask       *ColumnMask
	PrimaryKey bool
}

// Format appends name type [STATIC] [mask] [PRIMARY KEY].
func (c ColumnDef) Format(buf *strings.Builder) {
	c.Name.Format(buf)
	buf.WriteByte(' ')
	c.Type.Format(buf)
	if c.Static {
		buf.WriteString(" STATIC")
	}
	if c.Mask != nil {
		buf.WriteByte(' ')
		c.Mask.Format(buf)
	}
	if c.PrimaryKey {
		buf.WriteString(" PRIMARY KEY")
	}
}

func (c ColumnDef) String() string { return format(c) }

// PrimaryKeyClause is the table element PRIMARY KEY (pk, c1, ...) or
// PRIMARY KEY ((pk1, pk2), c1, ...).
type PrimaryKeyClause struct {
	Pos
	PartitionKey []Ident
	Clustering   []Ident
}

// Format appends the clause.
func (k PrimaryKeyClause) Format(buf *strings.Builder) {
	buf.WriteString("PRIMARY KEY (")
	if len(k.PartitionKey) == 1 {
		k.PartitionKey[0].Format(buf)
	} else {
		buf.WriteByte('(')
		writeIdents(buf, k.PartitionKey)
		buf.WriteByte(')')
	}
	for _, c := range k.Clustering {
		buf.WriteString(", ")
		c.Format(buf)
	}
	buf.WriteByte(')')
}

func (k PrimaryKeyClause) String() string { return format(k) }

// CreateTable is CREATE TABLE. PartitionKey and Clustering are the primary
// key as declared: by the first column marked PRIMARY KEY if there is one,
// else by the first PrimaryKeyClauses entry. Every declaration is kept so
// that the planner can reject a table with zero or several
// (PrimaryKeyDeclarations).
type CreateTable struct {
	Pos
	IfNotExists       bool
	Name              QualifiedName
	Columns           []ColumnDef
	PrimaryKeyClauses []PrimaryKeyClause
	PartitionKey      []Ident
	Clustering        []Ident
	ClusteringOrder   []OrderItem
	CompactStorage    bool
	Options           Properties
}

// PrimaryKeyDeclarations counts the PRIMARY KEY declarations, inline and
// table clauses; Cassandra requires exactly one.
func (s *CreateTable) PrimaryKeyDeclarations() int {
	n := len(s.PrimaryKeyClauses)
	for _, c := range s.Columns {
		if c.PrimaryKey {
			n++
		}
	}
	return n
}

// Format appends the statement as canonical CQL.
func (s *CreateTable) Format(buf *strings.Builder) {
	buf.WriteString("CREATE TABLE ")
	if s.IfNotExists {
		buf.WriteString("IF NOT EXISTS ")
	}
	s.Name.Format(buf)
	buf.WriteString(" (")
	for i, c := range s.Columns {
		if i > 0 {
			buf.WriteString(", ")
		}
		c.Format(buf)
	}
	for i, k := range s.PrimaryKeyClauses {
		if i > 0 || len(s.Columns) > 0 {
			buf.WriteString(", ")
		}
		k.Format(buf)
	}
	buf.WriteByte(')')
	formatTableWith(buf, s.ClusteringOrder, s.CompactStorage, s.Options)
}

// AlterTableAction is what an ALTER TABLE does: *AlterColumnType,
// *AlterColumnMask, *AddColumns, *DropColumns, *RenameColumns,
// *DropCompactStorage or *AlterTableOptions.
type AlterTableAction interface {
	Node
	alterTableAction()
}

// formatTableWith writes the WITH clause of CREATE TABLE and CREATE
// MATERIALIZED VIEW: CLUSTERING ORDER BY, COMPACT STORAGE and properties,
// joined by AND; nothing when all are absent.
func formatTableWith(buf *strings.Builder, order []OrderItem, compact bool, options Properties) {
	sep := " WITH "
	if len(order) > 0 {
		buf.WriteString(sep + "CLUSTERING ORDER BY (")
		for i, o := range order {
			if i > 0 {
				buf.WriteString(", ")
			}
			o.Column.Format(buf)
			if o.Desc {
				buf.WriteString(" DESC")
			} else {
				buf.WriteString(" ASC")
			}
		}
		buf.WriteByte(')')
		sep = " AND "
	}
	if compact {
		buf.WriteString(sep + "COMPACT STORAGE")
		sep = " AND "
	}
	if len(options) > 0 {
		buf.WriteString(sep)
		options.Format(buf)
	}
}

// AlterColumnType is ALTER c TYPE t (rejected by Cassandra 4.0+ at
// execution, accepted by the grammar).
type AlterColumnType struct {
	Pos
	Column Ident
	Type   TypeRef
}

// AlterColumnMask is ALTER [IF EXISTS] c MASKED WITH ... or DROP MASKED
// (Mask nil).
type AlterColumnMask struct {
	Pos
	IfExists bool
	Column   Ident
	Mask     *ColumnMask
}

// AddColumns is ADD [IF NOT EXISTS] c t | (c t, ...).
type AddColumns struct {
	Pos
	IfNotExists bool
	Columns     []ColumnDef
}

// DropColumns is DROP [IF EXISTS] c | (c, ...) [USING TIMESTAMP n];
// Timestamp is an INTEGER *Literal or nil.
type DropColumns struct {
	Pos
	IfExists  bool
	Columns   []Ident
	Timestamp Expr
}

// Rename is one `from TO to` of a RENAME.
type Rename struct {
	From, To Ident
}

// RenameColumns is RENAME [IF EXISTS] a TO b [AND c TO d ...].
type RenameColumns struct {
	Pos
	IfExists bool
	Renames  []Rename
}

// DropCompactStorage is DROP COMPACT STORAGE.
type DropCompactStorage struct{ Pos }

// AlterTableOptions is WITH options.
type AlterTableOptions struct {
	Pos
	Options Properties
}

func (*AlterColumnType) alterTableAction()    {}
func (*AlterColumnMask) alterTableAction()    {}
func (*AddColumns) alterTableAction()         {}
func (*DropColumns) alterTableAction()        {}
func (*RenameColumns) alterTableAction()      {}
func (*DropCompactStorage) alterTableAction() {}
func (*AlterTableOptions) alterTableAction()  {}

// Format appends ALTER c TYPE t.
func (a *AlterColumnType) Format(buf *strings.Builder) {
	buf.WriteString("ALTER ")
	a.Column.Format(buf)
	buf.WriteString(" TYPE ")
	a.Type.Format(buf)
}

// Format appends ALTER [IF EXISTS] c MASKED WITH ... | DROP MASKED.
func (a *AlterColumnMask) Format(buf *strings.Builder) {
	buf.WriteString("ALTER ")
	if a.IfExists {
		buf.WriteString("IF EXISTS ")
	}
	a.Column.Format(buf)
	if a.Mask == nil {
		buf.WriteString(" DROP MASKED")
		return
	}
	buf.WriteByte(' ')
	a.Mask.Format(buf)
}

// Format appends ADD [IF NOT EXISTS] columns.
func (a *AddColumns) Format(buf *strings.Builder) {
	buf.WriteString("ADD ")
	if a.IfNotExists {
		buf.WriteString("IF NOT EXISTS ")
	}
	if len(a.Columns) == 1 {
		a.Columns[0].Format(buf)
		return
	}
	buf.WriteByte('(')
	for i, c := range a.Columns {
		if i > 0 {
			buf.WriteString(", ")
		}
		c.Format(buf)
	}
	buf.WriteByte(')')
}

// Format appends DROP [IF EXISTS] columns [USING TIMESTAMP n].
func (a *DropColumns) Format(buf *strings.Builder) {
	buf.WriteString("DROP ")
	if a.IfExists {
		buf.WriteString("IF EXISTS ")
	}
	if len(a.Columns) == 1 {
		a.Columns[0].Format(buf)
	} else {
		buf.WriteByte('(')
		writeIdents(buf, a.Columns)
		buf.WriteByte(')')
	}
	if a.Timestamp != nil {
		buf.WriteString(" USING TIMESTAMP ")
		a.Timestamp.Format(buf)
	}
}

// Format appends RENAME [IF EXISTS] a TO b AND ....
func (a *RenameColumns) Format(buf *strings.Builder) {
	buf.WriteString("RENAME ")
	if a.IfExists {
		buf.WriteString("IF EXISTS ")
	}
	writeRenames(buf, a.Renames)
}

func writeRenames(buf *strings.Builder, renames []Rename) {
	for i, r := range renames {
		if i > 0 {
			buf.WriteString(" AND ")
		}
		r.From.Format(buf)
		buf.WriteString(" TO ")
		r.To.Format(buf)
	}
}

// Format appends DROP COMPACT STORAGE.
func (*DropCompactStorage) Format(buf *strings.Builder) { buf.WriteString("DROP COMPACT STORAGE") }

// Format appends WITH options.
func (a *AlterTableOptions) Format(buf *strings.Builder) {
	buf.WriteString("WITH ")
	a.Options.Format(buf)
}

func (a *AlterColumnType) String() string    { return format(a) }
func (a *AlterColumnMask) String() string    { return format(a) }
func (a *AddColumns) String() string         { return format(a) }
func (a *DropColumns) String() string        { return format(a) }
func (a *RenameColumns) String() string      { return format(a) }
func (a *DropCompactStorage) String() string { return format(a) }
func (a *AlterTableOptions) String() string  { return format(a) }

// AlterTable is ALTER TABLE.
type AlterTable struct {
	Pos
	IfExists bool
	Name     QualifiedName
	Action   AlterTableAction
}

// DropTable is DROP TABLE.
type DropTable struct {
	Pos
	IfExists bool
	Name     QualifiedName
}

// Truncate is TRUNCATE [TABLE].
type Truncate struct {
	Pos
	Name QualifiedName
}

// FieldDef declares a field of a user-defined type.
type FieldDef struct {
	Pos
	Name Ident
	Type TypeRef
}

// Format appends name type.
func (f FieldDef) Format(buf *strings.Builder) {
	f.Name.Format(buf)
	buf.WriteByte(' ')
	f.Type.Format(buf)
}

func (f FieldDef) String() string { return format(f) }

// CreateType is CREATE TYPE.
type CreateType struct {
	Pos
	IfNotExists bool
	Name        QualifiedName
	Fields      []FieldDef
}

// AlterTypeAction is what an ALTER TYPE does: *AlterFieldType, *AddField or
// *RenameFields.
type AlterTypeAction interface {
	Node
	alterTypeAction()
}

// AlterFieldType is ALTER f TYPE t.
type AlterFieldType struct {
	Pos
	Field Ident
	Type  TypeRef
}

// AddField is ADD [IF NOT EXISTS] f t.
type AddField struct {
	Pos
	IfNotExists bool
	Field       FieldDef
}

// RenameFields is RENAME [IF EXISTS] a TO b [AND ...].
type RenameFields struct {
	Pos
	IfExists bool
	Renames  []Rename
}

func (*AlterFieldType) alterTypeAction() {}
func (*AddField) alterTypeAction()       {}
func (*RenameFields) alterTypeAction()   {}

// Format appends ALTER f TYPE t.
func (a *AlterFieldType) Format(buf *strings.Builder) {
	buf.WriteString("ALTER ")
	a.Field.Format(buf)
	buf.WriteString(" TYPE ")
	a.Type.Format(buf)
}

// Format appends ADD [IF NOT EXISTS] f t.
func (a *AddField) Format(buf *strings.Builder) {
	buf.WriteString("ADD ")
	if a.IfNotExists {
		buf.WriteString("IF NOT EXISTS ")
	}
	a.Field.Format(buf)
}

// Format appends RENAME [IF EXISTS] renames.
func (a *RenameFields) Format(buf *strings.Builder) {
	buf.WriteString("RENAME ")
	if a.IfExists {
		buf.WriteString("IF EXISTS ")
	}
	writeRenames(buf, a.Renames)
}

func (a *AlterFieldType) String() string { return format(a) }
func (a *AddField) String() string       { return format(a) }
func (a *RenameFields) String() string   { return format(a) }

// AlterType is ALTER TYPE.
type AlterType struct {
	Pos
	IfExists bool
	Name     QualifiedName
	Action   AlterTypeAction
}

// DropType is DROP TYPE.
type DropType struct {
	Pos
	IfExists bool
	Name     QualifiedName
}

// IndexTargetKind says what of a column an index covers.
type IndexTargetKind uint8

// Index targets (Parser.g indexIdent).
const (
	IndexSimple  IndexTargetKind = iota // (c)
	IndexValues                         // (VALUES(c))
	IndexKeys                           // (KEYS(c))
	IndexEntries                        // (ENTRIES(c))
	IndexFull                           // (FULL(c))
)

func (k IndexTargetKind) String() string {
	if k == IndexSimple {
		return "SIMPLE"
	}
	if int(k) < len(indexTargetNames) {
		return indexTargetNames[k]
	}
	return "unknown"
}

// IndexTarget is one target of CREATE INDEX.
type IndexTarget struct {
	Pos
	Column Ident
	Kind   IndexTargetKind
}

var indexTargetNames = [...]string{"", "VALUES", "KEYS", "ENTRIES", "FULL"}

// Format appends the target.
func (t IndexTarget) Format(buf *strings.Builder) {
	if t.Kind == IndexSimple || int(t.Kind) >= len(indexTargetNames) {
		t.Column.Format(buf)
		return
	}
	buf.WriteString(indexTargetNames[t.Kind])
	buf.WriteByte('(')
	t.Column.Format(buf)
	buf.WriteByte(')')
}

func (t IndexTarget) String() string { return format(t) }

// CreateIndex is CREATE [CUSTOM] INDEX. Name is "" when omitted; Using is
// the string *Literal of USING 'class', nil when absent.
type CreateIndex struct {
	Pos
	Custom      bool
	IfNotExists bool
	Name        string
	Table       QualifiedName
	Targets     []IndexTarget
	Using       *Literal
	Options     Properties
}

// DropIndex is DROP INDEX.
type DropIndex struct {
	Pos
	IfExists bool
	Name     QualifiedName
}

func (*CreateKeyspace) statementNode() {}
func (*AlterKeyspace) statementNode()  {}
func (*DropKeyspace) statementNode()   {}
func (*CreateTable) statementNode()    {}
func (*AlterTable) statementNode()     {}
func (*DropTable) statementNode()      {}
func (*Truncate) statementNode()       {}
func (*CreateType) statementNode()     {}
func (*AlterType) statementNode()      {}
func (*DropType) statementNode()       {}
func (*CreateIndex) statementNode()    {}
func (*DropIndex) statementNode()      {}

func writeIf(buf *strings.Builder, cond bool, text string) {
	if cond {
		buf.WriteString(text)
	}
}

// Format appends the statement as canonical CQL.
func (s *CreateKeyspace) Format(buf *strings.Builder) {
	buf.WriteString("CREATE KEYSPACE ")
	writeIf(buf, s.IfNotExists, "IF NOT EXISTS ")
	writeIdent(buf, s.Name)
	buf.WriteString(" WITH ")
	s.Options.Format(buf)
}

// Format appends the statement as canonical CQL.
func (s *AlterKeyspace) Format(buf *strings.Builder) {
	buf.WriteString("ALTER KEYSPACE ")
	writeIf(buf, s.IfExists, "IF EXISTS ")
	writeIdent(buf, s.Name)
	buf.WriteString(" WITH ")
	s.Options.Format(buf)
}

// Format appends the statement as canonical CQL.
func (s *DropKeyspace) Format(buf *strings.Builder) {
	buf.WriteString("DROP KEYSPACE ")
	writeIf(buf, s.IfExists, "IF EXISTS ")
	writeIdent(buf, s.Name)
}

// Format appends the statement as canonical CQL.
func (s *AlterTable) Format(buf *strings.Builder) {
	buf.WriteString("ALTER TABLE ")
	writeIf(buf, s.IfExists, "IF EXISTS ")
	s.Name.Format(buf)
	buf.WriteByte(' ')
	s.Action.Format(buf)
}

// Format appends the statement as canonical CQL.
func (s *DropTable) Format(buf *strings.Builder) {
	buf.WriteString("DROP TABLE ")
	writeIf(buf, s.IfExists, "IF EXISTS ")
	s.Name.Format(buf)
}

// Format appends the statement as canonical CQL.
func (s *Truncate) Format(buf *strings.Builder) {
	buf.WriteString("TRUNCATE ")
	s.Name.Format(buf)
}

func writeUserTypeName(buf *strings.Builder, q QualifiedName) {
	if q.Keyspace != "" {
		writeIdent(buf, q.Keyspace)
		buf.WriteByte('.')
	}
	writeTypeName(buf, q.Name)
}

// Format appends the statement as canonical CQL.
func (s *CreateType) Format(buf *strings.Builder) {
	buf.WriteString("CREATE TYPE ")
	writeIf(buf, s.IfNotExists, "IF NOT EXISTS ")
	writeUserTypeName(buf, s.Name)
	buf.WriteString(" (")
	for i, f := range s.Fields {
		if i > 0 {
			buf.WriteString(", ")
		}
		f.Format(buf)
	}
	buf.WriteByte(')')
}

// Format appends the statement as canonical CQL.
func (s *AlterType) Format(buf *strings.Builder) {
	buf.WriteString("ALTER TYPE ")
	writeIf(buf, s.IfExists, "IF EXISTS ")
	writeUserTypeName(buf, s.Name)
	buf.WriteByte(' ')
	s.Action.Format(buf)
}

// Format appends the statement as canonical CQL.
func (s *DropType) Format(buf *strings.Builder) {
	buf.WriteString("DROP TYPE ")
	writeIf(buf, s.IfExists, "IF EXISTS ")
	writeUserTypeName(buf, s.Name)
}

// Format appends the statement as canonical CQL.
func (s *CreateIndex) Format(buf *strings.Builder) {
	buf.WriteString("CREATE ")
	writeIf(buf, s.Custom, "CUSTOM ")
	buf.WriteString("INDEX ")
	writeIf(buf, s.IfNotExists, "IF NOT EXISTS ")
	if s.Name != "" {
		writeIdent(buf, s.Name)
		buf.WriteByte(' ')
	}
	buf.WriteString("ON ")
	s.Table.Format(buf)
	buf.WriteString(" (")
	for i, t := range s.Targets {
		if i > 0 {
			buf.WriteString(", ")
		}
		t.Format(buf)
	}
	buf.WriteByte(')')
	if s.Using != nil {
		buf.WriteString(" USING ")
		s.Using.Format(buf)
	}
	if len(s.Options) > 0 {
		buf.WriteString(" WITH ")
		s.Options.Format(buf)
	}
}

// Format appends the statement as canonical CQL.
func (s *DropIndex) Format(buf *strings.Builder) {
	buf.WriteString("DROP INDEX ")
	writeIf(buf, s.IfExists, "IF EXISTS ")
	s.Name.Format(buf)
}

func (s *CreateKeyspace) String() string { return format(s) }
func (s *AlterKeyspace) String() string  { return format(s) }
func (s *DropKeyspace) String() string   { return format(s) }
func (s *CreateTable) String() string    { return format(s) }
func (s *AlterTable) String() string     { return format(s) }
func (s *DropTable) String() string      { return format(s) }
func (s *Truncate) String() string       { return format(s) }
func (s *CreateType) String() string     { return format(s) }
func (s *AlterType) String() string      { return format(s) }
func (s *DropType) String() string       { return format(s) }
func (s *CreateIndex) String() string    { return format(s) }
func (s *DropIndex) String() string      { return format(s) }
