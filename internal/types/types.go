package types

import (
	"strings"
)

// Kind identifies a CQL type. Its values are the native protocol [option]
// ids (native_protocol_v4.spec §6), so the wire codec writes them as is.
type Kind uint16

// Kinds, native_protocol_v4.spec §6. 0x000A (varchar's old alias) is not a
// kind of its own: text and varchar are the same type.
const (
	KindCustom    Kind = 0x00
	KindAscii     Kind = 0x01
	KindBigint    Kind = 0x02
	KindBlob      Kind = 0x03
	KindBoolean   Kind = 0x04
	KindCounter   Kind = 0x05
	KindDecimal   Kind = 0x06
	KindDouble    Kind = 0x07
	KindFloat     Kind = 0x08
	KindInt       Kind = 0x09
	KindTimestamp Kind = 0x0B
	KindUUID      Kind = 0x0C
	KindVarchar   Kind = 0x0D
	KindVarint    Kind = 0x0E
	KindTimeuuid  Kind = 0x0F
	KindInet      Kind = 0x10
	KindDate      Kind = 0x11
	KindTime      Kind = 0x12
	KindSmallint  Kind = 0x13
	KindTinyint   Kind = 0x14
	KindDuration  Kind = 0x15
	KindList      Kind = 0x20
	KindMap       Kind = 0x21
	KindSet       Kind = 0x22
	KindUDT       Kind = 0x30
	KindTuple     Kind = 0x31
)

// KindText is the same kind as KindVarchar: CQL's text and varchar are one
// type whose canonical name is text.
const KindText = KindVarchar

var kindNames = map[Kind]string{
	KindCustom:    "custom",
	KindAscii:     "ascii",
	KindBigint:    "bigint",
	KindBlob:      "blob",
	KindBoolean:   "boolean",
	KindCounter:   "counter",
	KindDecimal:   "decimal",
	KindDouble:    "double",
	KindFloat:     "float",
	KindInt:       "int",
	KindTimestamp: "timestamp",
	KindUUID:      "uuid",
	KindVarchar:   "text",
	KindVarint:    "varint",
	KindTimeuuid:  "timeuuid",
	KindInet:      "inet",
	KindDate:      "date",
	KindTime:      "time",
	KindSmallint:  "smallint",
	KindTinyint:   "tinyint",
	KindDuration:  "duration",
	KindList:      "list",
	KindMap:       "map",
	KindSet:       "set",
	KindUDT:       "udt",
	KindTuple:     "tuple",
}

// String returns the CQL name of a kind ("text" for varchar).
func (k Kind) String() string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return "kind(0x" + strings.ToLower(hex16(uint16(k))) + ")"
}

func hex16(v uint16) string {
	const digits = "0123456789ABCDEF"
	return string([]byte{digits[v>>12&0xF], digits[v>>8&0xF], digits[v>>4&0xF], digits[v&0xF]})
}

// Valid reports whether k is a kind this package knows.
func (k Kind) Valid() bool {
	_, ok := kindNames[k]
	return ok
}

// IsNative reports whether k is a scalar type with a name of its own
// (everything except custom, collections, tuples and UDTs).
func (k Kind) IsNative() bool {
	return k != KindCustom && k < KindList && k.Valid()
}

// Type is a CQL type. Scalars are shared singletons (Int, Text, ...); treat
// every *Type as immutable once built.
type Type struct {
	Kind Kind
	// Elems: list/set [elem]; map [key, value]; tuple components; UDT field
	// types (same order as FieldNames).
	Elems []*Type
	// Frozen applies to collections and UDTs; tuples are always frozen.
	Frozen bool
	// Keyspace and Name identify a UDT.
	Keyspace, Name string
	// FieldNames are a UDT's field names, in declaration order.
	FieldNames []string
	// Class is a custom type's Java class name.
	Class string
}

// Scalar singletons, one per native type.
var (
	Ascii     = &Type{Kind: KindAscii}
	Bigint    = &Type{Kind: KindBigint}
	Blob      = &Type{Kind: KindBlob}
	Boolean   = &Type{Kind: KindBoolean}
	Counter   = &Type{Kind: KindCounter}
	Decimal   = &Type{Kind: KindDecimal}
	Double    = &Type{Kind: KindDouble}
	Float     = &Type{Kind: KindFloat}
	Int       = &Type{Kind: KindInt}
	Timestamp = &Type{Kind: KindTimestamp}
	UUID      = &Type{Kind: KindUUID}
	Text      = &Type{Kind: KindVarchar}
	Varint    = &Type{Kind: KindVarint}
	Timeuuid  = &Type{Kind: KindTimeuuid}
	Inet      = &Type{Kind: KindInet}
	Date      = &Type{Kind: KindDate}
	Time      = &Type{Kind: KindTime}
	Smallint  = &Type{Kind: KindSmallint}
	Tinyint   = &Type{Kind: KindTinyint}
	Duration  = &Type{Kind: KindDuration}
)

