package ast

import "strings"

// LiteralKind is the lexical class of a constant (Parser.g constant).
type LiteralKind uint8

// Constant classes.
const (
	LitString   LiteralKind = iota // '...' or $$...$$
	LitInteger                     // -?[0-9]+
	LitFloat                       // 1.5, 1e10, 1.
	LitBoolean                     // true, false
	LitUUID                        // 8-4-4-4-12 hex digits, unquoted
	LitHex                         // 0x...
	LitDuration                    // 1h30m, 12mo, P1Y2M3D, PT1H, ...
	LitNaN                         // NaN or -NaN
	LitInfinity                    // Infinity or -Infinity
)

var literalKindNames = [...]string{"string", "integer", "float", "boolean", "uuid", "hex", "duration", "NaN", "Infinity"}

func (k LiteralKind) String() string {
	if int(k) < len(literalKindNames) {
		return literalKindNames[k]
	}
	return "unknown"
}

// Literal is a constant as written. Text is the unquoted content of a string,
// the source text of a number, UUID, blob or duration (sign included),
// "true"/"false", "NaN", or "Infinity"/"-Infinity".
type Literal struct {
	Pos
	Kind LiteralKind
	Text string
}

// Null is the NULL literal.
type Null struct{ Pos }

// BindMarker is `?` (Name "") or `:name`. Index numbers the markers of the
// statement from 0 in order of appearance.
type BindMarker struct {
	Pos
	Name  string
	Index int
}

// FunctionCall is [keyspace.]name(args). In selectors the arguments are
// selector expressions.
type FunctionCall struct {
	Pos
	Keyspace string
	Name     string
	Args     []Expr
}

// TypeCast is a type hint `(type) expr`.
type TypeCast struct {
	Pos
	Type TypeRef
	Expr Expr
}

// Cast is `CAST(expr AS type)`; Type is a native type.
type Cast struct {
	Pos
	Expr Expr
	Type TypeRef
}

// ListLiteral is `[e, ...]`.
type ListLiteral struct {
	Pos
	Elems []Expr
}

// SetLiteral is `{e, ...}`. The empty `{}` is a SetLiteral too: whether it
// is an empty set or map is decided by the type it is assigned to.
type SetLiteral struct {
	Pos
	Elems []Expr
}

// MapEntry is one `key: value` of a MapLiteral.
type MapEntry struct {
	Key, Value Expr
}

// MapLiteral is `{k: v, ...}` with term keys. Inside selectors the keys are
// selector expressions, so a ColumnRef key may turn out to be a UDT field.
type MapLiteral struct {
	Pos
	Entries []MapEntry
}

// UDTField is one `field: value` of a UDTLiteral.
type UDTField struct {
	Name  Ident
	Value Expr
}

// UDTLiteral is `{field: v, ...}`, a literal whose keys are identifiers.
type UDTLiteral struct {
	Pos
	Fields []UDTField
}

// TupleLiteral is `(e, ...)`. A single element in parentheses is a
// one-element TupleLiteral; the planner decides whether it is a tuple.
type TupleLiteral struct {
	Pos
	Elems []Expr
}

// InList is the parenthesised list after IN: `a IN (1, 2)`,
// `(a, b) IN ((1, 2), (3, 4))` or `(a, b) IN (?, ?)`.
type InList struct {
	Pos
	Elems []Expr
}

// Negation is `-expr` for anything but a numeric literal, whose sign the
// parser folds into the Literal.
type Negation struct {
	Pos
	Operand Expr
}

// ArithOp is a Cassandra 4.0+ arithmetic operator.
type ArithOp byte

// Arithmetic operators.
const (
	OpAdd ArithOp = '+'
	OpSub ArithOp = '-'
	OpMul ArithOp = '*'
	OpDiv ArithOp = '/'
	OpMod ArithOp = '%'
)

func (o ArithOp) String() string { return string(rune(o)) }

// BinaryOp is `left op right`; the parser builds it left-associative with
// * / % binding tighter than + -.
type BinaryOp struct {
	Pos
	Op          ArithOp
	Left, Right Expr
}

// ColumnRef names a column in a selector.
type ColumnRef struct {
	Pos
	Name string
}

// CountRows is the selector COUNT(*).
type CountRows struct{ Pos }

// MetaKind says which cell metadata a WriteTimeOrTTL selector reads.
type MetaKind uint8

