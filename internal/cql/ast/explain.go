package ast

import "strings"

// Explain is EXPLAIN <statement>, Partita's extension: the statement is
// planned and its reads described as rows, without running it.
type Explain struct {
	Pos
	Statement Statement
}

func (*Explain) statementNode() {}

// Format appends the statement as canonical CQL.
func (s *Explain) Format(buf *strings.Builder) {
	buf.WriteString("EXPLAIN ")
	s.Statement.Format(buf)
}

func (s *Explain) String() string { return format(s) }