// Varchar is an alias of Text.
var Varchar = Text

var nativeByKind = map[Kind]*Type{
	KindAscii: Ascii, KindBigint: Bigint, KindBlob: Blob, KindBoolean: Boolean,
	KindCounter: Counter, KindDecimal: Decimal, KindDouble: Double, KindFloat: Float,
	KindInt: Int, KindTimestamp: Timestamp, KindUUID: UUID, KindVarchar: Text,
	KindVarint: Varint, KindTimeuuid: Timeuuid, KindInet: Inet, KindDate: Date,
	KindTime: Time, KindSmallint: Smallint, KindTinyint: Tinyint, KindDuration: Duration,
}

// Native returns the singleton of a native kind, or nil if k is not native.
func Native(k Kind) *Type { return nativeByKind[k] }

// nativeByName maps every CQL native type name (lower case) to its type.
var nativeByName = map[string]*Type{
	"ascii": Ascii, "bigint": Bigint, "blob": Blob, "boolean": Boolean,
	"counter": Counter, "decimal": Decimal, "double": Double, "float": Float,
	"int": Int, "timestamp": Timestamp, "uuid": UUID, "text": Text, "varchar": Text,
	"varint": Varint, "timeuuid": Timeuuid, "inet": Inet, "date": Date,
	"time": Time, "smallint": Smallint, "tinyint": Tinyint, "duration": Duration,
}

// NativeByName returns the native type named name (case-insensitive; varchar
// is text), or nil.
func NativeByName(name string) *Type { return nativeByName[strings.ToLower(name)] }

// ListOf returns the non-frozen type list<elem>.
func ListOf(elem *Type) *Type { return &Type{Kind: KindList, Elems: []*Type{elem}} }

// SetOf returns the non-frozen type set<elem>.
func SetOf(elem *Type) *Type { return &Type{Kind: KindSet, Elems: []*Type{elem}} }

// MapOf returns the non-frozen type map<key, value>.
func MapOf(key, value *Type) *Type { return &Type{Kind: KindMap, Elems: []*Type{key, value}} }

// TupleOf returns tuple<elems...>. Tuples are always frozen, and so are
// their components (TupleType freezes its inner types).
func TupleOf(elems ...*Type) *Type {
	frozen := make([]*Type, len(elems))
	for i, e := range elems {
		frozen[i] = Frozen(e)
	}
	return &Type{Kind: KindTuple, Elems: frozen, Frozen: true}
}

// UDTOf returns the non-frozen user-defined type keyspace.name with the given
// fields. fieldNames and fieldTypes must have the same length.
func UDTOf(keyspace, name string, fieldNames []string, fieldTypes []*Type) *Type {
	return &Type{
		Kind:       KindUDT,
		Keyspace:   keyspace,
		Name:       name,
		FieldNames: append([]string(nil), fieldNames...),
		Elems:      append([]*Type(nil), fieldTypes...),
	}
}

// CustomOf returns the custom type implemented by the given Java class.
func CustomOf(class string) *Type { return &Type{Kind: KindCustom, Class: class} }

// Frozen returns the frozen form of t. Scalars and tuples are returned as
// they are; a collection or UDT is copied with Frozen set. Nested
// collections and UDTs inside a frozen type are frozen too, as in Cassandra
// (everything inside frozen<> is serialized as one value).
func Frozen(t *Type) *Type {
	if t == nil {
		return nil
	}
	switch t.Kind {
	case KindList, KindSet, KindMap, KindUDT, KindTuple:
	default:
		return t
	}
	if t.Frozen && allElemsFrozen(t) {
		return t
	}
	c := *t
	c.Frozen = true
	c.Elems = make([]*Type, len(t.Elems))
	for i, e := range t.Elems {
		c.Elems[i] = Frozen(e)
	}
	return &c
}

func allElemsFrozen(t *Type) bool {
	for _, e := range t.Elems {
		if Frozen(e) != e {
			return false
		}
	}
	return true
}

// IsCollection reports whether t is a list, set or map (frozen or not).
func (t *Type) IsCollection() bool {
	return t.Kind == KindList || t.Kind == KindSet || t.Kind == KindMap
}

// IsMultiCell reports whether values of t are stored as several cells: a
// non-frozen collection or a non-frozen UDT.
func (t *Type) IsMultiCell() bool {
	return !t.Frozen && (t.IsCollection() || t.Kind == KindUDT)
}

