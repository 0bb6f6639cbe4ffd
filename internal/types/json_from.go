package types

import (
	"encoding/binary"
	"encoding/hex"
	"math/big"
	"strconv"
	"strings"

	"github.com/partita-db/partita/internal/cqlerr"
)

// FromJSON converts a decoded JSON value (encoding/json output with
// UseNumber, or DecodeJSON's; a float64 counts as a number with a
// fraction, an int as an integer) to a value of type t as each
// AbstractType.fromJSONObject in Cassandra's db/marshal does:
//
//   - text and ascii take strings; uuid, timeuuid, inet, date, time and
//     duration take their string forms;
//   - int takes integers that fit, bigint also longs, both also numeric
//     strings; smallint and tinyint take numbers and strings by their text;
//     varint and decimal take anything whose text parses (JSON numbers with
//     a fraction are doubles first, as Jackson reads them);
//   - float and double take numbers and strings ("NaN" too); boolean takes
//     true, false and their strings;
//   - timestamp takes strings and integers beyond the int range (Jackson's
//     Long; smaller integers are rejected, as Cassandra rejects them);
//   - blob takes "0x..." strings;
//   - list, set and tuple take arrays, map and UDT objects, each also as a
//     string holding that JSON (how map keys of such types arrive); map
//     keys are parsed as the key type from their string form; UDT keys are
//     lower-cased unless in double quotes;
//   - the string "" is the empty value of text, ascii, int, bigint, float,
//     double, uuid, timeuuid, inet and timestamp (their fromString says
//     so), false for boolean, and an error for the other types.
//
// nil is null (nil, nil). Errors are Invalid with Cassandra's
// MarshalException messages; INSERT JSON words them with JSONColumnError.
// Sets and maps come back sorted without duplicates, as Cassandra stores
// them, and every value returned passes Validate.
func FromJSON(t *Type, v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	return fromJSON(t, classifyJSON(v))
}

func fromJSON(t *Type, j jsonValue) ([]byte, error) {
	if t == nil {
		return nil, cqlerr.Invalidf("Cannot convert a JSON value without a type")
	}
	switch t.Kind {
	case KindList, KindSet:
		return elemsFromJSON(t, j)
	case KindMap:
		return mapFromJSON(t, j)
	case KindTuple:
		return tupleFromJSON(t, j)
	case KindUDT:
		return udtFromJSON(t, j)
	}
	v, err := scalarFromJSON(t, j)
	if err != nil {
		return nil, err
	}
	// An empty smallint or tinyint parses but is not a value of its type
	// (Cassandra rejects it when the value is used). An empty duration
	// (from "") is stored as it is, as Cassandra stores it.
	if len(v) == 0 && t.Kind == KindDuration {
		return v, nil
	}
	if err := Validate(t, v); err != nil {
		return nil, err
	}
	return v, nil
}

func scalarFromJSON(t *Type, j jsonValue) ([]byte, error) {
	switch t.Kind {
	case KindAscii:
		if j.kind != javaString {
			return nil, j.expected("an ascii string")
		}
		if j.str == "" {
			return []byte{}, nil
		}
		return asciiFromString(j.str)
	case KindVarchar:
		if j.kind != javaString {
			return nil, j.expected("a UTF-8 string")
		}
		return append([]byte{}, strings.ToValidUTF8(j.str, "\uFFFD")...), nil
	case KindBoolean:
		return booleanFromJSON(j)
	case KindInt, KindBigint:
		return intFromJSON(t, j)
	case KindSmallint, KindTinyint:
		return shortFromJSON(t, j)
	case KindVarint:
		return varintFromJSON(j)
	case KindDecimal:
		return decimalFromJSON(j)
	case KindFloat, KindDouble:
		return floatFromJSON(t, j)
	case KindTimestamp:
		return timestampFromJSON(j)
	case KindDate, KindTime, KindUUID, KindTimeuuid, KindInet, KindDuration:
		return stringFormFromJSON(t, j)
	case KindBlob, KindCustom:
		return blobFromJSON(j)
	case KindCounter:
		// CounterColumnType.fromJSONObject is unsupported (counters are
		// never inserted).
		return nil, cqlerr.Invalidf("Counter values cannot be set from JSON")
	}
	return nil, cqlerr.Invalidf("Cannot convert a JSON value to type %s", t)
}

