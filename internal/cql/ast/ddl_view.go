package ast

import "strings"

// CreateView is CREATE MATERIALIZED VIEW. Selectors is nil for SELECT *.
type CreateView struct {
	Pos
	IfNotExists     bool
	Name            QualifiedName
	Selectors       []Selector
	Base            QualifiedName
	Where           []Relation
	PartitionKey    []Ident
	Clustering      []Ident
	ClusteringOrder []OrderItem
	CompactStorage  bool
	Options         Properties
}

// AlterView is ALTER MATERIALIZED VIEW ... WITH options.
type AlterView struct {
	Pos
	IfExists bool
	Name     QualifiedName
	Options  Properties
}

// DropView is DROP MATERIALIZED VIEW.
type DropView struct {
	Pos
	IfExists bool
	Name     QualifiedName
}

// CreateAggregate is CREATE AGGREGATE; only what the planner checks is
// kept (the state function must be a user-defined function).
type CreateAggregate struct {
	Pos
	OrReplace, IfNotExists bool
	Name                   QualifiedName
	Args                   []TypeRef
	StateFunc              QualifiedName
	StateType              TypeRef
	FinalFunc              string // "" when absent
	InitCond               Expr   // nil when absent
}

// DropFunction is DROP FUNCTION or DROP AGGREGATE; Args is the signature
// when HasArgs.
type DropFunction struct {
	Pos
	Aggregate bool
	IfExists  bool
	Name      QualifiedName
	HasArgs   bool
	Args      []TypeRef
}

func (*CreateView) statementNode()      {}
func (*AlterView) statementNode()       {}
func (*DropView) statementNode()        {}
func (*CreateAggregate) statementNode() {}
func (*DropFunction) statementNode()    {}

// Format appends the statement as canonical CQL.
func (s *CreateView) Format(buf *strings.Builder) {
	buf.WriteString("CREATE MATERIALIZED VIEW ")
	writeIf(buf, s.IfNotExists, "IF NOT EXISTS ")
	s.Name.Format(buf)
	buf.WriteString(" AS SELECT ")
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
	s.Base.Format(buf)
	writeWhere(buf, s.Where)
	buf.WriteString(" PRIMARY KEY (")
	if len(s.PartitionKey) == 1 {
		writeIdents(buf, s.PartitionKey)
	} else {
		buf.WriteByte('(')
		writeIdents(buf, s.PartitionKey)
		buf.WriteByte(')')
	}
	if len(s.Clustering) > 0 {
		buf.WriteString(", ")
		writeIdents(buf, s.Clustering)
	}
	buf.WriteByte(')')
	formatTableWith(buf, s.ClusteringOrder, s.CompactStorage, s.Options)
}

// Format appends the statement as canonical CQL.
func (s *AlterView) Format(buf *strings.Builder) {
	buf.WriteString("ALTER MATERIALIZED VIEW ")
	writeIf(buf, s.IfExists, "IF EXISTS ")
	s.Name.Format(buf)
	buf.WriteString(" WITH ")
	s.Options.Format(buf)
}

// Format appends the statement as canonical CQL.
func (s *DropView) Format(buf *strings.Builder) {
	buf.WriteString("DROP MATERIALIZED VIEW ")
	writeIf(buf, s.IfExists, "IF EXISTS ")
	s.Name.Format(buf)
}

// Format appends the statement as canonical CQL.
func (s *CreateAggregate) Format(buf *strings.Builder) {
	buf.WriteString("CREATE ")
	writeIf(buf, s.OrReplace, "OR REPLACE ")
	buf.WriteString("AGGREGATE ")
	writeIf(buf, s.IfNotExists, "IF NOT EXISTS ")
	writeFunctionSignature(buf, s.Name, s.Args)
	buf.WriteString(" SFUNC ")
	writeFunctionName(buf, s.StateFunc.Name)
	buf.WriteString(" STYPE ")
	s.StateType.Format(buf)
	if s.FinalFunc != "" {
		buf.WriteString(" FINALFUNC ")
		writeFunctionName(buf, s.FinalFunc)
	}
	if s.InitCond != nil {
		buf.WriteString(" INITCOND ")
		s.InitCond.Format(buf)
	}
}

func writeFunctionSignature(buf *strings.Builder, name QualifiedName, args []TypeRef) {
	if name.Keyspace != "" {
		writeIdent(buf, name.Keyspace)
		buf.WriteByte('.')
	}
	writeFunctionName(buf, name.Name)
	buf.WriteString(" (")
	for i, a := range args {
		if i > 0 {
			buf.WriteString(", ")
		}
		a.Format(buf)
	}
	buf.WriteByte(')')
}

// Format appends the statement as canonical CQL.
func (s *DropFunction) Format(buf *strings.Builder) {
	if s.Aggregate {
		buf.WriteString("DROP AGGREGATE ")
	} else {
		buf.WriteString("DROP FUNCTION ")
	}
	writeIf(buf, s.IfExists, "IF EXISTS ")
	if s.Name.Keyspace != "" {
		writeIdent(buf, s.Name.Keyspace)
		buf.WriteByte('.')
	}
	writeFunctionName(buf, s.Name.Name)
	if s.HasArgs {
		buf.WriteByte('(')
		for i, a := range s.Args {
			if i > 0 {
				buf.WriteString(", ")
			}
			a.Format(buf)
		}
		buf.WriteByte(')')
	}
}

func (s *CreateView) String() string      { return format(s) }
func (s *AlterView) String() string       { return format(s) }
func (s *DropView) String() string        { return format(s) }
func (s *CreateAggregate) String() string { return format(s) }
func (s *DropFunction) String() string    { return format(s) }
