package types

import (
	"encoding/hex"

	"github.com/partita-db/partita/internal/cqlerr"
)

// Validate checks that v is a well-formed serialized value of type t, as
// Cassandra's TypeSerializer.validate does (src/java/org/apache/cassandra/
// serializers/*Serializer.java), with its MarshalException messages as
// Invalid errors. nil (null) is always valid here: whether null is allowed
// is the caller's decision.
func Validate(t *Type, v []byte) error {
	if v == nil {
		return nil
	}
	n := len(v)
	switch t.Kind {
	case KindAscii:
		for _, b := range v {
			if b >= 0x80 {
				return cqlerr.Invalidf("Invalid byte for ascii: %d", int8(b))
			}
		}
	case KindVarchar:
		if !validUTF8(v) {
			return cqlerr.Invalidf("String didn't validate.")
		}
	case KindBoolean:
		if n > 1 {
			return cqlerr.Invalidf("Expected 1 or 0 byte value (%d)", n)
		}
	case KindInt:
		if n != 4 && n != 0 {
			return cqlerr.Invalidf("Expected 4 or 0 byte int (%d)", n)
		}
	case KindBigint, KindCounter:
		if n != 8 && n != 0 {
			return cqlerr.Invalidf("Expected 8 or 0 byte long (%d)", n)
		}
	case KindSmallint:
		if n != 2 {
			return cqlerr.Invalidf("Expected 2 bytes for a smallint (%d)", n)
		}
	case KindTinyint:
		if n != 1 {
			return cqlerr.Invalidf("Expected 1 byte for a tinyint (%d)", n)
		}
	case KindFloat:
		if n != 4 && n != 0 {
			return cqlerr.Invalidf("Expected 4 or 0 byte value for a float (%d)", n)
		}
	case KindDouble:
		if n != 8 && n != 0 {
			return cqlerr.Invalidf("Expected 8 or 0 byte value for a double (%d)", n)
		}
	case KindTimestamp:
		if n != 8 && n != 0 {
			return cqlerr.Invalidf("Expected 8 or 0 byte long for date (%d)", n)
		}
	case KindDate:
		if n != 4 {
			return cqlerr.Invalidf("Expected 4 byte long for date (%d)", n)
		}
	case KindTime:
		// Cassandra checks only the size, not the 0..86399999999999 range.
		if n != 8 {
			return cqlerr.Invalidf("Expected 8 byte long for time (%d)", n)
		}
	case KindUUID, KindTimeuuid:
		if n != 16 && n != 0 {
			return cqlerr.Invalidf("UUID should be 16 or 0 bytes (%d)", n)
		}
		if t.Kind == KindTimeuuid && n == 16 && v[6]&0xF0 != 0x10 {
			return cqlerr.Invalidf("Invalid version for TimeUUID type.")
		}
	case KindInet:
		if n != 0 && n != 4 && n != 16 {
			return cqlerr.Invalidf("Expected 4 or 16 byte inetaddress; got %s", hex.EncodeToString(v))
		}
	case KindDecimal:
		if n != 0 && n < 4 {
			return cqlerr.Invalidf("Expected 0 or at least 4 bytes (%d)", n)
		}
	case KindDuration:
		return validateDuration(v)
	case KindList, KindSet:
		return validateList(t, v)
	case KindMap:
		return validateMap(t, v)
	case KindTuple, KindUDT:
		return validateTuple(t, v)
	}
	// blob, varint, custom: any bytes.
	return nil
}

// validateList and validateMap follow the collection serializers'
// deserializeForNativeProtocol, which is what binding a collection value
// runs (CollectionsTest.testInvalidInputFor*): the empty value and a
// negative element count are rejected, as are null elements.
func validateList(t *Type, v []byte) error {
	what := "list"
	if t.Kind == KindSet {
		what = "set"
	}
	return validateElems(v, what, 1, t.Elems)
}

func validateMap(t *Type, v []byte) error {
	return validateElems(v, "map", 2, t.Elems)
}

// validateElems checks a collection holding perElem values per element,
// the i-th value of an element being of type types[i].
func validateElems(v []byte, what string, perElem int, types []*Type) error {
	if len(v) < 4 {
		return cqlerr.Invalidf("Not enough bytes to read a %s", what)
	}
	it, ok := newElemIter(v, perElem)
	if !ok {
		return cqlerr.Invalidf("The data cannot be deserialized as a %s", what)
	}
	for i := 0; it.next(); i++ {
		if it.value == nil {
			return cqlerr.Invalidf("Null value read when not allowed")
		}
		if err := Validate(types[i%perElem], it.value); err != nil {
			return err
		}
	}
	if it.failed {
		if it.remaining == 0 {
			return cqlerr.Invalidf("Unexpected extraneous bytes after %s value", what)
		}
		return cqlerr.Invalidf("Not enough bytes to read a %s", what)
	}
	return nil
}

