package types

import (
	"encoding/binary"
	"math"
	"sort"

	"github.com/partita-db/partita/internal/cqlerr"
)

// Serialized collections (native protocol v3+, and Cassandra's internal
// form for frozen collections): [int] n, then n elements (list, set) or n
// key/value pairs (map), each as [bytes] (int length, -1 = null).
// Tuples and UDTs: one [bytes] per component, trailing ones may be absent.

// readValue reads one [bytes] value; a negative length is null.
func readValue(b []byte) (v, rest []byte, ok bool) {
	if len(b) < 4 {
		return nil, b, false
	}
	n := int32(binary.BigEndian.Uint32(b))
	if n < 0 {
		return nil, b[4:], true
	}
	if int64(n) > int64(len(b)-4) {
		return nil, b, false
	}
	return b[4 : 4+n : 4+n], b[4+n:], true
}

// appendValue appends v as [bytes] (nil as length -1).
func appendValue(dst, v []byte) []byte {
	if v == nil {
		return binary.BigEndian.AppendUint32(dst, math.MaxUint32)
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(v)))
	return append(dst, v...)
}

// elemIter walks the values of a serialized collection. It never trusts
// the element count for allocation: it stops when the bytes run out.
type elemIter struct {
	rest      []byte
	remaining int64
	value     []byte
	failed    bool
}

// newElemIter starts on a collection holding n×perElem values.
func newElemIter(v []byte, perElem int) (elemIter, bool) {
	if len(v) < 4 {
		return elemIter{}, false
	}
	n := int32(binary.BigEndian.Uint32(v))
	if n < 0 {
		return elemIter{}, false
	}
	return elemIter{rest: v[4:], remaining: int64(n) * int64(perElem)}, true
}

// next advances to the next value; at the end it reports false, and sets
// failed if the value was truncated or has bytes after its last element.
func (it *elemIter) next() bool {
	if it.remaining == 0 {
		it.failed = len(it.rest) != 0
		return false
	}
	v, rest, ok := readValue(it.rest)
	if !ok {
		it.failed = true
		return false
	}
	it.value, it.rest = v, rest
	it.remaining--
	return true
}

// EncodeCollection serializes list or set elements (in the given order).
func EncodeCollection(elems [][]byte) []byte {
	size := 4
	for _, e := range elems {
		size += 4 + len(e)
	}
	out := binary.BigEndian.AppendUint32(make([]byte, 0, size), uint32(len(elems)))
	for _, e := range elems {
		out = appendValue(out, e)
	}
	return out
}

// EncodeMap serializes a map from parallel key and value slices (in the
// given order; Cassandra stores map entries sorted by key).
func EncodeMap(keys, vals [][]byte) []byte {
	size := 4
	for i := range keys {
		size += 8 + len(keys[i]) + len(vals[i])
	}
	out := binary.BigEndian.AppendUint32(make([]byte, 0, size), uint32(len(keys)))
	for i := range keys {
		out = appendValue(appendValue(out, keys[i]), vals[i])
	}
	return out
}

// DecodeCollection splits a serialized list or set into its elements (which
// alias v). The empty value decodes to no elements.
func DecodeCollection(v []byte) ([][]byte, error) {
	if len(v) == 0 {
		return nil, nil
	}
	it, ok := newElemIter(v, 1)
	if !ok {
		return nil, cqlerr.Invalidf("Not enough bytes to read a collection")
	}
	var out [][]byte
	for it.next() {
		out = append(out, it.value)
	}
	if it.failed {
		return nil, collectionError(it)
	}
	return out, nil
}

// DecodeMap splits a serialized map into parallel keys and values (which
// alias v). The empty value decodes to no entries.
func DecodeMap(v []byte) (keys, vals [][]byte, err error) {
	if len(v) == 0 {
		return nil, nil, nil
	}
	it, ok := newElemIter(v, 2)
	if !ok {
		return nil, nil, cqlerr.Invalidf("Not enough bytes to read a map")
	}
	for i := 0; it.next(); i++ {
		if i%2 == 0 {
			keys = append(keys, it.value)
		} else {
			vals = append(vals, it.value)
		}
	}
	if it.failed {
		if it.remaining == 0 {
			return nil, nil, cqlerr.Invalidf("Unexpected extraneous bytes after map value")
		}
		return nil, nil, cqlerr.Invalidf("Not enough bytes to read a map")
	}
	return keys, vals, nil
}

func collectionError(it elemIter) error {
	if it.remaining == 0 {
		return cqlerr.Invalidf("Unexpected extraneous bytes after collection value")
	}
	return cqlerr.Invalidf("Not enough bytes to read a collection")
}

// EncodeTuple serializes tuple or UDT components; a nil component is null.
func EncodeTuple(components [][]byte) []byte {
	size := 0
	for _, c := range components {
		size += 4 + len(c)
	}
	out := make([]byte, 0, size)
	for _, c := range components {
		out = appendValue(out, c)
	}
	return out
}

// DecodeTuple splits a tuple or UDT value of type t into exactly
// len(t.Elems) components (aliasing v); null and absent trailing
// components are nil.
func DecodeTuple(t *Type, v []byte) ([][]byte, error) {
	out := make([][]byte, len(t.Elems))
	rest := v
	for i := range out {
		if len(rest) == 0 {
			return out, nil
		}
		c, r, ok := readValue(rest)
		if !ok {
			return nil, cqlerr.Invalidf("Not enough bytes to read %dth component", i)
		}
		out[i], rest = c, r
	}
	if len(rest) != 0 {
		if t.Kind == KindUDT {
			return nil, cqlerr.Invalidf("Invalid remaining data after end of UDT value")
		}
		return nil, cqlerr.Invalidf("Invalid remaining data after end of tuple value")
	}
	return out, nil
}

// SortCollection puts a frozen set or map value into the form Cassandra
// stores: set elements and map keys in Compare order without duplicates
// (for a repeated map key the last value wins). Lists are returned as
// they are.
func SortCollection(t *Type, v []byte) ([]byte, error) {
	switch {
	case len(v) == 0 || t.Kind == KindList:
		return v, nil
	case t.Kind == KindSet:
		elems, err := DecodeCollection(v)
		if err != nil {
			return nil, err
		}
		sort.SliceStable(elems, func(i, j int) bool { return Compare(t.Elems[0], elems[i], elems[j]) < 0 })
		out := elems[:0]
		for i, e := range elems {
			if i == 0 || Compare(t.Elems[0], out[len(out)-1], e) != 0 {
				out = append(out, e)
			}
		}
		return EncodeCollection(out), nil
	case t.Kind == KindMap:
		keys, vals, err := DecodeMap(v)
		if err != nil {
			return nil, err
		}
		idx := make([]int, len(keys))
		for i := range idx {
			idx[i] = i
		}
		kt := t.Elems[0]
		sort.SliceStable(idx, func(a, b int) bool { return Compare(kt, keys[idx[a]], keys[idx[b]]) < 0 })
		var ok, ov [][]byte
		for _, i := range idx {
			if n := len(ok); n > 0 && Compare(kt, ok[n-1], keys[i]) == 0 {
				ov[n-1] = vals[i] // stable sort: later duplicates come last
				continue
			}
			ok, ov = append(ok, keys[i]), append(ov, vals[i])
		}
		return EncodeMap(ok, ov), nil
	}
	return nil, cqlerr.Invalidf("SortCollection: %s is not a collection", t)
}
