package e2e_test

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// decimal is a CQL decimal read and written through gocql's Marshaler
// interfaces: a 4-byte scale, then the unscaled value as a varint
// (reference §6), so the test needs no decimal library.
type decimal struct {
	Unscaled *big.Int
	Scale    int32
}

func (d decimal) MarshalCQL(gocql.TypeInfo) ([]byte, error) {
	b := []byte{byte(d.Scale >> 24), byte(d.Scale >> 16), byte(d.Scale >> 8), byte(d.Scale)}
	return append(b, varintBytes(d.Unscaled)...), nil
}

func (d *decimal) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	if len(data) < 4 {
		return fmt.Errorf("decimal of %d bytes", len(data))
	}
	d.Scale = int32(uint32(data[0])<<24 | uint32(data[1])<<16 | uint32(data[2])<<8 | uint32(data[3]))
	d.Unscaled = new(big.Int).SetBytes(data[4:])
	if len(data) > 4 && data[4]&0x80 != 0 { // two's complement
		d.Unscaled.Sub(d.Unscaled, new(big.Int).Lsh(big.NewInt(1), uint(8*(len(data)-4))))
	}
	return nil
}

func (d decimal) String() string { return fmt.Sprintf("%sE-%d", d.Unscaled, d.Scale) }

// varintBytes is the minimal big-endian two's complement of v.
func varintBytes(v *big.Int) []byte {
	if v.Sign() >= 0 {
		b := v.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	n := len(new(big.Int).Not(v).Bytes()) + 1 // room for the sign bit
	b := new(big.Int).Add(v, new(big.Int).Lsh(big.NewInt(1), uint(8*n))).Bytes()
	for len(b) > 1 && b[0] == 0xff && b[1]&0x80 != 0 {
		b = b[1:]
	}
	return b
}

// allTypes is one row of the all_types table, in column order.
type allTypes struct {
	Ascii     string
	Text      string
	Varchar   string
	Int       int32
	Bigint    int64
	Smallint  int16
	Tinyint   int8
	Varint    *big.Int
	Decimal   decimal
	Float     float32
	Double    float64
	Boolean   bool
	UUID      gocql.UUID
	TimeUUID  gocql.UUID
	Timestamp time.Time
	Date      time.Time
	Time      time.Duration
	Duration  gocql.Duration
	Blob      []byte
	Inet      net.IP
}

var allTypesColumns = []string{"c_ascii ascii", "c_text text", "c_varchar varchar", "c_int int", "c_bigint bigint",
	"c_smallint smallint", "c_tinyint tinyint", "c_varint varint", "c_decimal decimal", "c_float float",
	"c_double double", "c_boolean boolean", "c_uuid uuid", "c_timeuuid timeuuid", "c_timestamp timestamp",
	"c_date date", "c_time time", "c_duration duration", "c_blob blob", "c_inet inet"}

func allTypesNames() []string {
	out := make([]string, len(allTypesColumns))
	for i, c := range allTypesColumns {
		out[i], _, _ = strings.Cut(c, " ")
	}
	return out
}

// fields returns pointers to r's fields, in column order, for Scan.
func (r *allTypes) fields() []any {
	v := reflect.ValueOf(r).Elem()
	out := make([]any, v.NumField())
	for i := range out {
		out[i] = v.Field(i).Addr().Interface()
	}
	return out
}

// values returns r's fields, in column order, for binding.
func (r *allTypes) values() []any {
	v := reflect.ValueOf(r).Elem()
	out := make([]any, v.NumField())
	for i := range out {
		out[i] = v.Field(i).Interface()
	}
	return out
}

// typesSession returns a session in the keyspace holding all_types.
func typesSession(t *testing.T) *gocql.Session {
	t.Helper()
	return sharedKeyspace(t, "go_types", "CREATE TABLE all_types (k int PRIMARY KEY, "+strings.Join(allTypesColumns, ", ")+")")
}

var (
	allTypesInsert = "INSERT INTO all_types (k, " + strings.Join(allTypesNames(), ", ") + ") VALUES (?" +
		strings.Repeat(", ?", len(allTypesColumns)) + ")"
	allTypesSelect = "SELECT " + strings.Join(allTypesNames(), ", ") + " FROM all_types WHERE k = ?"
)

// typicalRow and extremeRow are the values the round trips write.
func typicalRow() allTypes {
	bigVarint, _ := new(big.Int).SetString("12345678901234567890123456789", 10)
	uuid1, _ := gocql.ParseUUID("5d8b7a62-0d64-4b1c-9a8e-2f1b7f2a9c01")
	return allTypes{
		Ascii: "plain ascii ~!", Text: "text: 中文, émoji 🎉", Varchar: "varchar too",
		Int: 123456, Bigint: 1234567890123, Smallint: -1234, Tinyint: 42, Varint: bigVarint,
		Decimal: decimal{big.NewInt(-12345678901234567), 12}, Float: 1.5, Double: math.Pi, Boolean: true,
		UUID: uuid1, TimeUUID: timeUUID(utc(2025, 3, 8, 10, 15, 0), 7),
		Timestamp: time.Date(2026, 1, 20, 6, 0, 0, 123e6, time.UTC), Date: utc(2026, 1, 20, 0, 0, 0),
		Time:     23*time.Hour + 59*time.Minute + 58*time.Second + 999999999,
		Duration: gocql.Duration{Months: 14, Days: 3, Nanoseconds: int64(4*time.Hour) + 5},
		Blob:     []byte("\x00\x01\xfe\xffbinary"), Inet: net.ParseIP("192.0.2.10").To4(),
	}
}

func extremeRow() allTypes {
	hugeNeg := new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 200))
	hugeNeg.Add(hugeNeg, big.NewInt(1))
	return allTypes{
		Ascii: "", Text: "", Varchar: `'quoted' "and" \ back`,
		Int: math.MinInt32, Bigint: math.MaxInt64, Smallint: math.MaxInt16, Tinyint: math.MinInt8, Varint: hugeNeg,
		Decimal: decimal{big.NewInt(1), 30}, Float: float32(math.Inf(-1)), Double: -math.MaxFloat64, Boolean: false,
		UUID: gocql.UUID{}, TimeUUID: timeUUID(utc(1970, 1, 1, 0, 0, 1), 0x3fff),
		Timestamp: utc(1900, 1, 1, 0, 0, 0), Time: 0,
		// Not 0001-01-01: that is Go's zero time, which gocql sends as an
		// empty value, and Cassandra's date takes exactly 4 bytes.
		Date:     utc(1, 1, 2, 0, 0, 0),
		Duration: gocql.Duration{Months: -1, Days: -2, Nanoseconds: -3},
		Blob:     []byte{}, Inet: net.ParseIP("2001:db8::ff00:42:8329"),
	}
}

