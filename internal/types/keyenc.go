package types

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// Key encoding: see doc.go, invariants K1–K6.
//
// A component is a marker byte followed by a body:
//
//	0x01 null       no body (tuple/UDT components only)
//	0x02 empty      no body (the empty value)
//	0x03 value      type-specific body
//	0x04 malformed  escaped raw bytes (a value its type cannot parse)
//
// A DESC component is the bitwise NOT of its whole ASC encoding.
const (
	markerNull      byte = 0x01
	markerEmpty     byte = 0x02
	markerValue     byte = 0x03
	markerMalformed byte = 0x04

	// endOfElements closes a collection's element sequence; it sorts
	// before any element marker, so a shorter collection sorts first.
	endOfElements byte = 0x00
)

// Sign classes for varint and decimal bodies.
const (
	classNegative byte = 0x01
	classZero     byte = 0x02
	classPositive byte = 0x03
)

// ErrMalformedKey reports a key that was not produced by AppendKey or
// AppendBytesKey (storage corruption).
var ErrMalformedKey = errors.New("types: malformed key")

// maxKeyZeros caps the trailing zeros a decimal or varint key may ask the
// decoder to restore; real values are far smaller (clustering values are
// limited to 64 KiB), so a larger count means corruption.
const maxKeyZeros = 1 << 20

// AppendKey appends the order-preserving encoding of value v of type t to
// dst. nil encodes null (valid only inside tuples and UDTs; callers reject
// null key columns). desc inverts the encoding so the component sorts in
// descending order. v should be valid for t (Validate); a value that does
// not parse is still encoded, after every valid value, and round-trips.
func AppendKey(dst []byte, t *Type, v []byte, desc bool) []byte {
	start := len(dst)
	dst = appendKeyASC(dst, t, v)
	if desc {
		invert(dst[start:])
	}
	return dst
}

func invert(b []byte) {
	for i := range b {
		b[i] = ^b[i]
	}
}

func appendKeyASC(dst []byte, t *Type, v []byte) []byte {
	switch {
	case v == nil:
		return append(dst, markerNull)
	case len(v) == 0:
		return append(dst, markerEmpty)
	}
	start := len(dst)
	out, ok := appendKeyBody(append(dst, markerValue), t, v)
	if ok {
		return out
	}
	return appendEscaped(append(out[:start], markerMalformed), v)
}

// appendKeyBody appends the body of a non-empty value; ok is false when v
// is not a well-formed value of t (dst may then hold partial output).
func appendKeyBody(dst []byte, t *Type, v []byte) ([]byte, bool) {
	switch t.Kind {
	case KindTinyint:
		return appendSignedKey(dst, v, 1)
	case KindSmallint:
		return appendSignedKey(dst, v, 2)
	case KindInt:
		return appendSignedKey(dst, v, 4)
	case KindBigint, KindCounter, KindTimestamp:
		return appendSignedKey(dst, v, 8)
	case KindDate:
		return appendUnsignedKey(dst, v, 4)
	case KindTime:
		return appendUnsignedKey(dst, v, 8)
	case KindBoolean:
		return appendBooleanKey(dst, v)
	case KindFloat:
		return appendFloatKey(dst, v, 4)
	case KindDouble:
		return appendFloatKey(dst, v, 8)
	case KindUUID:
		return appendUUIDKey(dst, v)
	case KindTimeuuid:
		return appendTimeUUIDKey(dst, v)
	case KindVarint:
		return appendVarintKey(dst, v), true
	case KindDecimal:
		return appendDecimalKey(dst, v)
	case KindList, KindSet:
		return appendListKey(dst, t, v)
	case KindMap:
		return appendMapKey(dst, t, v)
	case KindTuple, KindUDT:
		return appendTupleKey(dst, t, v)
	default:
		// text, ascii, blob, inet, duration, custom: unsigned byte order.
		return appendEscaped(dst, v), true
	}
}

// appendUnsignedKey writes a fixed-width value compared as unsigned bytes
// (date, and time, which TimeType compares in byte order).
func appendUnsignedKey(dst, v []byte, width int) ([]byte, bool) {
	if len(v) != width {
		return dst, false
	}
	return append(dst, v...), true
}

