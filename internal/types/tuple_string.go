package types

import (
	"strings"

	"github.com/partita-db/partita/internal/cqlerr"
)

// TupleFromString reads the string form of a tuple (or UDT) value, as
// Cassandra reads a scalar constant assigned to a tuple
// (TupleType.fromString): fields are separated by ':' not preceded by a
// backslash, "@" is a null field, "\:" and "\@" stand for ':' and '@', and
// each field is read by its type's own string form. Fewer fields than the
// type has leave the rest absent (null); the empty string is a value with
// no field.
func TupleFromString(t *Type, s string) ([]byte, error) {
	fields := splitTupleString(s)
	if len(fields) > len(t.Elems) {
		return nil, cqlerr.Invalidf("Invalid tuple literal: too many elements. Type %s expects %d but got %d", t, len(t.Elems), len(fields))
	}
	components := make([][]byte, len(fields))
	for i, f := range fields {
		if f == "@" {
			continue
		}
		f = strings.ReplaceAll(strings.ReplaceAll(f, `\:`, ":"), `\@`, "@")
		v, err := typeFromString(t.Elems[i], f)
		if err != nil {
			return nil, err
		}
		components[i] = v
	}
	return EncodeTuple(components), nil
}

// splitTupleString splits on each ':' not preceded by '\'
// (AbstractCompositeType.split); the empty string has no field.
func splitTupleString(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	prev := 0
	for i := 0; i < len(s); i++ {
		if s[i] != ':' || i > 0 && s[i-1] == '\\' {
			continue
		}
		out = append(out, s[prev:i])
		prev = i + 1
	}
	return append(out, s[prev:])
}

// typeFromString is AbstractType.fromString for a tuple field: blobs,
// collections and custom types read hex digits (no 0x), tuples and UDTs
// their own string form, and the numeric and uuid types read the empty
// string as an empty value.
func typeFromString(t *Type, s string) ([]byte, error) {
	switch {
	case t.Kind == KindTuple || t.Kind == KindUDT:
		return TupleFromString(t, s)
	case t.Kind == KindBlob || t.Kind == KindCustom:
		return parseHexLiteral(s)
	case t.IsCollection():
		// Cassandra stores these bytes unchecked; Partita refuses a
		// malformed collection rather than store it.
		v, err := parseHexLiteral(s)
		if err == nil {
			err = Validate(t, v)
		}
		return v, err
	case s == "" && (t.IsNumeric() || t.Kind == KindUUID || t.Kind == KindTimeuuid || t.Kind == KindCounter):
		return []byte{}, nil
	}
	return parseNative(t, LitString, s)
}
