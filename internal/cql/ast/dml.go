package ast

import "strings"

// UsingClause holds USING TTL / TIMESTAMP; each is an INTEGER *Literal, a
// *BindMarker, or nil when absent.
type UsingClause struct {
	Pos
	TTL       Expr
	Timestamp Expr
}

// IsEmpty reports whether no USING option was given.
func (u UsingClause) IsEmpty() bool { return u.TTL == nil && u.Timestamp == nil }

// Format appends " USING ..." or nothing. When both options are bind markers
// they print in marker order so that re-parsing numbers them the same.
func (u UsingClause) Format(buf *strings.Builder) {
	if u.IsEmpty() {
		return
	}
	type option struct {
		name  string
		value Expr
	}
	opts := []option{{"TTL", u.TTL}, {"TIMESTAMP", u.Timestamp}}
	ttl, ok1 := u.TTL.(*BindMarker)
	ts, ok2 := u.Timestamp.(*BindMarker)
	if ok1 && ok2 && ts.Index < ttl.Index {
		opts[0], opts[1] = opts[1], opts[0]
	}
	buf.WriteString(" USING ")
	first := true
	for _, o := range opts {
		if o.value == nil {
			continue
		}
		if !first {
			buf.WriteString(" AND ")
		}
		first = false
		buf.WriteString(o.name)
		buf.WriteByte(' ')
		o.value.Format(buf)
	}
}

func (u UsingClause) String() string { return format(u) }

// Insert is INSERT INTO ... VALUES or INSERT INTO ... JSON.
type Insert struct {
	Pos
	Table   QualifiedName
	Columns []Ident
	Values  []Expr
	// Json is the string *Literal or *BindMarker of INSERT ... JSON; nil for
	// a VALUES insert. DefaultUnset is JSON's DEFAULT UNSET.
	Json         Expr
	DefaultUnset bool
	IfNotExists  bool
	Using        UsingClause
}

func (*Insert) statementNode() {}

// Format appends the statement as canonical CQL.
func (s *Insert) Format(buf *strings.Builder) {
	buf.WriteString("INSERT INTO ")
	s.Table.Format(buf)
	if s.Json != nil {
		buf.WriteString(" JSON ")
		s.Json.Format(buf)
		if s.DefaultUnset {
			buf.WriteString(" DEFAULT UNSET")
		}
	} else {
		buf.WriteString(" (")
		writeIdents(buf, s.Columns)
		buf.WriteString(") VALUES (")
		writeExprs(buf, s.Values)
		buf.WriteByte(')')
	}
	if s.IfNotExists {
		buf.WriteString(" IF NOT EXISTS")
	}
	s.Using.Format(buf)
}

func (s *Insert) String() string { return format(s) }

// AssignOp is the kind of an UPDATE assignment.
type AssignOp uint8

// Assignment kinds (cql3/Operation.java).
const (
	AssignSet     AssignOp = iota // c = v, c[k] = v, c.f = v
	AssignAdd                     // c = c + v, c += v
	AssignSub                     // c = c - v, c -= v
	AssignPrepend                 // c = v + c
)

var assignOpNames = [...]string{"set", "add", "subtract", "prepend"}

func (o AssignOp) String() string {
	if int(o) < len(assignOpNames) {
		return assignOpNames[o]
	}
	return "unknown"
}

// Assignment is one item of UPDATE ... SET. Key (c[k] = v) and Field
// (c.f = v) occur only with AssignSet.
type Assignment struct {
	Pos
	Column Ident
	Op     AssignOp
	Key    Expr
	Field  *Ident
	Value  Expr
}

// Format appends the assignment.
func (a Assignment) Format(buf *strings.Builder) {
	a.Column.Format(buf)
	switch {
	case a.Key != nil:
		buf.WriteByte('[')
		a.Key.Format(buf)
		buf.WriteByte(']')
	case a.Field != nil:
		buf.WriteByte('.')
		a.Field.Format(buf)
	}
	buf.WriteString(" = ")
	switch a.Op {
	case AssignAdd, AssignSub:
		a.Column.Format(buf)
		if a.Op == AssignAdd {
			buf.WriteString(" + ")
		} else {
			buf.WriteString(" - ")
		}
		a.Value.Format(buf)
	case AssignPrepend:
		a.Value.Format(buf)
		buf.WriteString(" + ")
		a.Column.Format(buf)
	default:
		a.Value.Format(buf)
	}
}

func (a Assignment) String() string { return format(a) }

// Condition is one condition of IF: `column op value`, `column[key] op
// value` or `column.field op value`. For OpIn, Value is an *InList or a
// *BindMarker.
type Condition struct {
	Pos
	Column Ident
	Key    Expr
	Field  *Ident
	Op     Operator
	Value  Expr
}

