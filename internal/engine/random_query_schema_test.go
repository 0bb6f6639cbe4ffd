package engine_test

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"strings"

	"github.com/partita-db/partita/internal/token"
)

// This file holds the random query test's schema side: the few CQL types it
// uses, their small value domains (so that equality restrictions hit), and
// the test's own encoding, decoding, ordering and printing of those values.
// The reference evaluator relies on these, not on Partita's types package, so
// that a bug there cannot hide in both sides of the comparison.

// rqType is one of the CQL types the test generates.
type rqType int

const (
	rqInt rqType = iota
	rqBigint
	rqText
	rqTimestamp
	rqUUID
	rqSetInt // set<int>, regular columns only
)

func (t rqType) cql() string {
	return [...]string{"int", "bigint", "text", "timestamp", "uuid", "set<int>"}[t]
}

// rqValue is a value of the model: nil is null; int64 for int, bigint and
// timestamp (milliseconds); string for text and uuid (canonical form);
// []int64, sorted and never empty, for set<int> (an empty set reads as null).
type rqValue = any

// rqDomains are the values a column of each type takes. They are small so
// that EQ and IN relations hit rows, and straddle zero so that signed order
// matters. The uuids are version 4 and differ in their first byte, below
// 0x80, so their order is the same under every UUID comparison Cassandra
// has (UUIDType compares the version, then the bytes).
var rqDomains = map[rqType][]rqValue{
	rqInt:       {int64(-1), int64(0), int64(1), int64(2), int64(3)},
	rqBigint:    {int64(-7), int64(0), int64(5), int64(100)},
	rqText:      {"", "a", "b", "ba"},
	rqTimestamp: {int64(-1000), int64(0), int64(1000), int64(1600000000000)},
	rqUUID: {"11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222",
		"33333333-3333-4333-8333-333333333333"},
	rqSetInt: {[]int64{1}, []int64{2}, []int64{1, 2}, []int64{1, 3}, []int64{2, 3}},
}

// rqDomain is the domain of a column: a single-column partition key cannot
// be empty ("Key may not be empty"), so ” is left out there.
func rqDomain(c *rqColumn, singlePK bool) []rqValue {
	d := rqDomains[c.typ]
	if c.kind == rqPK && singlePK && c.typ == rqText {
		return d[1:]
	}
	return d
}