// appendSignedKey writes a fixed-width two's complement integer with the
// sign bit flipped, so unsigned byte order is numeric order.
func appendSignedKey(dst, v []byte, width int) ([]byte, bool) {
	if len(v) != width {
		return dst, false
	}
	dst = append(dst, v...)
	dst[len(dst)-width] ^= 0x80
	return dst, true
}

// appendBooleanKey: false 0x00, true (any non-zero byte) 0x01.
func appendBooleanKey(dst, v []byte) ([]byte, bool) {
	if len(v) != 1 {
		return dst, false
	}
	if v[0] == 0 {
		return append(dst, 0), true
	}
	return append(dst, 1), true
}

// appendFloatKey maps IEEE-754 bits to their total order (Java's
// Float.compare/Double.compare: -0.0 < 0.0, NaN above +Inf). Java compares
// every NaN equal, so all NaNs encode as the canonical one.
func appendFloatKey(dst, v []byte, width int) ([]byte, bool) {
	if len(v) != width {
		return dst, false
	}
	if width == 4 {
		return binary.BigEndian.AppendUint32(dst, floatKey32(v)), true
	}
	return binary.BigEndian.AppendUint64(dst, floatKey64(v)), true
}

const (
	canonicalNaN32 uint32 = 0x7fc00000
	canonicalNaN64 uint64 = 0x7ff8000000000000
)

func isNaN32(b uint32) bool { return b&0x7f800000 == 0x7f800000 && b&0x007fffff != 0 }
func isNaN64(b uint64) bool {
	return b&0x7ff0000000000000 == 0x7ff0000000000000 && b&0x000fffffffffffff != 0
}

func orderedFloat32(b uint32) uint32 {
	if b&0x80000000 != 0 {
		return ^b
	}
	return b ^ 0x80000000
}

func orderedFloat64(b uint64) uint64 {
	if b&0x8000000000000000 != 0 {
		return ^b
	}
	return b ^ 0x8000000000000000
}

func unorderFloat32(o uint32) uint32 {
	if o&0x80000000 != 0 {
		return o ^ 0x80000000
	}
	return ^o
}

func unorderFloat64(o uint64) uint64 {
	if o&0x8000000000000000 != 0 {
		return o ^ 0x8000000000000000
	}
	return ^o
}

// appendUUIDKey follows UUIDType.compare: version first; version 1 by
// timestamp (the reordered high long); others by the high long unsigned;
// then the low long unsigned.
func appendUUIDKey(dst, v []byte) ([]byte, bool) {
	if len(v) != 16 {
		return dst, false
	}
	version := v[6] >> 4
	dst = append(dst, version)
	msb := binary.BigEndian.Uint64(v[:8])
	if version == 1 {
		msb = reorderTimestamp(msb)
	}
	dst = binary.BigEndian.AppendUint64(dst, msb)
	return append(dst, v[8:]...), true
}

// appendTimeUUIDKey follows TimeUUIDType.compare: the reordered high long
// signed, then the low long as eight signed bytes.
func appendTimeUUIDKey(dst, v []byte) ([]byte, bool) {
	if len(v) != 16 {
		return dst, false
	}
	msb := reorderTimestamp(binary.BigEndian.Uint64(v[:8])) ^ (1 << 63)
	dst = binary.BigEndian.AppendUint64(dst, msb)
	lsb := binary.BigEndian.Uint64(v[8:]) ^ 0x8080808080808080
	return binary.BigEndian.AppendUint64(dst, lsb), true
}

// reorderTimestamp moves a version 1 UUID's time_hi, time_mid and time_low
// into significance order (TimeUUIDType.reorderTimestampBytes).
func reorderTimestamp(msb uint64) uint64 {
	return msb<<48 | (msb<<16)&0xFFFF00000000 | msb>>32
}

func unreorderTimestamp(r uint64) uint64 {
	return r>>48 | (r>>16)&0xFFFF0000 | r<<32
}

func appendListKey(dst []byte, t *Type, v []byte) ([]byte, bool) {
	elem := t.Elem()
	if elem == nil {
		return dst, false
	}
	it, ok := newElemIter(v, 1)
	if !ok {
		return dst, false
	}
	for it.next() {
		dst = appendKeyASC(dst, elem, it.value)
	}
	if it.failed {
		return dst, false
	}
	return append(dst, endOfElements), true
}