// ReferencesDuration reports whether t is duration or holds one at any
// depth (AbstractType.referencesDuration).
func (t *Type) ReferencesDuration() bool {
	if t.Kind == KindDuration {
		return true
	}
	for _, e := range t.Elems {
		if e.ReferencesDuration() {
			return true
		}
	}
	return false
}

// IsCounter reports whether t is counter.
func (t *Type) IsCounter() bool { return t.Kind == KindCounter }

// IsNumeric reports whether t is one of the number types that CQL
// arithmetic accepts (tinyint, smallint, int, bigint, varint, float, double,
// decimal, counter).
func (t *Type) IsNumeric() bool {
	switch t.Kind {
	case KindTinyint, KindSmallint, KindInt, KindBigint, KindVarint,
		KindFloat, KindDouble, KindDecimal, KindCounter:
		return true
	}
	return false
}

// IsInteger reports whether t is an integer type (incl. counter and varint).
func (t *Type) IsInteger() bool {
	switch t.Kind {
	case KindTinyint, KindSmallint, KindInt, KindBigint, KindVarint, KindCounter:
		return true
	}
	return false
}

// IsText reports whether t is text/varchar or ascii.
func (t *Type) IsText() bool { return t.Kind == KindVarchar || t.Kind == KindAscii }

// IsNative reports whether t is a scalar native type.
func (t *Type) IsNative() bool { return t.Kind.IsNative() }

// IsUDT reports whether t is a user-defined type.
func (t *Type) IsUDT() bool { return t.Kind == KindUDT }

// IsTuple reports whether t is a tuple.
func (t *Type) IsTuple() bool { return t.Kind == KindTuple }

// Elem returns a list's or set's element type, or nil.
func (t *Type) Elem() *Type {
	if (t.Kind == KindList || t.Kind == KindSet) && len(t.Elems) == 1 {
		return t.Elems[0]
	}
	return nil
}

// Key returns a map's key type, or nil.
func (t *Type) Key() *Type {
	if t.Kind == KindMap && len(t.Elems) == 2 {
		return t.Elems[0]
	}
	return nil
}

// Value returns a map's value type, or nil.
func (t *Type) Value() *Type {
	if t.Kind == KindMap && len(t.Elems) == 2 {
		return t.Elems[1]
	}
	return nil
}

// FieldIndex returns the position of a UDT field, or -1.
func (t *Type) FieldIndex(name string) int {
	for i, n := range t.FieldNames {
		if n == name {
			return i
		}
	}
	return -1
}

// Equal reports whether t and o are the same type, frozenness included.
// UDTs are equal when keyspace, name and fields match.
func (t *Type) Equal(o *Type) bool {
	if t == o {
		return true
	}
	if t == nil || o == nil {
		return false
	}
	if t.Kind != o.Kind || len(t.Elems) != len(o.Elems) {
		return false
	}
	// Frozenness only distinguishes collections and UDTs (tuples are
	// always frozen, scalars never multi-cell).
	if t.Frozen != o.Frozen && (t.IsCollection() || t.Kind == KindUDT) {
		return false
	}
	switch t.Kind {
	case KindCustom:
		return t.Class == o.Class
	case KindUDT:
		if t.Keyspace != o.Keyspace || t.Name != o.Name || len(t.FieldNames) != len(o.FieldNames) {
			return false
		}
		for i := range t.FieldNames {
			if t.FieldNames[i] != o.FieldNames[i] {
				return false
			}
		}
	}
	for i := range t.Elems {
		if !t.Elems[i].Equal(o.Elems[i]) {
			return false
		}
	}
	return true
}

// String returns the CQL type text as Cassandra writes it in
// system_schema.columns.type, e.g. "frozen<list<int>>" or "map<text, int>".
func (t *Type) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t *Type) write(b *strings.Builder) {
	if t == nil {
		b.WriteString("<nil>")
		return
	}
	// Tuples are always frozen and Cassandra prints them so
	// (CQL3Type.Tuple.toString), e.g. frozen<tuple<int, text>>.
	frozen := t.Kind == KindTuple || t.Frozen && (t.IsCollection() || t.Kind == KindUDT)
	if frozen {
		b.WriteString("frozen<")
	}
	switch t.Kind {
	case KindList, KindSet, KindMap, KindTuple:
		b.WriteString(t.Kind.String())
		b.WriteByte('<')
		for i, e := range t.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			e.write(b)
		}
		b.WriteByte('>')
	case KindUDT:
		b.WriteString(QuoteIdent(t.Name))
	case KindCustom:
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(t.Class, "'", "''"))
		b.WriteByte('\'')
	default:
		b.WriteString(t.Kind.String())
	}
	if frozen {
		b.WriteByte('>')
	}
}