// TestScalarTypesRoundTrip writes every scalar type through a prepared
// INSERT and reads it back through a prepared SELECT.
func TestScalarTypesRoundTrip(t *testing.T) {
	s := typesSession(t)
	names := allTypesNames()
	cases := []struct {
		name string
		k    int
		row  allTypes
	}{
		{"typical", 1, typicalRow()},
		{"extremes", 2, extremeRow()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mustExec(t, s, allTypesInsert, append([]any{c.k}, c.row.values()...)...)
			var got allTypes
			if err := s.Query(allTypesSelect, c.k).Scan(got.fields()...); err != nil {
				t.Fatal(err)
			}
			wv, gv := reflect.ValueOf(c.row), reflect.ValueOf(got)
			for f := range wv.NumField() {
				w, g := wv.Field(f).Interface(), gv.Field(f).Interface()
				if !sameValue(w, g) {
					t.Errorf("%s: wrote %v, read %v", names[f], w, g)
				}
			}
		})
	}
}

func TestNulls(t *testing.T) {
	s := typesSession(t)
	names := allTypesNames()
	mustExec(t, s, allTypesInsert, append([]any{10}, make([]any, len(names))...)...)
	mustExec(t, s, "INSERT INTO all_types (k) VALUES (11)")
	for _, k := range []int{10, 11} {
		for i, isNull := range scanNulls(t, s, allTypesSelect, k) {
			if !isNull {
				t.Errorf("k=%d: %s is not null", k, names[i])
			}
		}
	}
	// Empty strings and blobs are values, not nulls.
	extremes := extremeRow()
	mustExec(t, s, allTypesInsert, append([]any{12}, extremes.values()...)...)
	for i, isNull := range scanNulls(t, s, allTypesSelect, 12) {
		if isNull {
			t.Errorf("k=12: %s is null", names[i])
		}
	}
	// Writing null over a value deletes it.
	typical := typicalRow()
	mustExec(t, s, allTypesInsert, append([]any{13}, typical.values()...)...)
	mustExec(t, s, "UPDATE all_types SET c_text = ?, c_inet = ? WHERE k = 13", nil, nil)
	nulls := scanNulls(t, s, "SELECT c_text, c_inet, c_int FROM all_types WHERE k = ?", 13)
	equal(t, "nulls after update", nulls, []bool{true, true, false})
}

