package types

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/partita-db/partita/internal/cqlerr"
)

// Cassandra decodes JSON with Jackson into plain Java objects and each
// type's fromJSONObject inspects their classes: a string is a String, a
// true or false a Boolean, an integer an Integer, Long or BigInteger by
// size, any other number a Double, an array an ArrayList and an object a
// LinkedHashMap. Error messages name those classes and print the objects
// with toString, so decoded Go values are classified the same way.

// javaKind is the Java class Jackson would have produced for a value.
type javaKind uint8

const (
	javaNull javaKind = iota
	javaString
	javaInteger
	javaLong
	javaBigInteger
	javaDouble
	javaBoolean
	javaList
	javaMap
	javaObject // a Go value no JSON decoder produces
)

var javaClasses = [...]struct{ simple, full string }{
	javaNull:       {"null", "null"},
	javaString:     {"String", "java.lang.String"},
	javaInteger:    {"Integer", "java.lang.Integer"},
	javaLong:       {"Long", "java.lang.Long"},
	javaBigInteger: {"BigInteger", "java.math.BigInteger"},
	javaDouble:     {"Double", "java.lang.Double"},
	javaBoolean:    {"Boolean", "java.lang.Boolean"},
	javaList:       {"ArrayList", "java.util.ArrayList"},
	javaMap:        {"LinkedHashMap", "java.util.LinkedHashMap"},
	javaObject:     {"Object", "java.lang.Object"},
}

// jsonValue is one decoded JSON value with its Java class.
type jsonValue struct {
	kind javaKind
	str  string         // javaString
	num  *big.Int       // javaInteger, javaLong, javaBigInteger
	dbl  float64        // javaDouble
	bool bool           // javaBoolean
	list []any          // javaList
	obj  map[string]any // javaMap
}

// classifyJSON sorts a value decoded by encoding/json (numbers as
// json.Number or float64) into Jackson's classes.
func classifyJSON(v any) jsonValue {
	switch x := v.(type) {
	case nil:
		return jsonValue{kind: javaNull}
	case string:
		return jsonValue{kind: javaString, str: x}
	case bool:
		return jsonValue{kind: javaBoolean, bool: x}
	case json.Number:
		return classifyNumber(string(x))
	case float64:
		return jsonValue{kind: javaDouble, dbl: x}
	case float32:
		return jsonValue{kind: javaDouble, dbl: float64(x)}
	case int:
		return integerValue(big.NewInt(int64(x)))
	case int64:
		return integerValue(big.NewInt(x))
	case int32:
		return integerValue(big.NewInt(int64(x)))
	case []any:
		return jsonValue{kind: javaList, list: x}
	case map[string]any:
		return jsonValue{kind: javaMap, obj: x}
	}
	return jsonValue{kind: javaObject}
}