func appendMapKey(dst []byte, t *Type, v []byte) ([]byte, bool) {
	kt, vt := t.Key(), t.Value()
	if kt == nil {
		return dst, false
	}
	it, ok := newElemIter(v, 2)
	if !ok {
		return dst, false
	}
	for it.next() {
		dst = appendKeyASC(dst, kt, it.value)
		if !it.next() {
			return dst, false
		}
		dst = appendKeyASC(dst, vt, it.value)
	}
	if it.failed {
		return dst, false
	}
	return append(dst, endOfElements), true
}

// appendTupleKey writes every declared component, absent trailing ones as
// null (Compare treats them as equal).
func appendTupleKey(dst []byte, t *Type, v []byte) ([]byte, bool) {
	rest := v
	for _, ct := range t.Elems {
		if len(rest) == 0 {
			dst = append(dst, markerNull)
			continue
		}
		comp, r, ok := readValue(rest)
		if !ok {
			return dst, false
		}
		rest = r
		dst = appendKeyASC(dst, ct, comp)
	}
	return dst, len(rest) == 0
}

// appendEscaped writes b with each 0x00 as 0x00 0xFF and a 0x00 0x01
// terminator: prefix-free, order-preserving, and still both after
// inversion (0xFF 0x00 for an escaped zero, 0xFF 0xFE to end).
func appendEscaped(dst, b []byte) []byte {
	for {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			dst = append(dst, b...)
			break
		}
		dst = append(dst, b[:i+1]...)
		dst = append(dst, 0xFF)
		b = b[i+1:]
	}
	return append(dst, 0x00, 0x01)
}

// AppendBytesKey appends b as an escaped, order-preserving, self-delimiting
// byte string (always ascending): bytes.Compare of two encodings has the
// sign of bytes.Compare of the inputs.
func AppendBytesKey(dst, b []byte) []byte { return appendEscaped(dst, b) }

// DecodeBytesKey reverses AppendBytesKey, returning the byte string (never
// nil) and the bytes after it.
func DecodeBytesKey(src []byte) (b, rest []byte, err error) {
	r := keyReader{buf: src}
	b, err = r.escaped()
	if err != nil {
		return nil, src, err
	}
	return b, src[r.pos:], nil
}

// SkipBytesKey returns the bytes after one byte string written by
// AppendBytesKey, without decoding it.
func SkipBytesKey(src []byte) (rest []byte, err error) {
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], 0)
		if j < 0 || i+j+1 >= len(src) {
			return src, errors.New("unterminated byte string")
		}
		i += j + 1
		switch src[i] {
		case 0x01:
			return src[i+1:], nil
		case 0xFF:
			i++
		default:
			return src, errors.New("bad byte string escape")
		}
	}
}

// appendOrderedLength writes n so that byte order is numeric order: one
// byte below 0xF8, else 0xF7+k followed by n in k big-endian bytes.
func appendOrderedLength(dst []byte, n uint64) []byte {
	if n < 0xF8 {
		return append(dst, byte(n))
	}
	k := 1
	for n>>(8*k) != 0 {
		k++
	}
	dst = append(dst, byte(0xF7+k))
	for i := k - 1; i >= 0; i-- {
		dst = append(dst, byte(n>>(8*i)))
	}
	return dst
}

// DecodeKey decodes one component written by AppendKey with the same type
// and direction, returning the value (nil for null) and the bytes after it.
func DecodeKey(t *Type, src []byte, desc bool) (v []byte, rest []byte, err error) {
	r := keyReader{buf: src}
	if desc {
		r.inv = 0xFF
	}
	v, err = r.component(t)
	if err != nil {
		return nil, src, err
	}
	return v, src[r.pos:], nil
}

// keyReader reads a key, undoing the DESC inversion (inv = 0xFF) on the fly.
type keyReader struct {
	buf []byte
	pos int
	inv byte
}

func (r *keyReader) fail(what string) error {
	return fmt.Errorf("%w: %s at offset %d", ErrMalformedKey, what, r.pos)
}

