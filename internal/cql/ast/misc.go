package ast

import "strings"

// Use is USE keyspace.
type Use struct {
	Pos
	Keyspace string
}

// DescribeKind says what a DESCRIBE statement describes
// (cql3/statements/DescribeStatement.java).
type DescribeKind uint8

// DESCRIBE forms.
const (
	DescribeCluster DescribeKind = iota
	DescribeSchema
	DescribeFullSchema
	DescribeKeyspaces
	DescribeKeyspace // Keyspace may be "" for the current keyspace
	DescribeTables
	DescribeTable
	DescribeIndex
	DescribeMaterializedView
	DescribeTypes
	DescribeType
	DescribeFunctions
	DescribeFunction
	DescribeAggregates
	DescribeAggregate
	DescribeGeneric // DESCRIBE [ks.]name: whichever object has that name
)

var describeText = [...]string{
	DescribeCluster:          "CLUSTER",
	DescribeSchema:           "SCHEMA",
	DescribeFullSchema:       "FULL SCHEMA",
	DescribeKeyspaces:        "KEYSPACES",
	DescribeKeyspace:         "KEYSPACE",
	DescribeTables:           "TABLES",
	DescribeTable:            "TABLE",
	DescribeIndex:            "INDEX",
	DescribeMaterializedView: "MATERIALIZED VIEW",
	DescribeTypes:            "TYPES",
	DescribeType:             "TYPE",
	DescribeFunctions:        "FUNCTIONS",
	DescribeFunction:         "FUNCTION",
	DescribeAggregates:       "AGGREGATES",
	DescribeAggregate:        "AGGREGATE",
	DescribeGeneric:          "",
}

func (k DescribeKind) String() string {
	if int(k) < len(describeText) {
		if k == DescribeGeneric {
			return "generic"
		}
		return describeText[k]
	}
	return "unknown"
}

// describeWords are names a generic DESCRIBE must quote, since bare they
// select another form of the statement.
var describeWords = wordSet(`cluster keyspaces tables types functions aggregates type function aggregate only`)

// Describe is DESCRIBE/DESC, which drivers and cqlsh send in Cassandra 4.0+.
// Keyspace and Name are set as the form takes them; Only is
// DESCRIBE ONLY KEYSPACE.
type Describe struct {
	Pos
	Kind          DescribeKind
	Keyspace      string
	Name          string
	Only          bool
	WithInternals bool
}

// Unsupported is a statement of the CQL grammar that Partita does not
// implement (roles, permissions, CREATE FUNCTION, triggers, ...). Keyword
// names it, e.g. "CREATE FUNCTION"; Text is the statement as written.
type Unsupported struct {
	Pos
	Keyword string
	Text    string
}

func (*Use) statementNode()         {}
func (*Describe) statementNode()    {}
func (*Unsupported) statementNode() {}

// Format appends the statement as canonical CQL.
func (s *Use) Format(buf *strings.Builder) {
	buf.WriteString("USE ")
	writeIdent(buf, s.Keyspace)
}

// Format appends the statement as canonical CQL.
func (s *Describe) Format(buf *strings.Builder) {
	buf.WriteString("DESCRIBE ")
	switch s.Kind {
	case DescribeGeneric:
		if s.Keyspace != "" {
			writeDescribeName(buf, s.Keyspace)
			buf.WriteByte('.')
			writeIdent(buf, s.Name)
		} else {
			writeDescribeName(buf, s.Name)
		}
	case DescribeKeyspace:
		writeIf(buf, s.Only, "ONLY ")
		buf.WriteString("KEYSPACE")
		if s.Keyspace != "" {
			buf.WriteByte(' ')
			writeIdent(buf, s.Keyspace)
		}
	case DescribeTable, DescribeIndex, DescribeMaterializedView, DescribeFunction, DescribeAggregate:
		buf.WriteString(s.Kind.String())
		buf.WriteByte(' ')
		if s.Keyspace != "" {
			writeIdent(buf, s.Keyspace)
			buf.WriteByte('.')
		}
		if s.Kind == DescribeFunction || s.Kind == DescribeAggregate {
			writeFunctionName(buf, s.Name)
		} else {
			writeIdent(buf, s.Name)
		}
	case DescribeType:
		buf.WriteString("TYPE ")
		writeUserTypeName(buf, QualifiedName{Keyspace: s.Keyspace, Name: s.Name})
	default:
		buf.WriteString(s.Kind.String())
	}
	writeIf(buf, s.WithInternals, " WITH INTERNALS")
}

func writeDescribeName(buf *strings.Builder, name string) {
	if describeWords[name] {
		writeQuoted(buf, name)
		return
	}
	writeIdent(buf, name)
}

// Format appends the statement as written.
func (s *Unsupported) Format(buf *strings.Builder) { buf.WriteString(s.Text) }

func (s *Use) String() string         { return format(s) }
func (s *Describe) String() string    { return format(s) }
func (s *Unsupported) String() string { return format(s) }
