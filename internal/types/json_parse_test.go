package types

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzJSONParser checks that the Jackson-compatible parser never panics,
// and that it reads any text encoding/json finds valid as encoding/json
// does (outside Jackson's own limits: nesting depth and number length,
// and lone surrogates, which Java writes as '?').
func FuzzJSONParser(f *testing.F) {
	for _, seed := range []string{`{"a": [1, 2.5e3, -0, "x\u00e9\n"], "b": {"c": null}}`, `[`, `{"k": 01}`,
		`"\ud800"`, `-Infinity`, `1.`, "{\"a\":\t true }", `[[[]]]`, `{"a" 1}`, `nul`, `0x`, ` `} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got, err := decodeJSONText(text)
		if !json.Valid([]byte(text)) || strings.Contains(text, `\u`) || strings.Count(text, "[")+strings.Count(text, "{") >= jacksonMaxDepth || len(text) > jacksonMaxNumber {
			return
		}
		if err != nil {
			t.Fatalf("%q: valid JSON refused: %v", text, err)
		}
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: got %#v, encoding/json %#v", text, got, want)
		}
	})
}

// TestJSONParserErrors pins Jackson's messages and locations for a few
// shapes the engine's testdata/json_errors does not reach (the last three
// as Cassandra 5.0.6 answers them in fromJson()).
func TestJSONParserErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"{\n  \"a\": x}", "com.fasterxml.jackson.core.JsonParseException: Unrecognized token 'x': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')\n at [Source: " + jacksonSource + "; line: 2, column: 9]"},
		{"[\u0001]", "com.fasterxml.jackson.core.JsonParseException: Illegal character ((CTRL-CHAR, code 1)): only regular white space (\\r, \\n, \\t) is allowed between tokens\n at [Source: " + jacksonSource + "; line: 1, column: 3]"},
		{"[\"a\u0001\"]", "com.fasterxml.jackson.core.JsonParseException: Illegal unquoted character ((CTRL-CHAR, code 1)): has to be escaped using backslash to be included in string value\n at [Source: " + jacksonSource + "; line: 1, column: 4]"},
		{"[\"\U0001F600\", x]", "com.fasterxml.jackson.core.JsonParseException: Unrecognized token 'x': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')\n at [Source: " + jacksonSource + "; line: 1, column: 9]"},
	} {
		_, err := decodeJSONText(tc.text)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got %v\nwant %s", tc.text, err, tc.want)
		}
	}
}
