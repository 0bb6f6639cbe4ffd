package types

import (
	"bytes"
	"encoding/binary"
)

// Compare orders two serialized values of type t as Cassandra's
// AbstractType.compare does (src/java/org/apache/cassandra/db/marshal/):
// the empty value first; booleans false < true; numbers numerically
// (float and double as Java's Float.compare/Double.compare); text, ascii,
// blob, inet, duration and custom types by unsigned bytes; uuid as
// UUIDType, timeuuid as TimeUUIDType; date as an unsigned day number and
// time in byte order (TimeType is BYTE_ORDER; valid times are positive);
// frozen collections, tuples and UDTs component by component.
//
// Beyond Cassandra: null (nil) sorts before the empty value, a tuple's
// absent trailing components compare as null, and a value its type cannot
// parse sorts after every valid one (by bytes). Compare agrees exactly
// with the key encoding (doc.go, K1).
func Compare(t *Type, a, b []byte) int {
	switch {
	case a == nil || b == nil:
		return boolCmp(a != nil, b != nil)
	case len(a) == 0 || len(b) == 0:
		return boolCmp(len(a) != 0, len(b) != 0)
	}
	c, ok := compareValues(t, a, b)
	if ok {
		return c
	}
	// At least one side is malformed: valid values sort first.
	wa, wb := wellFormed(t, a), wellFormed(t, b)
	if wa != wb {
		return boolCmp(!wa, !wb)
	}
	if wa {
		// Both parse at the top level but a nested part does not; the
		// nested comparison already applied the rule, so this is rare.
		return c
	}
	return bytes.Compare(a, b)
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// compareValues compares two non-empty values; ok is false if either does
// not parse as t.
func compareValues(t *Type, a, b []byte) (int, bool) {
	switch t.Kind {
	case KindTinyint:
		return compareSigned(a, b, 1)
	case KindSmallint:
		return compareSigned(a, b, 2)
	case KindInt:
		return compareSigned(a, b, 4)
	case KindBigint, KindCounter, KindTimestamp:
		return compareSigned(a, b, 8)
	case KindDate:
		return compareUnsigned(a, b, 4)
	case KindTime:
		return compareUnsigned(a, b, 8)
	case KindBoolean:
		if len(a) != 1 || len(b) != 1 {
			return 0, false
		}
		return boolCmp(a[0] != 0, b[0] != 0), true
	case KindFloat:
		if len(a) != 4 || len(b) != 4 {
			return 0, false
		}
		return cmpUint64(uint64(floatKey32(a)), uint64(floatKey32(b))), true
	case KindDouble:
		if len(a) != 8 || len(b) != 8 {
			return 0, false
		}
		return cmpUint64(floatKey64(a), floatKey64(b)), true
	case KindUUID:
		return compareUUID(a, b)
	case KindTimeuuid:
		return compareTimeUUID(a, b)
	case KindVarint:
		return compareVarint(a, b), true
	case KindDecimal:
		pa, oka := parseDecimalParts(a)
		pb, okb := parseDecimalParts(b)
		if !oka || !okb {
			return 0, false
		}
		return compareDecimalParts(pa, pb), true
	case KindList, KindSet:
		return compareLists(t, a, b)
	case KindMap:
		return compareMaps(t, a, b)
	case KindTuple, KindUDT:
		return compareTuples(t, a, b)
	}
	return bytes.Compare(a, b), true
}

// compareUnsigned compares fixed-width values as unsigned bytes.
func compareUnsigned(a, b []byte, width int) (int, bool) {
	if len(a) != width || len(b) != width {
		return 0, false
	}
	return bytes.Compare(a, b), true
}

// compareSigned compares fixed-width two's complement integers: the first
// byte signed, the rest unsigned.
func compareSigned(a, b []byte, width int) (int, bool) {
	if len(a) != width || len(b) != width {
		return 0, false
	}
	if a[0] != b[0] {
		return cmpInt(int(int8(a[0])), int(int8(b[0]))), true
	}
	return bytes.Compare(a[1:], b[1:]), true
}

func cmpUint64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func floatKey32(v []byte) uint32 {
	bits := binary.BigEndian.Uint32(v)
	if isNaN32(bits) {
		bits = canonicalNaN32
	}
	return orderedFloat32(bits)
}

func floatKey64(v []byte) uint64 {
	bits := binary.BigEndian.Uint64(v)
	if isNaN64(bits) {
		bits = canonicalNaN64
	}
	return orderedFloat64(bits)
}

// compareUUID is UUIDType.compareCustom: version, then the timestamp for
// version 1 (else the high long unsigned), then the low long unsigned.
func compareUUID(a, b []byte) (int, bool) {
	if len(a) != 16 || len(b) != 16 {
		return 0, false
	}
	va, vb := a[6]>>4, b[6]>>4
	if va != vb {
		return cmpInt(int(va), int(vb)), true
	}
	ma, mb := binary.BigEndian.Uint64(a), binary.BigEndian.Uint64(b)
	if va == 1 {
		ma, mb = reorderTimestamp(ma), reorderTimestamp(mb)
	}
	if c := cmpUint64(ma, mb); c != 0 {
		return c, true
	}
	return bytes.Compare(a[8:], b[8:]), true
}

// compareTimeUUID is TimeUUIDType.compareCustom: the reordered high long
// signed, then the low long as signed bytes.
func compareTimeUUID(a, b []byte) (int, bool) {
	if len(a) != 16 || len(b) != 16 {
		return 0, false
	}
	ma := int64(reorderTimestamp(binary.BigEndian.Uint64(a)))
	mb := int64(reorderTimestamp(binary.BigEndian.Uint64(b)))
	if c := cmpInt64(ma, mb); c != 0 {
		return c, true
	}
	for i := 8; i < 16; i++ {
		if a[i] != b[i] {
			return cmpInt(int(int8(a[i])), int(int8(b[i]))), true
		}
	}
	return 0, true
}

// compareVarint orders varints numerically, ignoring redundant sign bytes
// (IntegerType.compareIntegers).
func compareVarint(a, b []byte) int {
	ma, _ := minimalVarint(a)
	mb, _ := minimalVarint(b)
	sa, sb := varintSign(ma), varintSign(mb)
	if sa != sb {
		return cmpInt(sa, sb)
	}
	if len(ma) != len(mb) {
		return cmpInt(len(ma), len(mb)) * sa
	}
	// Same sign and width: two's complement order is unsigned byte order.
	return bytes.Compare(ma, mb)
}

// compareLists is ListType.compareListOrSet: element by element, then the
// shorter first.
func compareLists(t *Type, a, b []byte) (int, bool) {
	elem := t.Elem()
	ia, oka := newElemIter(a, 1)
	ib, okb := newElemIter(b, 1)
	if elem == nil || !oka || !okb {
		return 0, false
	}
	return compareElems(&ia, &ib, func(int) *Type { return elem })
}

// compareMaps is MapType.compareMaps: key, then value, entry by entry,
// then the smaller map first.
func compareMaps(t *Type, a, b []byte) (int, bool) {
	if t.Key() == nil {
		return 0, false
	}
	ia, oka := newElemIter(a, 2)
	ib, okb := newElemIter(b, 2)
	if !oka || !okb {
		return 0, false
	}
	return compareElems(&ia, &ib, func(i int) *Type { return t.Elems[i%2] })
}

func compareElems(ia, ib *elemIter, typeOf func(int) *Type) (int, bool) {
	c := 0
	for i := 0; ; i++ {
		na, nb := ia.next(), ib.next()
		if !na || !nb {
			// Drain both to find structural errors past the difference.
			moreA, moreB := na, nb
			for na {
				na = ia.next()
			}
			for nb {
				nb = ib.next()
			}
			if ia.failed || ib.failed {
				return 0, false
			}
			if c != 0 {
				return c, true
			}
			return boolCmp(moreA, moreB), true
		}
		if c == 0 {
			c = Compare(typeOf(i), ia.value, ib.value)
		}
	}
}

// compareTuples compares component by component; absent trailing
// components are null.
func compareTuples(t *Type, a, b []byte) (int, bool) {
	ca, oka := splitTuple(t, a)
	cb, okb := splitTuple(t, b)
	if !oka || !okb {
		return 0, false
	}
	for i, ct := range t.Elems {
		if c := Compare(ct, ca[i], cb[i]); c != 0 {
			return c, true
		}
	}
	return 0, true
}

// splitTuple is DecodeTuple without error values.
func splitTuple(t *Type, v []byte) ([][]byte, bool) {
	out := make([][]byte, len(t.Elems))
	for i := range out {
		if len(v) == 0 {
			return out, true
		}
		c, rest, ok := readValue(v)
		if !ok {
			return nil, false
		}
		out[i], v = c, rest
	}
	return out, len(v) == 0
}

// wellFormed reports whether the key encoding can parse v as t at the top
// level (the malformed marker is used otherwise).
func wellFormed(t *Type, v []byte) bool {
	_, ok := appendKeyBody(nil, t, v)
	return ok
}