func booleanFromJSON(j jsonValue) ([]byte, error) {
	switch j.kind {
	case javaString:
		return booleanFromString(j.str)
	case javaBoolean:
		return EncodeBoolean(j.bool), nil
	}
	return nil, j.expected("a boolean value")
}

// intFromJSON is Int32Type and LongType.fromJSONObject: strings through
// fromString (the empty string is the empty value), numbers only when
// Jackson made them an Integer (or a Long, for bigint).
func intFromJSON(t *Type, j jsonValue) ([]byte, error) {
	bits, javaName, what := 32, "int", "an int value"
	if t.Kind == KindBigint {
		bits, javaName, what = 64, "long", "a bigint value"
	}
	switch {
	case j.kind == javaString:
		if j.str == "" {
			return []byte{}, nil
		}
		n, err := strconv.ParseInt(j.str, 10, bits)
		if err != nil || !javaIntSyntax(j.str) {
			return nil, cqlerr.Invalidf("Unable to make %s from '%s'", javaName, j.str)
		}
		return encodeFixedInt(n, bits/8), nil
	case j.kind == javaInteger || j.kind == javaLong && bits == 64:
		return encodeFixedInt(j.num.Int64(), bits/8), nil
	}
	return nil, j.expected(what)
}

// shortFromJSON is ShortType and ByteType.fromJSONObject: any string or
// number goes through fromString(String.valueOf(parsed)).
func shortFromJSON(t *Type, j jsonValue) ([]byte, error) {
	bits, javaName, what := 16, "short", "a short value"
	if t.Kind == KindTinyint {
		bits, javaName, what = 8, "byte", "a byte value"
	}
	if j.kind != javaString && !j.isNumber() {
		return nil, j.expected(what)
	}
	s := j.String()
	if s == "" {
		return []byte{}, nil
	}
	n, err := strconv.ParseInt(s, 10, bits)
	if err != nil || !javaIntSyntax(s) {
		return nil, cqlerr.Invalidf("Unable to make %s from '%s'", javaName, s)
	}
	return encodeFixedInt(n, bits/8), nil
}

// varintFromJSON is new BigInteger(parsed.toString()).
func varintFromJSON(j jsonValue) ([]byte, error) {
	s := j.String()
	x, ok := new(big.Int).SetString(s, 10)
	if !ok || !javaIntSyntax(s) {
		return nil, cqlerr.Invalidf("Value '%s' is not a valid representation of a varint value", s)
	}
	return EncodeBigInt(x), nil
}

// decimalFromJSON is new BigDecimal(parsed.toString()), so a JSON number
// with a fraction keeps only a double's digits ("1.10" becomes 1.1).
func decimalFromJSON(j jsonValue) ([]byte, error) {
	s := j.String()
	unscaled, scale, ok := parseJavaBigDecimal(s)
	if !ok {
		return nil, cqlerr.Invalidf("Value '%s' is not a valid representation of a decimal value", s)
	}
	return EncodeDecimal(unscaled, scale), nil
}