func (r *keyReader) readByte() (byte, bool) {
	if r.pos >= len(r.buf) {
		return 0, false
	}
	b := r.buf[r.pos] ^ r.inv
	r.pos++
	return b, true
}

// appendN appends the next n decoded bytes to dst.
func (r *keyReader) appendN(dst []byte, n int) ([]byte, bool) {
	if n < 0 || n > len(r.buf)-r.pos {
		return dst, false
	}
	start := len(dst)
	dst = append(dst, r.buf[r.pos:r.pos+n]...)
	if r.inv != 0 {
		invert(dst[start:])
	}
	r.pos += n
	return dst, true
}

func (r *keyReader) uint64() (uint64, bool) {
	var b [8]byte
	if _, ok := r.appendN(b[:0], 8); !ok {
		return 0, false
	}
	return binary.BigEndian.Uint64(b[:]), true
}

// orderedLength reads appendOrderedLength's output; inverted says the
// bytes were complemented (negative numbers) on top of any DESC inversion.
func (r *keyReader) orderedLength(inverted bool) (uint64, bool) {
	var flip byte
	if inverted {
		flip = 0xFF
	}
	b, ok := r.readByte()
	if !ok {
		return 0, false
	}
	b ^= flip
	if b < 0xF8 {
		return uint64(b), true
	}
	k := int(b - 0xF7)
	var n uint64
	for i := 0; i < k; i++ {
		c, ok := r.readByte()
		if !ok {
			return 0, false
		}
		n = n<<8 | uint64(c^flip)
	}
	return n, true
}

// escaped reads an escaped byte string and its terminator.
func (r *keyReader) escaped() ([]byte, error) {
	// Fast path: no escaped zero before the terminator.
	if i := bytes.IndexByte(r.buf[r.pos:], r.inv); i >= 0 && r.pos+i+1 < len(r.buf) && r.buf[r.pos+i+1]^r.inv == 0x01 {
		out, _ := r.appendN(make([]byte, 0, i), i)
		r.pos += 2
		return out, nil
	}
	out := []byte{}
	for {
		i := bytes.IndexByte(r.buf[r.pos:], r.inv)
		if i < 0 || r.pos+i+1 >= len(r.buf) {
			return nil, r.fail("unterminated byte string")
		}
		out, _ = r.appendN(out, i)
		r.pos++ // the 0x00
		switch r.buf[r.pos] ^ r.inv {
		case 0xFF:
			out = append(out, 0)
			r.pos++
		case 0x01:
			r.pos++
			return out, nil
		default:
			return nil, r.fail("bad byte string escape")
		}
	}
}

func (r *keyReader) component(t *Type) ([]byte, error) {
	m, ok := r.readByte()
	if !ok {
		return nil, r.fail("missing component")
	}
	switch m {
	case markerNull:
		return nil, nil
	case markerEmpty:
		return []byte{}, nil
	case markerMalformed:
		// Only values the type cannot parse are written raw.
		v, err := r.escaped()
		if err == nil && (len(v) == 0 || wellFormed(t, v)) {
			return nil, r.fail("well-formed value under the malformed marker")
		}
		return v, err
	case markerValue:
		return r.body(t)
	}
	return nil, r.fail("bad component marker")
}

func (r *keyReader) body(t *Type) ([]byte, error) {
	switch t.Kind {
	case KindTinyint:
		return r.signed(1)
	case KindSmallint:
		return r.signed(2)
	case KindInt:
		return r.signed(4)
	case KindBigint, KindCounter, KindTimestamp:
		return r.signed(8)
	case KindDate:
		return r.fixed(4)
	case KindTime:
		return r.fixed(8)
	case KindBoolean:
		return r.boolean()
	case KindFloat:
		return r.float(4)
	case KindDouble:
		return r.float(8)
	case KindUUID:
		return r.uuid()
	case KindTimeuuid:
		return r.timeUUID()
	case KindVarint:
		return r.varint()
	case KindDecimal:
		return r.decimal()
	case KindList, KindSet:
		return r.list(t)
	case KindMap:
		return r.mapValue(t)
	case KindTuple, KindUDT:
		return r.tuple(t)
	default:
		return r.escaped()
	}
}

