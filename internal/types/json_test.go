package types

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/partita-db/partita/internal/cqlerr"
	"pgregory.net/rapid"
)

// TestJSONDataDriven runs the files under testdata/json. Commands:
//
//	tojson type=T      each input line is a value in hex ("null", "empty");
//	                   prints "hex -> ToJSON"
//	fromjson type=T    each input line is JSON text; prints
//	                   "json -> ToJSON(FromJSON)" or the error, and, when
//	                   the result does not survive another trip through
//	                   JSON, "(round trip: ...)"
//	jsonrow            the input is INSERT JSON's object; prints the
//	                   columns ParseJSONRow finds, sorted, each with the
//	                   Java class of its value, or the error; with
//	                   columns=a,b also the unrecognized-column check
//	selectjson         each input line is "name type hex"; prints
//	                   FormatJSONRow of them
//
// T is a CQL type without spaces; the UDTs are those of jsonTestUDTs.
func TestJSONDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata/json", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			switch td.Cmd {
			case "tojson", "fromjson":
				var typeText string
				td.ScanArgs(t, "type", &typeText)
				typ, err := ParseType(typeText, jsonTestUDTs)
				if err != nil {
					td.Fatalf(t, "bad type %q: %v", typeText, err)
				}
				var out strings.Builder
				for _, line := range strings.Split(td.Input, "\n") {
					if line == "" {
						continue
					}
					if td.Cmd == "tojson" {
						fmt.Fprintf(&out, "%s -> %s\n", line, ToJSON(typ, parseHexLine(t, line)))
					} else {
						fmt.Fprintf(&out, "%s -> %s\n", line, runFromJSON(t, typ, line))
					}
				}
				return out.String()
			case "jsonrow":
				return runJSONRow(t, td)
			case "selectjson":
				return runSelectJSON(t, td) + "\n"
			}
			td.Fatalf(t, "unknown command %q", td.Cmd)
			return ""
		})
	})
}

func jsonTestUDTs(name string) (*Type, error) {
	switch name {
	case "address":
		return addressType(), nil
	case "abc":
		return UDTOf("ks", "abc", []string{"a", "b", "c"}, []*Type{Int, UUID, SetOf(Text)}), nil
	case "cased":
		return UDTOf("ks", "cased", []string{"a", "Foo", "my field"}, []*Type{Int, Int, Text}), nil
	case "udta":
		return UDTOf("ks", "udta", []string{"a"}, []*Type{Int}), nil
	}
	return nil, cqlerr.Invalidf("Unknown type ks.%s", name)
}

func decodeTestJSON(t *testing.T, text string) any {
	t.Helper()
	v, err := decodeJSONText(text)
	if err != nil {
		t.Fatalf("bad JSON %q: %v", text, err)
	}
	return v
}

// runFromJSON converts JSON text, renders the result, and checks that it
// validates and that rendering is stable under another round trip.
func runFromJSON(t *testing.T, typ *Type, text string) string {
	v, err := FromJSON(typ, decodeTestJSON(t, text))
	if err != nil {
		return errText(err)
	}
	if err := validJSONValue(typ, v); err != nil {
		t.Errorf("%s: FromJSON gave %x, which does not validate: %v", text, v, err)
	}
	out := ToJSON(typ, v)
	again, err := FromJSON(typ, decodeTestJSON(t, out))
	switch {
	case err != nil:
		return out + " (round trip: " + errText(err) + ")"
	case Compare(typ, again, v) != 0 || (again == nil) != (v == nil):
		return out + " (round trip: " + ToJSON(typ, again) + ")"
	}
	return out
}

func runJSONRow(t *testing.T, td *datadriven.TestData) string {
	row, err := ParseJSONRow(td.Input)
	if err != nil {
		return errText(err) + "\n"
	}
	var out strings.Builder
	for _, k := range sortedKeys(row) {
		j := classifyJSON(row[k])
		fmt.Fprintf(&out, "%s: %s %s\n", k, j.className(), j)
	}
	if td.HasArg("columns") {
		var cols string
		td.ScanArgs(t, "columns", &cols)
		fmt.Fprintf(&out, "check: %s\n", errText(CheckJSONRowColumns(row, strings.Split(cols, ","))))
	}
	return out.String()
}

func runSelectJSON(t *testing.T, td *datadriven.TestData) string {
	var names []string
	var types []*Type
	var values [][]byte
	for _, line := range strings.Split(td.Input, "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			td.Fatalf(t, "want \"name type hex\", got %q", line)
		}
		typ, err := ParseType(f[1], jsonTestUDTs)
		if err != nil {
			td.Fatalf(t, "bad type %q: %v", f[1], err)
		}
		names, types, values = append(names, f[0]), append(types, typ), append(values, parseHexLine(t, f[2]))
	}
	out := FormatJSONRow(names, types, values)
	if !json.Valid([]byte(out)) {
		t.Errorf("FormatJSONRow gave invalid JSON %s", out)
	}
	return out
}

