package ast

import "strings"

// Operator is a comparison of a WHERE relation or IF condition.
type Operator uint8

// Operators (cql3/Operator.java).
const (
	OpEq          Operator = iota // =
	OpLt                          // <
	OpLte                         // <=
	OpGt                          // >
	OpGte                         // >=
	OpNeq                         // !=
	OpIn                          // IN
	OpContains                    // CONTAINS
	OpContainsKey                 // CONTAINS KEY
	OpLike                        // LIKE
	OpIsNot                       // IS NOT (only as IS NOT NULL)
)

var operatorText = [...]string{"=", "<", "<=", ">", ">=", "!=", "IN", "CONTAINS", "CONTAINS KEY", "LIKE", "IS NOT"}

func (o Operator) String() string {
	if int(o) < len(operatorText) {
		return operatorText[o]
	}
	return "?op"
}

// SingleColumnRelation is `column op value`. For OpIn, Value is an *InList
// or a *BindMarker; for OpIsNot it is *Null.
type SingleColumnRelation struct {
	Pos
	Column Ident
	Op     Operator
	Value  Expr
}

// MultiColumnRelation is `(c1, c2, ...) op value`. For OpIn, Value is an
// *InList of *TupleLiteral or of *BindMarker, or a *BindMarker; otherwise a
// *TupleLiteral or a *BindMarker.
type MultiColumnRelation struct {
	Pos
	Columns []Ident
	Op      Operator
	Value   Expr
}

// TokenRelation is `token(c1, ...) op value`.
type TokenRelation struct {
	Pos
	Columns []Ident
	Op      Operator
	Value   Expr
}

// MapElementRelation is `column[key] op value`.
type MapElementRelation struct {
	Pos
	Column Ident
	Key    Expr
	Op     Operator
	Value  Expr
}

// CustomIndexRelation is `expr(index, value)`, a query on a custom index.
type CustomIndexRelation struct {
	Pos
	Index QualifiedName
	Value Expr
}

func (*SingleColumnRelation) relationNode() {}
func (*MultiColumnRelation) relationNode()  {}
func (*TokenRelation) relationNode()        {}
func (*MapElementRelation) relationNode()   {}
func (*CustomIndexRelation) relationNode()  {}

func writeOpValue(buf *strings.Builder, op Operator, value Expr) {
	buf.WriteByte(' ')
	buf.WriteString(op.String())
	buf.WriteByte(' ')
	value.Format(buf)
}

// Format appends column op value.
func (r *SingleColumnRelation) Format(buf *strings.Builder) {
	r.Column.Format(buf)
	writeOpValue(buf, r.Op, r.Value)
}

// Format appends (columns) op value.
func (r *MultiColumnRelation) Format(buf *strings.Builder) {
	buf.WriteByte('(')
	writeIdents(buf, r.Columns)
	buf.WriteByte(')')
	writeOpValue(buf, r.Op, r.Value)
}

// Format appends TOKEN(columns) op value.
func (r *TokenRelation) Format(buf *strings.Builder) {
	buf.WriteString("TOKEN(")
	writeIdents(buf, r.Columns)
	buf.WriteByte(')')
	writeOpValue(buf, r.Op, r.Value)
}

// Format appends column[key] op value.
func (r *MapElementRelation) Format(buf *strings.Builder) {
	r.Column.Format(buf)
	buf.WriteByte('[')
	r.Key.Format(buf)
	buf.WriteByte(']')
	writeOpValue(buf, r.Op, r.Value)
}

// Format appends expr(index, value).
func (r *CustomIndexRelation) Format(buf *strings.Builder) {
	buf.WriteString("expr(")
	r.Index.Format(buf)
	buf.WriteString(", ")
	r.Value.Format(buf)
	buf.WriteByte(')')
}

func (r *SingleColumnRelation) String() string { return format(r) }
func (r *MultiColumnRelation) String() string  { return format(r) }
func (r *TokenRelation) String() string        { return format(r) }
func (r *MapElementRelation) String() string   { return format(r) }
func (r *CustomIndexRelation) String() string  { return format(r) }

func writeWhere(buf *strings.Builder, where []Relation) {
	if len(where) == 0 {
		return
	}
	buf.WriteString(" WHERE ")
	for i, r := range where {
		if i > 0 {
			buf.WriteString(" AND ")
		}
		r.Format(buf)
	}
}

// Selector is one item of a SELECT list.
type Selector struct {
	Pos
	Expr  Expr
	Alias *Ident // nil without AS
}

// Format appends expr [AS alias].
func (s Selector) Format(buf *strings.Builder) {
	s.Expr.Format(buf)
	if s.Alias != nil {
		buf.WriteString(" AS ")
		s.Alias.Format(buf)
	}
}

func (s Selector) String() string { return format(s) }

// OrderItem is a column of ORDER BY or CLUSTERING ORDER BY. Ann is the
// vector of `ORDER BY c ANN OF vector` (Cassandra 5.0), nil otherwise.
type OrderItem struct {
	Pos
	Column Ident
	Ann    Expr
	Desc   bool
}

// Format appends column [ANN OF v] [DESC] (ascending is the default).
func (o OrderItem) Format(buf *strings.Builder) {
	o.Column.Format(buf)
	if o.Ann != nil {
		buf.WriteString(" ANN OF ")
		o.Ann.Format(buf)
	}
	if o.Desc {
		buf.WriteString(" DESC")
	}
}

func (o OrderItem) String() string { return format(o) }

// Select is a SELECT statement. An empty Selectors means `*`.
type Select struct {
	Pos
	Json              bool
	Distinct          bool
	Selectors         []Selector
	Table             QualifiedName
	Where             []Relation
	GroupBy           []Expr
	OrderBy           []OrderItem
	PerPartitionLimit Expr // nil when absent
	Limit             Expr // nil when absent
	AllowFiltering    bool
}

func (*Select) statementNode() {}

// Format appends the statement as canonical CQL.
func (s *Select) Format(buf *strings.Builder) {
	buf.WriteString("SELECT ")
	if s.Json {
		buf.WriteString("JSON ")
	}
	if s.Distinct {
		buf.WriteString("DISTINCT ")
	}
	if len(s.Selectors) == 0 {
		buf.WriteByte('*')
	}
	for i, sel := range s.Selectors {
		if i > 0 {
			buf.WriteString(", ")
		}
		sel.Format(buf)
	}
	buf.WriteString(" FROM ")
	s.Table.Format(buf)
	writeWhere(buf, s.Where)
	if len(s.GroupBy) > 0 {
		buf.WriteString(" GROUP BY ")
		writeExprs(buf, s.GroupBy)
	}
	if len(s.OrderBy) > 0 {
		buf.WriteString(" ORDER BY ")
		for i, o := range s.OrderBy {
			if i > 0 {
				buf.WriteString(", ")
			}
			o.Format(buf)
		}
	}
	if s.PerPartitionLimit != nil {
		buf.WriteString(" PER PARTITION LIMIT ")
		s.PerPartitionLimit.Format(buf)
	}
	if s.Limit != nil {
		buf.WriteString(" LIMIT ")
		s.Limit.Format(buf)
	}
	if s.AllowFiltering {
		buf.WriteString(" ALLOW FILTERING")
	}
}

func (s *Select) String() string { return format(s) }
