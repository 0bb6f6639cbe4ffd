package ast

import "strings"

// Pos is where a node's first token starts: Line counts from 1, Col is the
// 0-based character offset within the line (the "line 1:13" numbering of
// Cassandra's error messages), Offset the byte offset in the query text.
type Pos struct {
	Line   int
	Col    int
	Offset int
}

// Position returns p. Nodes embed Pos and so all have this method.
func (p Pos) Position() Pos { return p }

// Node is any piece of the syntax tree.
type Node interface {
	Position() Pos
	// Format appends the node as canonical CQL.
	Format(buf *strings.Builder)
	// String returns the node as canonical CQL.
	String() string
}

// Statement is one CQL statement.
type Statement interface {
	Node
	statementNode()
}

// Expr is a value term or, inside selectors, a selector expression (see the
// package invariants for which nodes may appear where).
type Expr interface {
	Node
	exprNode()
}

// Relation is one restriction of a WHERE clause.
type Relation interface {
	Node
	relationNode()
}

func format(n interface{ Format(*strings.Builder) }) string {
	var buf strings.Builder
	n.Format(&buf)
	return buf.String()
}

// Ident is a column, field or alias name.
type Ident struct {
	Pos
	Name string
}

// Format appends the name, quoted when necessary.
func (i Ident) Format(buf *strings.Builder) { writeIdent(buf, i.Name) }

func (i Ident) String() string { return format(i) }

// QualifiedName names a table, type or index, optionally in a keyspace.
type QualifiedName struct {
	Pos
	Keyspace string // "" when the name is not qualified
	Name     string
}

// Format appends [keyspace.]name.
func (q QualifiedName) Format(buf *strings.Builder) {
	if q.Keyspace != "" {
		writeIdent(buf, q.Keyspace)
		buf.WriteByte('.')
	}
	writeIdent(buf, q.Name)
}

func (q QualifiedName) String() string { return format(q) }

// Property is one `name = value` of a WITH clause. Value is a constant
// *Literal or a *MapLiteral of constants.
type Property struct {
	Pos
	Name  string
	Value Expr
}

// Format appends name = value.
func (p Property) Format(buf *strings.Builder) {
	writeIdent(buf, p.Name)
	buf.WriteString(" = ")
	p.Value.Format(buf)
}

func (p Property) String() string { return format(p) }

// Properties are the options of a WITH clause in the order written.
type Properties []Property

// Format appends the properties joined by AND.
func (ps Properties) Format(buf *strings.Builder) {
	for i, p := range ps {
		if i > 0 {
			buf.WriteString(" AND ")
		}
		p.Format(buf)
	}
}

// Get returns the value of the property called name, or nil.
func (ps Properties) Get(name string) Expr {
	for _, p := range ps {
		if p.Name == name {
			return p.Value
		}
	}
	return nil
}

func writeIdents(buf *strings.Builder, ids []Ident) {
	for i, id := range ids {
		if i > 0 {
			buf.WriteString(", ")
		}
		id.Format(buf)
	}
}

func writeExprs(buf *strings.Builder, es []Expr) {
	for i, e := range es {
		if i > 0 {
			buf.WriteString(", ")
		}
		e.Format(buf)
	}
}
