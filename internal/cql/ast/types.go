package ast

import (
	"strconv"
	"strings"
)

// TypeKind says which form of type reference a TypeRef is.
type TypeKind uint8

// Type reference forms (Parser.g comparatorType).
const (
	TypeNative TypeKind = iota // Name is the lower-case native type name
	TypeList                   // list<Args[0]>
	TypeSet                    // set<Args[0]>
	TypeMap                    // map<Args[0], Args[1]>
	TypeTuple                  // tuple<Args...>
	TypeFrozen                 // frozen<Args[0]>
	TypeVector                 // vector<Args[0], Dimension>
	TypeUser                   // [Keyspace.]Name, a user-defined type
	TypeCustom                 // 'Name', a custom class
)

var typeKindNames = [...]string{"native", "list", "set", "map", "tuple", "frozen", "vector", "user", "custom"}

func (k TypeKind) String() string {
	if int(k) < len(typeKindNames) {
		return typeKindNames[k]
	}
	return "unknown"
}

// TypeRef is a type as written; package catalog resolves it.
type TypeRef struct {
	Pos
	Kind      TypeKind
	Keyspace  string // TypeUser only
	Name      string // TypeNative, TypeUser, TypeCustom
	Args      []TypeRef
	Dimension int // TypeVector only
}

// Format appends the type as CQL.
func (t TypeRef) Format(buf *strings.Builder) {
	switch t.Kind {
	case TypeNative:
		buf.WriteString(t.Name)
	case TypeUser:
		if t.Keyspace != "" {
			writeIdent(buf, t.Keyspace)
			buf.WriteByte('.')
		}
		writeTypeName(buf, t.Name)
	case TypeCustom:
		writeString(buf, t.Name)
	case TypeVector:
		buf.WriteString("vector<")
		if len(t.Args) > 0 {
			t.Args[0].Format(buf)
		}
		buf.WriteString(", ")
		buf.WriteString(strconv.Itoa(t.Dimension))
		buf.WriteByte('>')
	default:
		buf.WriteString(typeConstructors[t.Kind])
		buf.WriteByte('<')
		for i, a := range t.Args {
			if i > 0 {
				buf.WriteString(", ")
			}
			a.Format(buf)
		}
		buf.WriteByte('>')
	}
}

func (t TypeRef) String() string { return format(t) }

var typeConstructors = map[TypeKind]string{
	TypeList:   "list",
	TypeSet:    "set",
	TypeMap:    "map",
	TypeTuple:  "tuple",
	TypeFrozen: "frozen",
}
