package ast

import (
	"strings"
	"testing"
)

func lit(kind LiteralKind, text string) *Literal { return &Literal{Kind: kind, Text: text} }

func marker(i int) *BindMarker { return &BindMarker{Index: i} }

func TestFormat(t *testing.T) {
	tests := []struct {
		name string
		node Node
		want string
	}{
		{"plain ident", Ident{Name: "abc_1"}, "abc_1"},
		{"reserved ident", Ident{Name: "select"}, `"select"`},
		{"boolean ident", Ident{Name: "true"}, `"true"`},
		{"mixed case ident", Ident{Name: "Abc"}, `"Abc"`},
		{"quote in ident", Ident{Name: `a"b`}, `"a""b"`},
		{"empty ident", Ident{Name: ""}, `""`},
		{"unreserved keyword ident", Ident{Name: "key"}, "key"},
		{"qualified", QualifiedName{Keyspace: "Ks", Name: "t"}, `"Ks".t`},
		{"string", lit(LitString, "it's"), "'it''s'"},
		{"negative", lit(LitInteger, "-1"), "-1"},
		{"named marker", &BindMarker{Name: "Id"}, `:"Id"`},
		{"function token", &FunctionCall{Name: "token", Args: []Expr{marker(0)}}, "token(?)"},
		{"function ttl", &FunctionCall{Name: "ttl"}, `"ttl"()`},
		{"user type text", TypeRef{Kind: TypeUser, Name: "text"}, `"text"`},
		{"user type map", TypeRef{Kind: TypeUser, Keyspace: "ks", Name: "map"}, `ks."map"`},
		{"frozen", TypeRef{Kind: TypeFrozen, Args: []TypeRef{{Kind: TypeMap, Args: []TypeRef{{Name: "int"}, {Kind: TypeUser, Name: "udt"}}}}}, "frozen<map<int, udt>>"},
		{"vector", TypeRef{Kind: TypeVector, Args: []TypeRef{{Name: "float"}}, Dimension: 3}, "vector<float, 3>"},
		{"custom", TypeRef{Kind: TypeCustom, Name: "a.B"}, "'a.B'"},
		{"negation of negation", &Negation{Operand: &Negation{Operand: &ColumnRef{Name: "a"}}}, "- -a"},
		{"negation of uuid", &Negation{Operand: lit(LitUUID, "01234567-0123-0123-0123-0123456789ab")}, "- 01234567-0123-0123-0123-0123456789ab"},
		{"binary", &BinaryOp{Op: OpSub, Left: &ColumnRef{Name: "a"}, Right: lit(LitInteger, "-1")}, "a - -1"},
		{"field of number", &FieldAccess{Expr: lit(LitInteger, "1"), Field: Ident{Name: "f"}}, "1 .f"},
		{"slice", &SliceAccess{Expr: &ColumnRef{Name: "s"}, From: lit(LitFloat, "1.")}, "s[1. ..]"},
		{"json column", &ColumnRef{Name: "json"}, `"json"`},
		{"using in marker order", UsingClause{TTL: marker(1), Timestamp: marker(0)}, " USING TIMESTAMP ? AND TTL ?"},
		{"using ttl first", UsingClause{TTL: marker(0), Timestamp: lit(LitInteger, "5")}, " USING TTL ? AND TIMESTAMP 5"},
		{"empty using", UsingClause{}, ""},
		{"prepend", Assignment{Column: Ident{Name: "l"}, Op: AssignPrepend, Value: &ListLiteral{Elems: []Expr{lit(LitInteger, "1")}}}, "l = [1] + l"},
		{"describe generic keyword", &Describe{Kind: DescribeGeneric, Name: "cluster"}, `DESCRIBE "cluster"`},
		{"describe keyspace", &Describe{Kind: DescribeKeyspace, Only: true, WithInternals: true}, "DESCRIBE ONLY KEYSPACE WITH INTERNALS"},
		{"describe type", &Describe{Kind: DescribeType, Keyspace: "ks", Name: "int"}, `DESCRIBE TYPE ks."int"`},
		{"create index", &CreateIndex{Table: QualifiedName{Name: "t"}, Targets: []IndexTarget{{Column: Ident{Name: "m"}, Kind: IndexKeys}}}, "CREATE INDEX ON t (KEYS(m))"},
		{"drop columns", &DropColumns{Columns: []Ident{{Name: "a"}, {Name: "b"}}}, "DROP (a, b)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.node.String(); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestCreateTablePrimaryKeyDeclarations(t *testing.T) {
	s := &CreateTable{
		Columns:           []ColumnDef{{Name: Ident{Name: "a"}, PrimaryKey: true}, {Name: Ident{Name: "b"}}},
		PrimaryKeyClauses: []PrimaryKeyClause{{PartitionKey: []Ident{{Name: "b"}}}},
	}
	if n := s.PrimaryKeyDeclarations(); n != 2 {
		t.Errorf("PrimaryKeyDeclarations() = %d, want 2", n)
	}
}

func TestPropertiesGet(t *testing.T) {
	ps := Properties{{Name: "comment", Value: lit(LitString, "x")}}
	if ps.Get("comment") == nil || ps.Get("other") != nil {
		t.Errorf("Get: %v %v", ps.Get("comment"), ps.Get("other"))
	}
}

// TestWalk checks the visiting order and that returning false prunes.
func TestWalk(t *testing.T) {
	stmt := &Update{
		Using:       UsingClause{TTL: marker(0)},
		Assignments: []Assignment{{Column: Ident{Name: "v"}, Value: &ListLiteral{Elems: []Expr{marker(1)}}}},
		Where: []Relation{
			&SingleColumnRelation{Column: Ident{Name: "k"}, Value: marker(2)},
			&MultiColumnRelation{Op: OpIn, Value: &InList{Elems: []Expr{&TupleLiteral{Elems: []Expr{marker(3)}}}}},
		},
		Conditions: []Condition{{Column: Ident{Name: "c"}, Key: marker(4), Value: &FunctionCall{Name: "f", Args: []Expr{marker(5)}}}},
	}
	var indexes []string
	Walk(stmt, func(n Node) bool {
		if m, ok := n.(*BindMarker); ok {
			indexes = append(indexes, string(rune('0'+m.Index)))
		}
		return true
	})
	if got := strings.Join(indexes, ""); got != "012345" {
		t.Errorf("markers visited in order %s", got)
	}
	var visited int
	Walk(stmt, func(n Node) bool {
		visited++
		_, isList := n.(*ListLiteral)
		return !isList
	})
	full := 0
	Walk(stmt, func(Node) bool { full++; return true })
	if visited != full-1 {
		t.Errorf("pruning visited %d of %d nodes", visited, full)
	}
}