func TestJSONTimestamp(t *testing.T) {
	tests := []struct {
		ms   int64
		want string
	}{
		// Confirmed against Cassandra 5.0.6 (SELECT toJson(blobAsTimestamp(
		// bigintAsBlob(ms)))): the proleptic Gregorian calendar of
		// java.time, the year of era, a sign beyond four digits.
		{0, "1970-01-01 00:00:00.000Z"},
		{-1, "1969-12-31 23:59:59.999Z"},
		{1388534400000, "2014-01-01 00:00:00.000Z"},
		{1768888800123, "2026-01-20 06:00:00.123Z"},
		{-12219292800001, "1582-10-14 23:59:59.999Z"},
		{-12220243200000, "1582-10-04 00:00:00.000Z"},
		{-62135596800000, "0001-01-01 00:00:00.000Z"},
		{-62135596800001, "0001-12-31 23:59:59.999Z"}, // 1 BC: the year of era
		{-62167219200000, "0001-01-01 00:00:00.000Z"}, // year 0 is 1 BC
		{-62198755200000, "0002-01-01 00:00:00.000Z"},
		{253402300799999, "9999-12-31 23:59:59.999Z"},
		{253402300800000, "+10000-01-01 00:00:00.000Z"},
		{math.MaxInt64, "+292278994-08-17 07:12:55.807Z"},
		{math.MinInt64, "+292275056-05-16 16:47:04.192Z"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := jsonTimestamp(tt.ms); got != tt.want {
				t.Errorf("jsonTimestamp(%d) = %s, want %s", tt.ms, got, tt.want)
			}
		})
	}
}

// javaCalendarDate inverts javaCalendarDays on both sides of the cutover.
func TestJavaCalendarDate(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		days := rapid.Int64Range(-1<<36, 1<<36).Draw(rt, "days")
		y, m, d := javaCalendarDate(days)
		if back, ok := javaCalendarDays(y, m, d); !ok || back != days {
			rt.Fatalf("day %d -> %d-%d-%d -> %d, %v", days, y, m, d, back, ok)
		}
	})
}