func TestSpecialFloats(t *testing.T) {
	s := typesSession(t)
	mustExec(t, s, "INSERT INTO all_types (k, c_float, c_double) VALUES (20, ?, ?)", float32(math.NaN()), math.Inf(1))
	var f float32
	var d float64
	if err := s.Query("SELECT c_float, c_double FROM all_types WHERE k = 20").Scan(&f, &d); err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(float64(f)) || !math.IsInf(d, 1) {
		t.Fatalf("read %v, %v; want NaN, +Inf", f, d)
	}
}

// TestTypeLiterals writes CQL literals of the types whose text forms vary
// most and reads them back as gocql values.
func TestTypeLiterals(t *testing.T) {
	s := typesSession(t)
	mustExec(t, s, `INSERT INTO all_types (k, c_varint, c_decimal, c_timestamp, c_date, c_time, c_duration, c_blob, c_inet, c_boolean)
VALUES (30, -129, -1.50, '2026-01-20T06:00:00Z', '2026-01-20', '13:30:54.234', 1y2mo3w4d5h6m7s8ms9us10ns, 0xCAFE, '::1', TRUE)`)
	var got allTypes
	if err := s.Query(allTypesSelect, 30).Scan(got.fields()...); err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"varint", got.Varint, big.NewInt(-129)},
		{"decimal", got.Decimal, decimal{big.NewInt(-150), 2}},
		{"timestamp", got.Timestamp, utc(2026, 1, 20, 6, 0, 0)},
		{"date", got.Date, utc(2026, 1, 20, 0, 0, 0)},
		{"time", got.Time, 13*time.Hour + 30*time.Minute + 54*time.Second + 234*time.Millisecond},
		{"duration", got.Duration, gocql.Duration{Months: 14, Days: 25,
			Nanoseconds: int64(5*time.Hour+6*time.Minute+7*time.Second+8*time.Millisecond+9*time.Microsecond) + 10}},
		{"blob", got.Blob, []byte{0xca, 0xfe}},
		{"inet", got.Inet, net.ParseIP("::1")},
		{"boolean", got.Boolean, true},
	}
	for _, c := range checks {
		if !sameValue(c.want, c.got) {
			t.Errorf("%s: read %v, want %v", c.name, c.got, c.want)
		}
	}
}

// nullProbe records whether a cell was null (no bytes) or a value.
type nullProbe struct{ null bool }

func (p *nullProbe) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	p.null = data == nil
	return nil
}

// scanNulls reads one row and reports, per column, whether it was null.
func scanNulls(t *testing.T, s *gocql.Session, stmt string, args ...any) []bool {
	t.Helper()
	iter := s.Query(stmt, args...).Iter()
	probes := make([]nullProbe, len(iter.Columns()))
	dest := make([]any, len(probes))
	for i := range probes {
		dest[i] = &probes[i]
	}
	if !iter.Scan(dest...) {
		t.Fatalf("%s: no row (%v)", stmt, iter.Close())
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	out := make([]bool, len(probes))
	for i, p := range probes {
		out[i] = p.null
	}
	return out
}

// sameValue compares values as the test means them: big.Ints by value,
// IPs by address, times by instant, the rest deeply.
func sameValue(want, got any) bool {
	switch w := want.(type) {
	case *big.Int:
		g, ok := got.(*big.Int)
		return ok && g != nil && w.Cmp(g) == 0
	case decimal:
		g, ok := got.(decimal)
		return ok && g.Unscaled != nil && w.Scale == g.Scale && w.Unscaled.Cmp(g.Unscaled) == 0
	case net.IP:
		g, ok := got.(net.IP)
		return ok && w.Equal(g)
	case time.Time:
		g, ok := got.(time.Time)
		return ok && w.Equal(g)
	case []byte:
		g, ok := got.([]byte)
		return ok && bytes.Equal(w, g) // gocql reads an empty blob as nil
	case float32:
		g, ok := got.(float32)
		return ok && (w == g || (w != w && g != g))
	}
	return reflect.DeepEqual(want, got)
}