// Cell metadata selectors.
const (
	MetaWriteTime MetaKind = iota
	MetaMaxWriteTime
	MetaTTL
)

var metaNames = [...]string{"WRITETIME", "MAXWRITETIME", "TTL"}

func (k MetaKind) String() string {
	if int(k) < len(metaNames) {
		return metaNames[k]
	}
	return "unknown"
}

// WriteTimeOrTTL is WRITETIME(c), MAXWRITETIME(c) or TTL(c); Column is a
// ColumnRef, possibly under FieldAccess/ElementAccess/SliceAccess.
type WriteTimeOrTTL struct {
	Pos
	Kind   MetaKind
	Column Expr
}

// FieldAccess is the selector `expr.field`.
type FieldAccess struct {
	Pos
	Expr  Expr
	Field Ident
}

// ElementAccess is the selector `expr[key]`.
type ElementAccess struct {
	Pos
	Expr Expr
	Key  Expr
}

// SliceAccess is the selector `expr[from..to]`; From or To is nil when that
// side is open.
type SliceAccess struct {
	Pos
	Expr     Expr
	From, To Expr
}

func (*Literal) exprNode()        {}
func (*Null) exprNode()           {}
func (*BindMarker) exprNode()     {}
func (*FunctionCall) exprNode()   {}
func (*TypeCast) exprNode()       {}
func (*Cast) exprNode()           {}
func (*ListLiteral) exprNode()    {}
func (*SetLiteral) exprNode()     {}
func (*MapLiteral) exprNode()     {}
func (*UDTLiteral) exprNode()     {}
func (*TupleLiteral) exprNode()   {}
func (*InList) exprNode()         {}
func (*Negation) exprNode()       {}
func (*BinaryOp) exprNode()       {}
func (*ColumnRef) exprNode()      {}
func (*CountRows) exprNode()      {}
func (*WriteTimeOrTTL) exprNode() {}
func (*FieldAccess) exprNode()    {}
func (*ElementAccess) exprNode()  {}
func (*SliceAccess) exprNode()    {}

// Format appends the literal as CQL.
func (l *Literal) Format(buf *strings.Builder) {
	if l.Kind == LitString {
		writeString(buf, l.Text)
		return
	}
	buf.WriteString(l.Text)
}

// Format appends NULL.
func (*Null) Format(buf *strings.Builder) { buf.WriteString("NULL") }

// Format appends ? or :name.
func (m *BindMarker) Format(buf *strings.Builder) {
	if m.Name == "" {
		buf.WriteByte('?')
		return
	}
	buf.WriteByte(':')
	writeIdent(buf, m.Name)
}

// Format appends [keyspace.]name(args).
func (f *FunctionCall) Format(buf *strings.Builder) {
	if f.Keyspace != "" {
		writeIdent(buf, f.Keyspace)
		buf.WriteByte('.')
	}
	writeFunctionName(buf, f.Name)
	buf.WriteByte('(')
	writeExprs(buf, f.Args)
	buf.WriteByte(')')
}

// Format appends (type) expr.
func (c *TypeCast) Format(buf *strings.Builder) {
	buf.WriteByte('(')
	c.Type.Format(buf)
	buf.WriteString(") ")
	c.Expr.Format(buf)
}

// Format appends CAST(expr AS type).
func (c *Cast) Format(buf *strings.Builder) {
	buf.WriteString("CAST(")
	c.Expr.Format(buf)
	buf.WriteString(" AS ")
	c.Type.Format(buf)
	buf.WriteByte(')')
}

// Format appends [elems].
func (l *ListLiteral) Format(buf *strings.Builder) {
	buf.WriteByte('[')
	writeExprs(buf, l.Elems)
	buf.WriteByte(']')
}

// Format appends {elems}.
func (s *SetLiteral) Format(buf *strings.Builder) {
	buf.WriteByte('{')
	writeExprs(buf, s.Elems)
	buf.WriteByte('}')
}

// Format appends {k: v, ...}.
func (m *MapLiteral) Format(buf *strings.Builder) {
	buf.WriteByte('{')
	for i, e := range m.Entries {
		if i > 0 {
			buf.WriteString(", ")
		}
		e.Key.Format(buf)
		buf.WriteString(": ")
		e.Value.Format(buf)
	}
	buf.WriteByte('}')
}