// floatFromJSON is FloatType and DoubleType.fromJSONObject: strings
// through fromString, numbers through floatValue()/doubleValue().
func floatFromJSON(t *Type, j jsonValue) ([]byte, error) {
	bits, name := 64, "double"
	if t.Kind == KindFloat {
		bits, name = 32, "float"
	}
	var f float64
	switch j.kind {
	case javaString:
		if j.str == "" {
			return []byte{}, nil
		}
		var ok bool
		if f, ok = parseJavaFloat(j.str, bits); !ok {
			return nil, cqlerr.Invalidf("Unable to make %s from '%s'", name, j.str)
		}
	case javaDouble:
		f = j.dbl
	case javaInteger, javaLong, javaBigInteger:
		bf := new(big.Float).SetInt(j.num)
		if bits == 32 {
			f32, _ := bf.Float32()
			return EncodeFloat(f32), nil
		}
		f, _ = bf.Float64()
	default:
		return nil, j.expected("a " + name + " value")
	}
	if bits == 32 {
		return EncodeFloat(float32(f)), nil
	}
	return EncodeDouble(f), nil
}

// timestampFromJSON is TimestampType.fromJSONObject: a Long is
// milliseconds, a string goes through fromString. An integer small enough
// to be an Integer is neither, and is rejected as Cassandra rejects it.
func timestampFromJSON(j jsonValue) ([]byte, error) {
	switch j.kind {
	case javaLong:
		return EncodeTimestamp(j.num.Int64()), nil
	case javaString:
		if j.str == "" {
			return []byte{}, nil
		}
		ms, err := parseTimestamp(j.str)
		if err != nil {
			return nil, err
		}
		return EncodeTimestamp(ms), nil
	}
	return nil, j.expected("a long or a datestring representation of a timestamp value")
}

var stringFormNames = map[Kind]string{
	KindDate:     "a string representation of a date value",
	KindTime:     "a string representation of a time value",
	KindUUID:     "a string representation of a uuid",
	KindTimeuuid: "a string representation of a timeuuid",
	KindInet:     "a string representation of an inet value",
	KindDuration: "a string representation of a duration",
}

// stringFormFromJSON handles the types that take only their string form
// (fromString((String) parsed)).
func stringFormFromJSON(t *Type, j jsonValue) ([]byte, error) {
	if j.kind != javaString {
		return nil, j.expected(stringFormNames[t.Kind])
	}
	s := j.str
	switch t.Kind {
	case KindDate:
		d, err := parseDate(s)
		if err != nil {
			return nil, err
		}
		return binary.BigEndian.AppendUint32(nil, d), nil
	case KindTime:
		n, err := parseTime(s)
		if err != nil {
			return nil, err
		}
		return EncodeTime(n)
	case KindInet:
		return inetFromString(s)
	}
	if s == "" {
		return []byte{}, nil // UUIDType.parse and DurationType.fromString
	}
	if t.Kind == KindDuration {
		return parseDuration(s)
	}
	return uuidFromString(t, s)
}

// blobFromJSON is BytesType.fromJSONObject: a "0x"-prefixed hex string.
func blobFromJSON(j jsonValue) ([]byte, error) {
	bad := func(why string) error {
		return cqlerr.Invalidf("Value '%s' is not a valid blob representation: %s", j, why)
	}
	if j.kind != javaString {
		return nil, bad(j.classCastMessage())
	}
	if !strings.HasPrefix(j.str, "0x") {
		return nil, bad("String representation of blob is missing 0x prefix: " + j.str)
	}
	v, err := hex.DecodeString(j.str[2:])
	if err != nil {
		return nil, bad("cannot parse '" + j.str[2:] + "' as hex bytes")
	}
	return append([]byte{}, v...), nil
}

// nestedJSON is what collections, tuples and UDTs do first: a string is
// itself JSON text (a map key of such a type arrives so) and is decoded.
func nestedJSON(j jsonValue) (jsonValue, error) {
	if j.kind != javaString {
		return j, nil
	}
	v, err := decodeJSONText(j.str)
	if err != nil {
		return jsonValue{}, cqlerr.Invalidf("Error decoding JSON string: %s", err.(*jacksonError).Message())
	}
	return classifyJSON(v), nil
}

