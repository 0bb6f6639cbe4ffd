package differential_test

import (
	"math/rand"
	"strings"
)

// This file holds the column types of the random sessions and their CQL
// literals. Values come from small fixed pools, so that random writes and
// restrictions meet the same keys and values often, and the pools carry the
// edge cases where an implementation is most likely to differ from
// Cassandra: empty text and blobs, extreme integers, -0.0, NaN and the
// infinities, UUIDs of several versions (UUIDType orders by version, then
// time or bytes) and timeuuids whose clock sequences differ in their sign
// bit (TimeUUIDType compares the low half as a signed long).

// rKind is the shape of a type.
type rKind int

const (
	kScalar rKind = iota
	kSet
	kList
	kMap
	kUDT
	kTuple
	kCounter
)

// rType is a column type.
type rType struct {
	kind   rKind
	scalar string   // kScalar: the native type's name
	elem   *rType   // kSet, kList: element; kMap: value
	key    *rType   // kMap: key
	frozen bool     // frozen collection or UDT (tuples are always frozen)
	udt    *rUDT    // kUDT
	parts  []*rType // kTuple
}

// rUDT is a user-defined type of the session.
type rUDT struct {
	name   string
	fields []string
	types  []*rType
}

// scalarPools are the literals each native type draws from. The first
// keyPoolSize values of a pool are the key pool (see literal).
var scalarPools = map[string][]string{
	"int":     {"0", "1", "2", "3", "-1", "42", "2147483647", "-2147483648"},
	"bigint":  {"0", "1", "-7", "9223372036854775807", "-9223372036854775808", "1000000000000"},
	"text":    {"'a'", "'b'", "''", "'ab'", "'zz'", "'é'", "'it''s'"},
	"boolean": {"true", "false"},
	"timestamp": {"'2024-01-01 00:00:00+0000'", "0", "'1999-12-31 23:59:59.999+0000'", "-1000",
		"1700000000000", "'2038-01-19 03:14:08+0000'"},
	"uuid": {"123e4567-e89b-12d3-a456-426614174000", "550e8400-e29b-41d4-a716-446655440000",
		"00000000-0000-0000-0000-000000000000", "f47ac10b-58cc-4372-a567-0e02b2c3d479",
		"ffffffff-ffff-ffff-ffff-ffffffffffff", "50554d6e-29bb-11e5-b345-feff819cdc9f"},
	"timeuuid": {"50554d6e-29bb-11e5-b345-feff819cdc9f", "50554d6e-29bb-11e5-0000-000000000001",
		"e7c8b4f0-1d2c-11ee-be56-0242ac120002", "00000000-0000-1000-8000-000000000000",
		"50554d6e-29bb-11e5-8345-feff819cdc9f", "ffffffff-ffff-1fff-bfff-ffffffffffff"},
	"double": {"1.5", "0.0", "-2.25", "NaN", "-0.0", "1e300", "Infinity", "-Infinity", "3.0"},
	"blob":   {"0x01", "0x", "0xff", "0x00", "0x0102", "0xabcdef"},
}

// keyPoolSize is how many values of a pool key columns use: few, so that
// partitions hold several rows and restrictions hit written keys.
const keyPoolSize = 3

// scalarNames lists the native types in a fixed order (map order is
// random, and the generator must be deterministic for a seed).
var scalarNames = []string{"int", "bigint", "text", "boolean", "timestamp", "uuid", "timeuuid", "double", "blob"}

func scalarType(name string) *rType { return &rType{kind: kScalar, scalar: name} }

// cql is the type as written in CREATE TABLE.
func (t *rType) cql() string {
	var s string
	switch t.kind {
	case kScalar:
		return t.scalar
	case kCounter:
		return "counter"
	case kSet:
		s = "set<" + t.elem.cql() + ">"
	case kList:
		s = "list<" + t.elem.cql() + ">"
	case kMap:
		s = "map<" + t.key.cql() + ", " + t.elem.cql() + ">"
	case kUDT:
		s = t.udt.name
	case kTuple:
		parts := make([]string, len(t.parts))
		for i, p := range t.parts {
			parts[i] = p.cql()
		}
		return "tuple<" + strings.Join(parts, ", ") + ">"
	}
	if t.frozen {
		return "frozen<" + s + ">"
	}
	return s
}

// isCollection reports a set, list or map, frozen or not.
func (t *rType) isCollection() bool { return t.kind == kSet || t.kind == kList || t.kind == kMap }

// multiCell reports a non-frozen collection or UDT: one cell per element
// or field, with element operations.
func (t *rType) multiCell() bool { return (t.isCollection() || t.kind == kUDT) && !t.frozen }

// orderable reports a type min/max and slices compare meaningfully on.
func (t *rType) orderable() bool { return t.kind == kScalar && t.scalar != "boolean" }

// numeric reports a type sum accepts.
func (t *rType) numeric() bool {
	return t.kind == kScalar && (t.scalar == "int" || t.scalar == "bigint" || t.scalar == "double")
}