// rqLiteral writes v as a CQL literal of type t.
func rqLiteral(t rqType, v rqValue) string {
	if v == nil {
		return "null"
	}
	switch t {
	case rqText:
		return "'" + strings.ReplaceAll(v.(string), "'", "''") + "'"
	case rqUUID:
		return v.(string)
	case rqSetInt:
		parts := []string{}
		for _, e := range v.([]int64) {
			parts = append(parts, strconv.FormatInt(e, 10))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return strconv.FormatInt(v.(int64), 10)
}

// rqFormat prints a value for comparison and repros: text is quoted so that
// ” and null differ.
func rqFormat(t rqType, v rqValue) string {
	if v == nil {
		return "null"
	}
	if t == rqTimestamp {
		return "ts:" + strconv.FormatInt(v.(int64), 10)
	}
	return rqLiteral(t, v)
}

// rqEncode is the native protocol serialization of a non-null scalar value
// (used for partition key tokens).
func rqEncode(t rqType, v rqValue) []byte {
	switch t {
	case rqInt:
		return binary.BigEndian.AppendUint32(nil, uint32(int32(v.(int64))))
	case rqBigint, rqTimestamp:
		return binary.BigEndian.AppendUint64(nil, uint64(v.(int64)))
	case rqText:
		return []byte(v.(string))
	case rqUUID:
		b, _ := hex.DecodeString(strings.ReplaceAll(v.(string), "-", ""))
		return b
	}
	panic(fmt.Sprintf("rqEncode: type %s", t.cql()))
}

// rqDecode reads a value of type t from a result cell; a cell of the wrong
// size is an error (the caller prints it as a mismatch).
func rqDecode(t rqType, b []byte) (rqValue, error) {
	if b == nil {
		return nil, nil
	}
	switch t {
	case rqInt:
		if len(b) != 4 {
			return nil, fmt.Errorf("int of %d bytes", len(b))
		}
		return int64(int32(binary.BigEndian.Uint32(b))), nil
	case rqBigint, rqTimestamp:
		if len(b) != 8 {
			return nil, fmt.Errorf("%s of %d bytes", t.cql(), len(b))
		}
		return int64(binary.BigEndian.Uint64(b)), nil
	case rqText:
		return string(b), nil
	case rqUUID:
		if len(b) != 16 {
			return nil, fmt.Errorf("uuid of %d bytes", len(b))
		}
		h := hex.EncodeToString(b)
		return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], nil
	}
	return rqDecodeSet(b)
}

// rqDecodeSet reads a protocol v4 set<int>: an [int] count, then each
// element as [int] length and bytes.
func rqDecodeSet(b []byte) (rqValue, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("set of %d bytes", len(b))
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	b = b[4:]
	var out []int64
	for i := 0; i < n; i++ {
		if len(b) < 8 || binary.BigEndian.Uint32(b) != 4 {
			return nil, fmt.Errorf("bad set element")
		}
		out = append(out, int64(int32(binary.BigEndian.Uint32(b[4:]))))
		b = b[8:]
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// rqCompare orders two non-null values of type t naturally (the order
// restrictions use; clustering order adds DESC on top).
func rqCompare(t rqType, a, b rqValue) int {
	switch t {
	case rqText, rqUUID:
		return strings.Compare(a.(string), b.(string))
	case rqSetInt:
		panic("rqCompare: sets are not ordered by the test")
	}
	x, y := a.(int64), b.(int64)
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// rqColKind is where a column sits in the table.
type rqColKind int

const (
	rqPK rqColKind = iota
	rqCK
	rqStatic
	rqRegular
)

// rqColumn is a column of a generated table; pos is its position among the
// columns of its kind.
type rqColumn struct {
	name string
	kind rqColKind
	typ  rqType
	pos  int
	desc bool // clustering columns: CLUSTERING ORDER BY ... DESC
}

func (c *rqColumn) isKey() bool { return c.kind == rqPK || c.kind == rqCK }

// rqTable is a generated table.
type rqTable struct {
	name     string
	pk, ck   []*rqColumn
	statics  []*rqColumn
	regulars []*rqColumn
}

// all lists the columns in SELECT * order: partition key, clustering, then
// static and regular columns each sorted by name (TableMetadata
// allColumnsInSelectOrder); the generated names already sort that way.
func (t *rqTable) all() []*rqColumn {
	out := append(append([]*rqColumn{}, t.pk...), t.ck...)
	return append(append(out, t.statics...), t.regulars...)
}

func (t *rqTable) nonKey() []*rqColumn {
	return append(append([]*rqColumn{}, t.statics...), t.regulars...)
}

func (t *rqTable) column(name string) *rqColumn {
	for _, c := range t.all() {
		if c.name == name {
			return c
		}
	}
	return nil
}

// createCQL is the table's CREATE TABLE statement.
func (t *rqTable) createCQL() string {
	var defs, pk, order []string
	for _, c := range t.all() {
		d := c.name + " " + c.typ.cql()
		if c.kind == rqStatic {
			d += " STATIC"
		}
		defs = append(defs, d)
	}
	for _, c := range t.pk {
		pk = append(pk, c.name)
	}
	key := "(" + strings.Join(pk, ", ") + ")"
	for _, c := range t.ck {
		key += ", " + c.name
		dir := "ASC"
		if c.desc {
			dir = "DESC"
		}
		order = append(order, c.name+" "+dir)
	}
	s := fmt.Sprintf("CREATE TABLE %s (%s, PRIMARY KEY (%s))", t.name, strings.Join(defs, ", "), key)
	if len(order) > 0 {
		s += " WITH CLUSTERING ORDER BY (" + strings.Join(order, ", ") + ")"
	}
	return s
}

var rqKeyTypes = []rqType{rqInt, rqInt, rqBigint, rqText, rqText, rqTimestamp, rqUUID}
var rqValueTypes = []rqType{rqInt, rqInt, rqBigint, rqText, rqTimestamp, rqUUID}

// rqRandomTable draws a schema: a partition key of 1-2 columns, 0-3
// clustering columns in random order, static columns sometimes (they need a
// clustering column), 1-3 regular columns of which one may be a set<int>.
func rqRandomTable(r *rand.Rand, name string) *rqTable {
	t := &rqTable{name: name}
	for i, n := 0, 1+r.Intn(2); i < n; i++ {
		t.pk = append(t.pk, &rqColumn{name: fmt.Sprintf("k%d", i+1), kind: rqPK, typ: rqKeyTypes[r.Intn(len(rqKeyTypes))], pos: i})
	}
	for i, n := 0, r.Intn(4); i < n; i++ {
		t.ck = append(t.ck, &rqColumn{name: fmt.Sprintf("c%d", i+1), kind: rqCK, typ: rqKeyTypes[r.Intn(len(rqKeyTypes))], pos: i, desc: r.Intn(3) == 0})
	}
	if len(t.ck) > 0 && r.Intn(2) == 0 {
		for i, n := 0, 1+r.Intn(2); i < n; i++ {
			t.statics = append(t.statics, &rqColumn{name: fmt.Sprintf("s%d", i+1), kind: rqStatic, typ: rqValueTypes[r.Intn(len(rqValueTypes))], pos: i})
		}
	}
	for i, n := 0, 1+r.Intn(3); i < n; i++ {
		typ := rqValueTypes[r.Intn(len(rqValueTypes))]
		if i == n-1 && r.Intn(4) == 0 {
			typ = rqSetInt
		}
		t.regulars = append(t.regulars, &rqColumn{name: fmt.Sprintf("v%d", i+1), kind: rqRegular, typ: typ, pos: i})
	}
	return t
}

// rqPartitionToken is the Murmur3 token of a partition key.
func rqPartitionToken(t *rqTable, key []rqValue) int64 {
	comps := make([][]byte, len(key))
	for i, c := range t.pk {
		comps[i] = rqEncode(c.typ, key[i])
	}
	return int64(token.Of(token.SerializeKey(comps)))
}

// rqSortValues sorts values of one type and drops duplicates (IN lists are
// read in sorted order, de-duplicated).
func rqSortValues(t rqType, vs []rqValue) []rqValue {
	out := append([]rqValue{}, vs...)
	sort.SliceStable(out, func(i, j int) bool { return rqCompare(t, out[i], out[j]) < 0 })
	kept := out[:0]
	for i, v := range out {
		if i == 0 || rqCompare(t, v, out[i-1]) != 0 {
			kept = append(kept, v)
		}
	}
	return kept
}