// Format appends {field: v, ...}.
func (u *UDTLiteral) Format(buf *strings.Builder) {
	buf.WriteByte('{')
	for i, f := range u.Fields {
		if i > 0 {
			buf.WriteString(", ")
		}
		f.Name.Format(buf)
		buf.WriteString(": ")
		f.Value.Format(buf)
	}
	buf.WriteByte('}')
}

// Format appends (elems).
func (t *TupleLiteral) Format(buf *strings.Builder) {
	buf.WriteByte('(')
	writeExprs(buf, t.Elems)
	buf.WriteByte(')')
}

// Format appends (elems).
func (l *InList) Format(buf *strings.Builder) {
	buf.WriteByte('(')
	writeExprs(buf, l.Elems)
	buf.WriteByte(')')
}

// Format appends -operand, with a space where the two would otherwise lex
// as one token or fail to lex ("--" starts a comment, "-1" is a negative
// number, "-P1D" a duration, "-n" and "-i" start -NaN and -Infinity).
func (n *Negation) Format(buf *strings.Builder) {
	operand := format(n.Operand)
	buf.WriteByte('-')
	if operand != "" && strings.ContainsRune("-0123456789nNiIP", rune(operand[0])) {
		buf.WriteByte(' ')
	}
	buf.WriteString(operand)
}

// Format appends left op right. Spaces keep `a - 1` from lexing as `a -1`.
func (b *BinaryOp) Format(buf *strings.Builder) {
	b.Left.Format(buf)
	buf.WriteByte(' ')
	buf.WriteByte(byte(b.Op))
	buf.WriteByte(' ')
	b.Right.Format(buf)
}

// Format appends the column name.
func (c *ColumnRef) Format(buf *strings.Builder) {
	if selectorQuoted[c.Name] {
		writeQuoted(buf, c.Name)
		return
	}
	writeIdent(buf, c.Name)
}

// Format appends COUNT(*).
func (*CountRows) Format(buf *strings.Builder) { buf.WriteString("COUNT(*)") }

// Format appends WRITETIME(c), MAXWRITETIME(c) or TTL(c).
func (w *WriteTimeOrTTL) Format(buf *strings.Builder) {
	buf.WriteString(w.Kind.String())
	buf.WriteByte('(')
	w.Column.Format(buf)
	buf.WriteByte(')')
}

// Format appends expr.field. A space after a number keeps `1 .f` from lexing
// as the float `1.`.
func (f *FieldAccess) Format(buf *strings.Builder) {
	f.Expr.Format(buf)
	if l, ok := f.Expr.(*Literal); ok && (l.Kind == LitInteger || l.Kind == LitFloat) {
		buf.WriteByte(' ')
	}
	buf.WriteByte('.')
	f.Field.Format(buf)
}

// Format appends expr[key].
func (e *ElementAccess) Format(buf *strings.Builder) {
	e.Expr.Format(buf)
	buf.WriteByte('[')
	e.Key.Format(buf)
	buf.WriteByte(']')
}

// Format appends expr[from .. to]; the spaces keep `1.` and `..` apart.
func (s *SliceAccess) Format(buf *strings.Builder) {
	s.Expr.Format(buf)
	buf.WriteByte('[')
	if s.From != nil {
		s.From.Format(buf)
		buf.WriteByte(' ')
	}
	buf.WriteString("..")
	if s.To != nil {
		buf.WriteByte(' ')
		s.To.Format(buf)
	}
	buf.WriteByte(']')
}

func (l *Literal) String() string        { return format(l) }
func (n *Null) String() string           { return format(n) }
func (m *BindMarker) String() string     { return format(m) }
func (f *FunctionCall) String() string   { return format(f) }
func (c *TypeCast) String() string       { return format(c) }
func (c *Cast) String() string           { return format(c) }
func (l *ListLiteral) String() string    { return format(l) }
func (s *SetLiteral) String() string     { return format(s) }
func (m *MapLiteral) String() string     { return format(m) }
func (u *UDTLiteral) String() string     { return format(u) }
func (t *TupleLiteral) String() string   { return format(t) }
func (l *InList) String() string         { return format(l) }
func (n *Negation) String() string       { return format(n) }
func (b *BinaryOp) String() string       { return format(b) }
func (c *ColumnRef) String() string      { return format(c) }
func (c *CountRows) String() string      { return format(c) }
func (w *WriteTimeOrTTL) String() string { return format(w) }
func (f *FieldAccess) String() string    { return format(f) }
func (e *ElementAccess) String() string  { return format(e) }
func (s *SliceAccess) String() string    { return format(s) }