func TestJavaHostAddress(t *testing.T) {
	tests := []struct {
		hex, want string
	}{
		{"7f000001", "127.0.0.1"},
		{"00000000000000000000000000000001", "0:0:0:0:0:0:0:1"},
		{"20010db8000000000000ff0000428329", "2001:db8:0:0:0:ff00:42:8329"},
		{"00000000000000000000ffff01020304", "1.2.3.4"},
		{"00000000000000000000000001020304", "0:0:0:0:0:0:102:304"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := javaHostAddress(parseHexLine(t, tt.hex)); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestParseJSONRowCaseSensitivity(t *testing.T) {
	tests := []struct {
		name, text string
		want       map[string]string // column -> Java toString of the value
	}{
		{"lower", `{"k": 0, "v": "x"}`, map[string]string{"k": "0", "v": "x"}},
		{"upper is lowered", `{"K": 0}`, map[string]string{"k": "0"}},
		{"quoted keeps case", `{"\"Foo\"": 1}`, map[string]string{"Foo": "1"}},
		{"quoted lower", `{"\"k\"": 1}`, map[string]string{"k": "1"}},
		{"later key wins", `{"k": 1, "K": 2}`, map[string]string{"k": "2"}},
		{"moved key wins over a later plain one", `{"K": 1, "k": 2}`, map[string]string{"k": "1"}},
		{"repeated key", `{"k": 1, "k": 2}`, map[string]string{"k": "2"}},
		{"lone quote", `{"\"": 1}`, map[string]string{`"`: "1"}},
		{"null value", `{"k": null}`, map[string]string{"k": "null"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row, err := ParseJSONRow(tt.text)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for k, v := range row {
				got[k] = classifyJSON(v).String()
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestJSONColumnError(t *testing.T) {
	_, err := FromJSON(Int, "notanint")
	got := errText(JSONColumnError(err, "v"))
	if want := "error (Invalid 0x2200): Error decoding JSON value for v: Unable to make int from 'notanint'"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if JSONColumnError(nil, "v") != nil {
		t.Error("nil error wrapped")
	}
}

func TestFormatJSONRowShortInputs(t *testing.T) {
	// Fewer types or values than names must not panic.
	got := FormatJSONRow([]string{"a", "B", "c"}, []*Type{Int}, [][]byte{{0, 0, 0, 1}, {1}})
	if want := `{"a": 1, "\"B\"": "0x01", "c": null}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// jsonLossless reports whether v of type t survives ToJSON and FromJSON
// exactly. Not so: decimals (JSON numbers become doubles), NaN and
// infinite floats (null), empty values other than those of text, blob,
// uuid, timestamp, int, bigint, inet, duration, float and double (an empty
// boolean comes back false, an empty tuple or UDT as all nulls),
// timestamps before 1 AD (the era is not printed), times outside a day,
// zero durations (printed as ""), IPv4-mapped addresses (printed as IPv4),
// counters (not settable from JSON), and sets and maps, which come back
// sorted.
func jsonLossless(t *Type, v []byte) bool {
	if v == nil {
		return true
	}
	if len(v) == 0 {
		switch t.Kind {
		case KindAscii, KindVarchar, KindBlob, KindUUID, KindTimeuuid, KindTimestamp,
			KindInt, KindBigint, KindInet, KindDuration, KindFloat, KindDouble:
			return true
		}
		return false
	}
	switch t.Kind {
	case KindDecimal, KindCounter, KindSet, KindMap:
		return false
	case KindFloat:
		f := float64(math.Float32frombits(beUint32(v)))
		return !math.IsNaN(f) && !math.IsInf(f, 0)
	case KindDouble:
		f := math.Float64frombits(beUint64(v))
		return !math.IsNaN(f) && !math.IsInf(f, 0)
	case KindTimestamp:
		// Years 1 to 9999: toJson prints earlier years as their year of
		// era and later ones with a '+', which the parser refuses.
		ms := int64(beUint64(v))
		return ms >= -62135596800000 && ms <= 253402300799999
	case KindTime:
		n := int64(beUint64(v))
		return n >= 0 && n < nanosPerDay
	case KindDuration:
		m, d, n, _ := DecodeDuration(v)
		return m != 0 || d != 0 || n != 0
	case KindInet:
		return len(v) != 16 || !isIPv4Mapped(v)
	case KindList:
		elems, _ := DecodeCollection(v)
		for _, e := range elems {
			if !jsonLossless(t.Elem(), e) {
				return false
			}
		}
	case KindTuple, KindUDT:
		comps, _ := DecodeTuple(t, v)
		for i, c := range comps {
			if !jsonLossless(t.Elems[i], c) {
				return false
			}
		}
	}
	return true
}

func beUint32(v []byte) uint32 {
	return uint32(v[0])<<24 | uint32(v[1])<<16 | uint32(v[2])<<8 | uint32(v[3])
}
func beUint64(v []byte) uint64 { return uint64(beUint32(v))<<32 | uint64(beUint32(v[4:])) }

// J1-J3 (doc.go): ToJSON is valid JSON, FromJSON's values validate, a
// second round trip changes nothing, and lossless values come back equal.
func TestJSONRoundTrip(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		typ := genType(2).Draw(rt, "type")
		v := genValue(typ, false).Draw(rt, "value")
		if Validate(typ, v) != nil {
			return
		}
		out := ToJSON(typ, v)
		if !json.Valid([]byte(out)) {
			rt.Fatalf("%s: ToJSON(%x) = %s is not valid JSON", typ, v, out)
		}
		if containsKind(typ, KindCounter) {
			return
		}
		back, err := FromJSON(typ, decodeTestJSONRapid(rt, out))
		if err != nil {
			if jsonLossless(typ, v) {
				rt.Fatalf("%s: %x -> %s -> %v", typ, v, out, err)
			}
			return
		}
		if err := validJSONValue(typ, back); err != nil {
			rt.Fatalf("%s: %s -> %x does not validate: %v", typ, out, back, err)
		}
		if jsonLossless(typ, v) && Compare(typ, back, v) != 0 {
			rt.Fatalf("%s: %x -> %s -> %x", typ, v, out, back)
		}
		out2 := ToJSON(typ, back)
		again, err := FromJSON(typ, decodeTestJSONRapid(rt, out2))
		if err != nil || ToJSON(typ, again) != out2 {
			rt.Fatalf("%s: not stable: %s -> %s -> %s (%v)", typ, out, out2, ToJSON(typ, again), err)
		}
	})
}

// validJSONValue is JSON invariant 2 (doc.go) for a value FromJSON
// returned: it validates, or it is the empty duration that "" gives.
func validJSONValue(typ *Type, v []byte) error {
	if len(v) == 0 && v != nil && typ.Kind == KindDuration {
		return nil
	}
	return Validate(typ, v)
}

// validJSONError is JSON invariant 2 (doc.go) for an error FromJSON
// returned: Invalid, or the Server error of a Java exception Cassandra
// does not catch.
func validJSONError(err error) bool {
	e := cqlerr.As(err)
	return e.Code == cqlerr.Invalid || e.Code == cqlerr.ServerError && strings.HasPrefix(e.Message, "java.lang.")
}

func decodeTestJSONRapid(rt *rapid.T, text string) any {
	v, err := decodeJSONText(text)
	if err != nil {
		rt.Fatalf("bad JSON %q: %v", text, err)
	}
	return v
}

func containsKind(t *Type, k Kind) bool {
	if t.Kind == k {
		return true
	}
	for _, e := range t.Elems {
		if containsKind(e, k) {
			return true
		}
	}
	return false
}

// ToJSON never panics and always writes valid JSON, whatever the bytes.
func TestToJSONMalformed(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		typ := genType(2).Draw(rt, "type")
		v := genValue(typ, true).Draw(rt, "value")
		if out := ToJSON(typ, v); !json.Valid([]byte(out)) {
			rt.Fatalf("%s: ToJSON(%x) = %s is not valid JSON", typ, v, out)
		}
	})
}

func FuzzFromJSON(f *testing.F) {
	f.Add(uint8(0), `123`)
	f.Add(uint8(19), `[1, 2, 3]`)
	f.Add(uint8(21), `{"a": 1, "b": 2}`)
	f.Add(uint8(23), `[1, "x", "1.5"]`)
	f.Add(uint8(24), `{"1e2": [1.5, 2]}`)
	f.Add(uint8(25), `{"a": "q", "B": "[1]", "\"b\"": null}`)
	f.Add(uint8(14), `"2026-01-20 06:00:00.000Z"`)
	f.Fuzz(func(t *testing.T, ti uint8, text string) {
		typ := fuzzType(ti)
		v, err := decodeJSONText(text)
		if err != nil {
			return
		}
		out, err := FromJSON(typ, v)
		if err != nil {
			if !validJSONError(err) {
				t.Fatalf("%s: %q: error %v is not Invalid", typ, text, err)
			}
			return
		}
		if err := validJSONValue(typ, out); err != nil {
			t.Fatalf("%s: %q -> %x does not validate: %v", typ, text, out, err)
		}
		if j := ToJSON(typ, out); !json.Valid([]byte(j)) {
			t.Fatalf("%s: %q -> %s is not valid JSON", typ, text, j)
		}
	})
}

func FuzzToJSON(f *testing.F) {
	f.Add(uint8(0), []byte{0, 0, 0, 1})
	f.Add(uint8(14), []byte{0, 0, 1, 0x8b, 0, 0, 0, 0})
	f.Add(uint8(22), []byte{0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 1})
	f.Add(uint8(24), []byte{0, 0, 0, 1, 0, 0, 0, 16, 0x10, 0, 0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, ti uint8, v []byte) {
		typ := fuzzType(ti)
		if out := ToJSON(typ, v); !json.Valid([]byte(out)) {
			t.Fatalf("%s: ToJSON(%x) = %s is not valid JSON", typ, v, out)
		}
	})
}

func FuzzParseJSONRow(f *testing.F) {
	f.Add(`{"k": 0, "\"Foo\"": [1, {"a": null}], "K": "x"}`)
	f.Add(`null`)
	f.Add(`[1]`)
	f.Fuzz(func(t *testing.T, text string) {
		row, err := ParseJSONRow(text)
		if err != nil {
			if !cqlerr.Is(err, cqlerr.Invalid) {
				t.Fatalf("%q: error %v is not Invalid", text, err)
			}
			return
		}
		keys := sortedKeys(row)
		if !sort.StringsAreSorted(keys) {
			t.Fatal("unsorted")
		}
		_ = CheckJSONRowColumns(row, keys[:len(keys)/2])
	})
}

func benchJSONRow() ([]string, []*Type, [][]byte) {
	i, _ := EncodeInt(Int, 123456)
	list := EncodeCollection([][]byte{[]byte("alpha"), []byte("beta"), []byte("gamma")})
	return []string{"id", "name", "ts", "tags", "Score"},
		[]*Type{Int, Text, Timestamp, ListOf(Text), Double},
		[][]byte{i, []byte("a moderately long \"quoted\" text value"), EncodeTimestamp(1768888800000), list, EncodeDouble(123.456)}
}

func BenchmarkFormatJSONRow(b *testing.B) {
	names, types, values := benchJSONRow()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = FormatJSONRow(names, types, values)
	}
}

func BenchmarkParseJSONRow(b *testing.B) {
	names, types, values := benchJSONRow()
	text := FormatJSONRow(names, types, values)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		row, err := ParseJSONRow(text)
		if err != nil {
			b.Fatal(err)
		}
		for j, n := range names {
			if _, err := FromJSON(types[j], row[n]); err != nil {
				b.Fatal(err)
			}
		}
	}
}