// classifyNumber: an integer literal is an Integer, Long or BigInteger by
// size; a fraction or exponent makes a Double (Double.parseDouble,
// overflowing to an infinity).
func classifyNumber(text string) jsonValue {
	if !strings.ContainsAny(text, ".eE") {
		if n, ok := new(big.Int).SetString(text, 10); ok {
			return integerValue(n)
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	var numErr *strconv.NumError
	if err != nil && !(errors.As(err, &numErr) && numErr.Err == strconv.ErrRange) {
		return jsonValue{kind: javaString, str: text}
	}
	return jsonValue{kind: javaDouble, dbl: f}
}

func integerValue(n *big.Int) jsonValue {
	switch {
	case n.IsInt64() && n.Int64() >= math.MinInt32 && n.Int64() <= math.MaxInt32:
		return jsonValue{kind: javaInteger, num: n}
	case n.IsInt64():
		return jsonValue{kind: javaLong, num: n}
	}
	return jsonValue{kind: javaBigInteger, num: n}
}

func (j jsonValue) isNumber() bool {
	switch j.kind {
	case javaInteger, javaLong, javaBigInteger, javaDouble:
		return true
	}
	return false
}

// className is getClass().getSimpleName().
func (j jsonValue) className() string { return javaClasses[j.kind].simple }

// String is the value's Java toString(): numbers as Java prints them,
// lists as [a, b], objects as {k=v} (keys sorted, Go maps having no
// order).
func (j jsonValue) String() string {
	var b strings.Builder
	j.writeJava(&b)
	return b.String()
}

func (j jsonValue) writeJava(b *strings.Builder) {
	switch j.kind {
	case javaNull:
		b.WriteString("null")
	case javaString:
		b.WriteString(j.str)
	case javaInteger, javaLong, javaBigInteger:
		b.WriteString(j.num.String())
	case javaDouble:
		b.WriteString(javaFloatString(j.dbl, 64))
	case javaBoolean:
		b.WriteString(strconv.FormatBool(j.bool))
	case javaList:
		b.WriteByte('[')
		for i, e := range j.list {
			if i > 0 {
				b.WriteString(", ")
			}
			classifyJSON(e).writeJava(b)
		}
		b.WriteByte(']')
	case javaMap:
		b.WriteByte('{')
		for i, k := range sortedKeys(j.obj) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(k)
			b.WriteByte('=')
			classifyJSON(j.obj[k]).writeJava(b)
		}
		b.WriteByte('}')
	default:
		b.WriteString("java.lang.Object")
	}
}

// expected is the "Expected X, but got a Class: value" error most
// fromJSONObject implementations raise.
func (j jsonValue) expected(what string) error {
	return cqlerr.Invalidf("Expected %s, but got a %s: %s", what, j.className(), j)
}

// classCastMessage is the message of the ClassCastException a cast of the
// value to String raises (Java 11 and later).
func (j jsonValue) classCastMessage() string {
	c := javaClasses[j.kind].full
	return "class " + c + " cannot be cast to class java.lang.String (" + c +
		" and java.lang.String are in module java.base of loader 'bootstrap')"
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// decodeJSONText decodes the first JSON value of text as Jackson's
// ObjectMapper.readValue does (json_parse.go), numbers as json.Number so
// that integers keep their size and decimals their digits.
func decodeJSONText(text string) (any, error) {
	return newJSONParser(text).parseRoot()
}

// DecodeJSON decodes the text fromJson() receives into the value FromJSON
// takes (FromJsonFct: an undecodable text is "Could not decode JSON string
// '%s': %s"; the caller reports it as the function's failure).
func DecodeJSON(text string) (any, error) {
	v, err := decodeJSONText(text)
	if err != nil {
		return nil, cqlerr.Invalidf("Could not decode JSON string '%s': %s", text, err)
	}
	return v, nil
}

// ParseJSONRow decodes the object of INSERT JSON into column values keyed
// by column name, as Json.parseJson and handleCaseSensitivity do: a key in
// double quotes ("\"Name\"") names a case-sensitive column, any other key
// is lower-cased; when two keys name one column the later one, in the
// object's order, wins. Values are as FromJSON takes them (JSON null is a
// nil value, which differs from an absent column under DEFAULT UNSET).
// Errors: "Got null for INSERT JSON values" and "Could not decode JSON
// string as a map: ...".
func ParseJSONRow(text string) (map[string]any, error) {
	keys, vals, err := decodeJSONObject(text)
	if err != nil {
		return nil, err
	}
	return normalizeJSONKeys(keys, vals), nil
}

// decodeJSONObject reads a top-level JSON object, keeping its keys in
// order (a repeated key keeps its first place and its last value).
func decodeJSONObject(text string) ([]string, map[string]any, error) {
	keys, vals, ok, err := newJSONParser(text).parseRootObject()
	if err != nil {
		return nil, nil, cqlerr.Invalidf("Could not decode JSON string as a map: %s. (String was: %s)", err, text)
	}
	if !ok {
		return nil, nil, cqlerr.Invalidf("Got null for INSERT JSON values")
	}
	return keys, vals, nil
}

// normalizeJSONKeys applies Json.handleCaseSensitivity to keys in order:
// "\"Name\"" becomes Name, other keys are lower-cased, each move
// overwriting whatever the target key held.
func normalizeJSONKeys(keys []string, vals map[string]any) map[string]any {
	out := make(map[string]any, len(keys))
	for _, k := range keys {
		out[k] = vals[k]
	}
	for _, k := range keys {
		target := k
		if len(k) >= 2 && k[0] == '"' && k[len(k)-1] == '"' {
			target = k[1 : len(k)-1]
		} else {
			target = strings.ToLower(k)
		}
		if target == k {
			continue
		}
		v := out[k]
		delete(out, k)
		out[target] = v
	}
	return out
}

// JSONColumnError words a FromJSON error for INSERT JSON's column as
// Json.parseJson words a MarshalException: "Error decoding JSON value for
// <column>: <message>". Other errors (not Invalid, or raised by Cassandra
// as an InvalidRequestException, as a duration's are) are returned as
// they are.
func JSONColumnError(err error, column string) error {
	if !IsMarshalError(err) {
		return err
	}
	return cqlerr.Invalidf("Error decoding JSON value for %s: %s", column, cqlerr.As(err).Message)
}

// IsMarshalError reports whether err, from FromJSON, stands for a
// MarshalException in Cassandra: an Invalid error not raised as an
// InvalidRequestException (see requestError).
func IsMarshalError(err error) bool {
	var request *requestError
	return err != nil && cqlerr.Is(err, cqlerr.Invalid) && !errors.As(err, &request)
}

// CheckJSONRowColumns returns INSERT JSON's error for a key of values
// that names none of columns ("JSON values map contains unrecognized
// column: %s"; the first in sorted order), or nil.
func CheckJSONRowColumns(values map[string]any, columns []string) error {
	known := make(map[string]bool, len(columns))
	for _, c := range columns {
		known[c] = true
	}
	for _, k := range sortedKeys(values) {
		if !known[k] {
			return cqlerr.Invalidf("JSON values map contains unrecognized column: %s", k)
		}
	}
	return nil
}