func (r *keyReader) fixed(n int) ([]byte, error) {
	v, ok := r.appendN(make([]byte, 0, n), n)
	if !ok {
		return nil, r.fail("short fixed-width value")
	}
	return v, nil
}

func (r *keyReader) signed(n int) ([]byte, error) {
	v, err := r.fixed(n)
	if err == nil {
		v[0] ^= 0x80
	}
	return v, err
}

func (r *keyReader) boolean() ([]byte, error) {
	b, ok := r.readByte()
	if !ok || b > 1 {
		return nil, r.fail("bad boolean")
	}
	return []byte{b}, nil
}

func (r *keyReader) float(n int) ([]byte, error) {
	v, err := r.fixed(n)
	if err != nil {
		return nil, err
	}
	// Only the canonical NaN is ever encoded.
	if n == 4 {
		bits := unorderFloat32(binary.BigEndian.Uint32(v))
		if isNaN32(bits) && bits != canonicalNaN32 {
			return nil, r.fail("non-canonical NaN")
		}
		binary.BigEndian.PutUint32(v, bits)
	} else {
		bits := unorderFloat64(binary.BigEndian.Uint64(v))
		if isNaN64(bits) && bits != canonicalNaN64 {
			return nil, r.fail("non-canonical NaN")
		}
		binary.BigEndian.PutUint64(v, bits)
	}
	return v, nil
}

func (r *keyReader) uuid() ([]byte, error) {
	version, ok := r.readByte()
	if !ok || version > 0x0F {
		return nil, r.fail("bad uuid version")
	}
	msb, ok := r.uint64()
	if !ok {
		return nil, r.fail("short uuid")
	}
	if version == 1 {
		msb = unreorderTimestamp(msb)
	}
	if byte(msb>>12)&0x0F != version {
		return nil, r.fail("uuid version mismatch")
	}
	v := binary.BigEndian.AppendUint64(make([]byte, 0, 16), msb)
	v, ok = r.appendN(v, 8)
	if !ok {
		return nil, r.fail("short uuid")
	}
	return v, nil
}

func (r *keyReader) timeUUID() ([]byte, error) {
	msb, ok1 := r.uint64()
	lsb, ok2 := r.uint64()
	if !ok1 || !ok2 {
		return nil, r.fail("short timeuuid")
	}
	v := binary.BigEndian.AppendUint64(make([]byte, 0, 16), unreorderTimestamp(msb^(1<<63)))
	return binary.BigEndian.AppendUint64(v, lsb^0x8080808080808080), nil
}

func (r *keyReader) list(t *Type) ([]byte, error) {
	elem := t.Elem()
	if elem == nil {
		return nil, r.fail("list type without element type")
	}
	out := []byte{0, 0, 0, 0}
	n := uint32(0)
	for {
		b, ok := r.readByte()
		if !ok {
			return nil, r.fail("unterminated collection")
		}
		if b == endOfElements {
			binary.BigEndian.PutUint32(out, n)
			return out, nil
		}
		r.pos--
		e, err := r.component(elem)
		if err != nil {
			return nil, err
		}
		out = appendValue(out, e)
		n++
	}
}

func (r *keyReader) mapValue(t *Type) ([]byte, error) {
	kt, vt := t.Key(), t.Value()
	if kt == nil {
		return nil, r.fail("map type without key type")
	}
	out := []byte{0, 0, 0, 0}
	n := uint32(0)
	for {
		b, ok := r.readByte()
		if !ok {
			return nil, r.fail("unterminated map")
		}
		if b == endOfElements {
			binary.BigEndian.PutUint32(out, n)
			return out, nil
		}
		r.pos--
		k, err := r.component(kt)
		if err != nil {
			return nil, err
		}
		v, err := r.component(vt)
		if err != nil {
			return nil, err
		}
		out = appendValue(appendValue(out, k), v)
		n++
	}
}

func (r *keyReader) tuple(t *Type) ([]byte, error) {
	out := []byte{}
	for _, ct := range t.Elems {
		c, err := r.component(ct)
		if err != nil {
			return nil, err
		}
		out = appendValue(out, c)
	}
	return out, nil
}