// literal draws a value of t; key restricts scalars to their key pool.
func (t *rType) literal(r *rand.Rand, key bool) string {
	switch t.kind {
	case kScalar:
		pool := scalarPools[t.scalar]
		if key && len(pool) > keyPoolSize {
			pool = pool[:keyPoolSize]
		}
		return pool[r.Intn(len(pool))]
	case kCounter:
		return "1"
	case kSet:
		return "{" + strings.Join(t.elements(r, key), ", ") + "}"
	case kList:
		return "[" + strings.Join(t.elements(r, key), ", ") + "]"
	case kMap:
		// Distinct keys: Cassandra keeps one of two equal keys at random
		// (Maps.Literal.prepare puts the entries in a HashMap keyed by Term
		// objects that compare by identity, and bind keeps the last one its
		// iteration order, an identity hash order, gives).
		var parts []string
		seen := map[string]bool{}
		n := r.Intn(4)
		for i := 0; i < n; i++ {
			k := t.key.literal(r, true)
			if !seen[k] {
				seen[k] = true
				parts = append(parts, k+": "+t.elem.literal(r, key))
			}
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case kUDT:
		var parts []string
		for i, f := range t.udt.fields {
			if i == 0 || r.Intn(3) > 0 {
				parts = append(parts, f+": "+t.udt.types[i].literal(r, key))
			}
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case kTuple:
		parts := make([]string, len(t.parts))
		for i, p := range t.parts {
			parts[i] = p.literal(r, key)
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	panic("unknown kind")
}

// elements draws 0-3 elements (key-pool values, so that CONTAINS and
// removals meet elements that were written).
func (t *rType) elements(r *rand.Rand, key bool) []string {
	n := r.Intn(4)
	if key && n == 0 {
		n = 1 + r.Intn(2)
	}
	parts := make([]string, n)
	for i := range parts {
		parts[i] = t.elem.literal(r, true)
	}
	return parts
}

// wrongLiteral draws a literal of another type, for the statements that
// must be refused with Cassandra's type error.
func (t *rType) wrongLiteral(r *rand.Rand) string {
	if t.kind == kTuple {
		// Cassandra takes any scalar constant for a tuple (random_known.txt,
		// scalar-constant-for-tuple).
		return "{1}"
	}
	for {
		other := scalarNames[r.Intn(len(scalarNames))]
		lit := scalarPools[other][r.Intn(len(scalarPools[other]))]
		if t.kind != kScalar || !compatibleLiteral(t.scalar, other) {
			return lit
		}
	}
}

// compatibleLiteral reports whether a literal of type from may be a valid
// literal of type to (an integer is a valid bigint, double and timestamp;
// a UUID a valid timeuuid), so that wrongLiteral's choice is really wrong.
func compatibleLiteral(to, from string) bool {
	if to == from {
		return true
	}
	numbers := map[string]bool{"int": true, "bigint": true, "double": true, "timestamp": true}
	switch {
	case numbers[to] && numbers[from]:
		return true
	case (to == "uuid" || to == "timeuuid") && (from == "uuid" || from == "timeuuid"):
		return true
	case to == "timestamp" && from == "text":
		return true
	}
	return false
}

// keyType draws a type for a primary-key column.
func keyType(r *rand.Rand, udt *rUDT) *rType {
	switch n := r.Intn(20); {
	case n < 8:
		return scalarType("int")
	case n < 16:
		return scalarType(scalarNames[1+r.Intn(len(scalarNames)-1)])
	case n == 16:
		return &rType{kind: kSet, elem: scalarType("int"), frozen: true}
	case n == 17:
		return &rType{kind: kList, elem: scalarType("text"), frozen: true}
	case n == 18 && udt != nil:
		return &rType{kind: kUDT, udt: udt, frozen: true}
	default:
		return &rType{kind: kTuple, parts: []*rType{scalarType("int"), scalarType("text")}}
	}
}

// valueType draws a type for a regular or static column.
func valueType(r *rand.Rand, udt *rUDT) *rType {
	elem := func() *rType {
		if r.Intn(2) == 0 {
			return scalarType("int")
		}
		return scalarType("text")
	}
	switch n := r.Intn(24); {
	case n < 12:
		return scalarType(scalarNames[r.Intn(len(scalarNames))])
	case n < 14:
		return &rType{kind: kSet, elem: elem(), frozen: n == 13 && r.Intn(2) == 0}
	case n < 16:
		return &rType{kind: kList, elem: elem(), frozen: n == 15 && r.Intn(2) == 0}
	case n < 18:
		return &rType{kind: kMap, key: scalarType("text"), elem: scalarType("int"), frozen: n == 17 && r.Intn(2) == 0}
	case n == 18:
		return &rType{kind: kMap, key: scalarType("int"), elem: &rType{kind: kList, elem: scalarType("text"), frozen: true}}
	case n < 21 && udt != nil:
		return &rType{kind: kUDT, udt: udt, frozen: n == 20}
	case n == 21:
		return &rType{kind: kTuple, parts: []*rType{scalarType("int"), scalarType("text")}}
	default:
		return scalarType("int")
	}
}