// Format appends the condition.
func (c Condition) Format(buf *strings.Builder) {
	c.Column.Format(buf)
	switch {
	case c.Key != nil:
		buf.WriteByte('[')
		c.Key.Format(buf)
		buf.WriteByte(']')
	case c.Field != nil:
		buf.WriteByte('.')
		c.Field.Format(buf)
	}
	writeOpValue(buf, c.Op, c.Value)
}

func (c Condition) String() string { return format(c) }

func writeConditions(buf *strings.Builder, ifExists bool, conds []Condition) {
	if ifExists {
		buf.WriteString(" IF EXISTS")
		return
	}
	for i, c := range conds {
		if i == 0 {
			buf.WriteString(" IF ")
		} else {
			buf.WriteString(" AND ")
		}
		c.Format(buf)
	}
}

// Update is an UPDATE statement.
type Update struct {
	Pos
	Table       QualifiedName
	Using       UsingClause
	Assignments []Assignment
	Where       []Relation
	IfExists    bool
	Conditions  []Condition
}

func (*Update) statementNode() {}

// Format appends the statement as canonical CQL.
func (s *Update) Format(buf *strings.Builder) {
	buf.WriteString("UPDATE ")
	s.Table.Format(buf)
	s.Using.Format(buf)
	buf.WriteString(" SET ")
	for i, a := range s.Assignments {
		if i > 0 {
			buf.WriteString(", ")
		}
		a.Format(buf)
	}
	writeWhere(buf, s.Where)
	writeConditions(buf, s.IfExists, s.Conditions)
}

func (s *Update) String() string { return format(s) }

// DeleteTarget is one item before FROM in DELETE: a column, an element
// `c[key]` or a field `c.field`.
type DeleteTarget struct {
	Pos
	Column Ident
	Key    Expr
	Field  *Ident
}

// Format appends the target.
func (d DeleteTarget) Format(buf *strings.Builder) {
	d.Column.Format(buf)
	switch {
	case d.Key != nil:
		buf.WriteByte('[')
		d.Key.Format(buf)
		buf.WriteByte(']')
	case d.Field != nil:
		buf.WriteByte('.')
		d.Field.Format(buf)
	}
}

func (d DeleteTarget) String() string { return format(d) }

// Delete is a DELETE statement; Using only ever has a Timestamp.
type Delete struct {
	Pos
	Columns    []DeleteTarget
	Table      QualifiedName
	Using      UsingClause
	Where      []Relation
	IfExists   bool
	Conditions []Condition
}

func (*Delete) statementNode() {}

// Format appends the statement as canonical CQL.
func (s *Delete) Format(buf *strings.Builder) {
	buf.WriteString("DELETE ")
	for i, c := range s.Columns {
		if i > 0 {
			buf.WriteString(", ")
		}
		c.Format(buf)
	}
	if len(s.Columns) > 0 {
		buf.WriteByte(' ')
	}
	buf.WriteString("FROM ")
	s.Table.Format(buf)
	s.Using.Format(buf)
	writeWhere(buf, s.Where)
	writeConditions(buf, s.IfExists, s.Conditions)
}

func (s *Delete) String() string { return format(s) }

// BatchType is LOGGED (the default), UNLOGGED or COUNTER.
type BatchType uint8

// Batch types.
const (
	BatchLogged BatchType = iota
	BatchUnlogged
	BatchCounter
)

var batchTypeNames = [...]string{"LOGGED", "UNLOGGED", "COUNTER"}

func (t BatchType) String() string {
	if int(t) < len(batchTypeNames) {
		return batchTypeNames[t]
	}
	return "unknown"
}

// Batch is BEGIN ... BATCH ... APPLY BATCH; Statements are *Insert, *Update
// and *Delete.
type Batch struct {
	Pos
	Type       BatchType
	Using      UsingClause
	Statements []Statement
}

func (*Batch) statementNode() {}

// Format appends the statement as canonical CQL.
func (s *Batch) Format(buf *strings.Builder) {
	buf.WriteString("BEGIN ")
	switch s.Type {
	case BatchUnlogged:
		buf.WriteString("UNLOGGED ")
	case BatchCounter:
		buf.WriteString("COUNTER ")
	}
	buf.WriteString("BATCH")
	s.Using.Format(buf)
	for _, st := range s.Statements {
		buf.WriteByte(' ')
		st.Format(buf)
		buf.WriteByte(';')
	}
	buf.WriteString(" APPLY BATCH")
}

func (s *Batch) String() string { return format(s) }