// validateTuple follows TupleSerializer and UserTypeSerializer: fewer
// components than declared are fine (added fields), more are not.
func validateTuple(t *Type, v []byte) error {
	udt := t.Kind == KindUDT
	rest := v
	field := 0 // UserTypeSerializer counts only the non-null fields it read
	for i, ct := range t.Elems {
		if len(rest) == 0 {
			return nil
		}
		idx, name := i, ""
		if udt {
			idx = field
			if i < len(t.FieldNames) {
				name = t.FieldNames[i]
			}
		}
		if len(rest) < 4 {
			if udt {
				return cqlerr.Invalidf("Not enough bytes to read size of %dth field %s", idx, name)
			}
			return cqlerr.Invalidf("Not enough bytes to read size of %dth component", idx)
		}
		c, r, ok := readValue(rest)
		if !ok {
			if udt {
				return cqlerr.Invalidf("Not enough bytes to read %dth field %s", idx, name)
			}
			return cqlerr.Invalidf("Not enough bytes to read %dth component", idx)
		}
		rest = r
		if c == nil {
			continue
		}
		if err := Validate(ct, c); err != nil {
			return err
		}
		field++
	}
	if len(rest) != 0 {
		if udt {
			return cqlerr.Invalidf("Invalid remaining data after end of UDT value")
		}
		return cqlerr.Invalidf("Invalid remaining data after end of tuple value")
	}
	return nil
}

func validateDuration(v []byte) error {
	if len(v) < 3 {
		return cqlerr.Invalidf("Expected at least 3 bytes for a duration (%d)", len(v))
	}
	months, days, nanos, ok := readDurationVInts(v)
	if !ok {
		return cqlerr.Invalidf("Not enough bytes to read a duration")
	}
	if months != int64(int32(months)) {
		return cqlerr.Invalidf("The duration months must be a 32 bits integer but was: %d", months)
	}
	if days != int64(int32(days)) {
		return cqlerr.Invalidf("The duration days must be a 32 bits integer but was: %d", days)
	}
	if !(months >= 0 && days >= 0 && nanos >= 0 || months <= 0 && days <= 0 && nanos <= 0) {
		return cqlerr.Invalidf("The duration months, days and nanoseconds must be all of the same sign (%d, %d, %d)", months, days, nanos)
	}
	return nil
}

// validUTF8 is Cassandra's UTF8Serializer.UTF8Validator state machine. It
// is laxer than strict UTF-8 (it accepts the modified-UTF-8 NUL C0 80,
// surrogates and lead bytes F5–F7), and values Cassandra accepts must be
// accepted here too.
func validUTF8(v []byte) bool {
	const (
		start = iota
		two
		two80
		threeA0BF
		three80BF1
		three80BF2
		four90BF
		four80BF3
	)
	state := start
	for _, u := range v {
		b := int8(u)
		switch state {
		case start:
			switch {
			case b >= 0:
			case b>>5 == -2:
				if u == 0xC0 {
					state = two80
				} else if b&0x1e == 0 {
					return false
				} else {
					state = two
				}
			case b>>4 == -2:
				if u == 0xE0 {
					state = threeA0BF
				} else {
					state = three80BF2
				}
			case b>>3 == -2:
				if u == 0xF0 {
					state = four90BF
				} else {
					state = four80BF3
				}
			default:
				return false
			}
		case two:
			if u&0xc0 != 0x80 {
				return false
			}
			state = start
		case two80:
			if u != 0x80 {
				return false
			}
			state = start
		case threeA0BF:
			if u&0xe0 == 0x80 {
				return false
			}
			state = three80BF1
		case three80BF1:
			if u&0xc0 != 0x80 {
				return false
			}
			state = start
		case three80BF2:
			if u&0xc0 != 0x80 {
				return false
			}
			state = three80BF1
		case four90BF:
			if u&0x30 == 0 {
				return false
			}
			state = three80BF2
		case four80BF3:
			if u&0xc0 != 0x80 {
				return false
			}
			state = three80BF2
		}
	}
	return state == start
}