// elemsFromJSON is ListType and SetType.fromJSONObject.
func elemsFromJSON(t *Type, j jsonValue) ([]byte, error) {
	j, err := nestedJSON(j)
	if err != nil {
		return nil, err
	}
	what := "list"
	if t.Kind == KindSet {
		what = "set"
	}
	if j.kind != javaList {
		if t.Kind == KindSet {
			return nil, j.expected("a list (representing a set)")
		}
		return nil, j.expected("a list")
	}
	elems := make([][]byte, len(j.list))
	for i, e := range j.list {
		if e == nil {
			return nil, cqlerr.Invalidf("Invalid null element in %s", what)
		}
		if elems[i], err = fromJSON(t.Elem(), classifyJSON(e)); err != nil {
			return nil, err
		}
	}
	return SortCollection(t, EncodeCollection(elems))
}

// mapFromJSON is MapType.fromJSONObject: keys are strings, parsed as the
// key type. Entries are taken in key order, so when two keys parse to the
// same value the later one wins.
func mapFromJSON(t *Type, j jsonValue) ([]byte, error) {
	j, err := nestedJSON(j)
	if err != nil {
		return nil, err
	}
	if j.kind != javaMap {
		return nil, j.expected("a map")
	}
	keys := sortedKeys(j.obj)
	kv, vv := make([][]byte, len(keys)), make([][]byte, len(keys))
	for i, k := range keys {
		val := j.obj[k]
		if val == nil {
			return nil, cqlerr.Invalidf("Invalid null value in map")
		}
		if kv[i], err = fromJSON(t.Key(), jsonValue{kind: javaString, str: k}); err != nil {
			return nil, err
		}
		if vv[i], err = fromJSON(t.Value(), classifyJSON(val)); err != nil {
			return nil, err
		}
	}
	return SortCollection(t, EncodeMap(kv, vv))
}

// tupleFromJSON is TupleType.fromJSONObject: an array with exactly one
// item per component, null items being null components.
func tupleFromJSON(t *Type, j jsonValue) ([]byte, error) {
	j, err := nestedJSON(j)
	if err != nil {
		return nil, err
	}
	if j.kind != javaList {
		return nil, j.expected("a list representation of a tuple")
	}
	switch n := len(t.Elems); {
	case len(j.list) > n:
		return nil, cqlerr.Invalidf("Tuple contains extra items (expected %d): %s", n, j)
	case len(j.list) < n:
		return nil, cqlerr.Invalidf("Tuple is missing items (expected %d): %s", n, j)
	}
	comps := make([][]byte, len(t.Elems))
	for i, e := range j.list {
		if e == nil {
			continue
		}
		if comps[i], err = fromJSON(t.Elems[i], classifyJSON(e)); err != nil {
			return nil, err
		}
	}
	return EncodeTuple(comps), nil
}

// udtFromJSON is UserType.fromJSONObject: an object keyed by field name
// (lower-cased unless in double quotes); absent and null fields are null,
// unknown ones an error.
func udtFromJSON(t *Type, j jsonValue) ([]byte, error) {
	j, err := nestedJSON(j)
	if err != nil {
		return nil, err
	}
	if j.kind != javaMap {
		return nil, j.expected("a map")
	}
	fields := normalizeJSONKeys(sortedKeys(j.obj), j.obj)
	comps := make([][]byte, len(t.Elems))
	found := 0
	for i := range t.Elems {
		if i >= len(t.FieldNames) {
			break
		}
		val := fields[t.FieldNames[i]]
		if val == nil {
			continue
		}
		if comps[i], err = fromJSON(t.Elems[i], classifyJSON(val)); err != nil {
			return nil, err
		}
		found++
	}
	if found != len(fields) {
		for _, k := range sortedKeys(fields) {
			if t.FieldIndex(k) < 0 {
				return nil, cqlerr.Invalidf("Unknown field '%s' in value of user defined type %s", k, t.Name)
			}
		}
	}
	return EncodeTuple(comps), nil
}
