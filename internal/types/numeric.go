package types

import (
	"encoding/binary"
	"math"
	"math/big"
	"strings"
)

// Varints are big-endian two's complement; the canonical (minimal) form has
// no redundant leading 0x00/0xFF byte. Cassandra accepts and compares
// non-minimal forms numerically, so 0x0001 == 0x01.

// minimalVarint returns v without redundant leading sign bytes, and how
// many it dropped. v must be non-empty.
func minimalVarint(v []byte) ([]byte, int) {
	i := 0
	for i < len(v)-1 {
		if v[i] == 0x00 && v[i+1]&0x80 == 0 || v[i] == 0xFF && v[i+1]&0x80 != 0 {
			i++
			continue
		}
		break
	}
	return v[i:], i
}

// varintSign returns -1, 0 or 1 for a minimal varint.
func varintSign(m []byte) int {
	switch {
	case m[0]&0x80 != 0:
		return -1
	case len(m) == 1 && m[0] == 0:
		return 0
	}
	return 1
}

// varintMagnitude returns |x| of a non-zero minimal varint as big-endian
// bytes without leading zeros.
func varintMagnitude(m []byte) []byte {
	if m[0]&0x80 == 0 {
		if m[0] == 0 {
			return m[1:]
		}
		return m
	}
	mag := negateTwos(m)
	for len(mag) > 1 && mag[0] == 0 {
		mag = mag[1:]
	}
	return mag
}

// negateTwos returns the two's complement negation of b (same width).
func negateTwos(b []byte) []byte {
	out := make([]byte, len(b))
	carry := 1
	for i := len(b) - 1; i >= 0; i-- {
		s := int(^b[i]) + carry
		out[i] = byte(s)
		carry = s >> 8
	}
	return out
}

// varintFromMagnitude rebuilds the minimal varint of ±mag.
func varintFromMagnitude(mag []byte, negative bool) []byte {
	if !negative {
		if mag[0]&0x80 != 0 {
			return append([]byte{0}, mag...)
		}
		return append([]byte(nil), mag...)
	}
	m := negateTwos(append([]byte{0}, mag...))
	m, _ = minimalVarint(m)
	return m
}

// appendVarintKey writes a sign class, then for non-zero values the
// magnitude's length (ordered) and bytes, both complemented for negatives.
// Redundant sign bytes are dropped: they decode in minimal form.
func appendVarintKey(dst, v []byte) []byte {
	m, _ := minimalVarint(v)
	switch varintSign(m) {
	case 0:
		dst = append(dst, classZero)
	case 1:
		mag := varintMagnitude(m)
		dst = append(dst, classPositive)
		dst = appendOrderedLength(dst, uint64(len(mag)))
		dst = append(dst, mag...)
	default:
		mag := varintMagnitude(m)
		dst = append(dst, classNegative)
		start := len(dst)
		dst = appendOrderedLength(dst, uint64(len(mag)))
		dst = append(dst, mag...)
		invert(dst[start:])
	}
	return dst
}

func (r *keyReader) varint() ([]byte, error) {
	class, ok := r.readByte()
	if !ok {
		return nil, r.fail("short varint")
	}
	var m []byte
	switch class {
	case classZero:
		m = []byte{0}
	case classPositive, classNegative:
		mag, err := r.magnitude(class == classNegative)
		if err != nil {
			return nil, err
		}
		m = varintFromMagnitude(mag, class == classNegative)
	default:
		return nil, r.fail("bad varint class")
	}
	return m, nil
}

// magnitude reads an ordered length and that many magnitude bytes,
// complemented when negative.
func (r *keyReader) magnitude(negative bool) ([]byte, error) {
	n, ok := r.orderedLength(negative)
	if !ok || n == 0 || n > uint64(len(r.buf)-r.pos) {
		return nil, r.fail("bad magnitude length")
	}
	mag, _ := r.appendN(nil, int(n))
	if negative {
		invert(mag)
	}
	if mag[0] == 0 {
		return nil, r.fail("non-minimal magnitude")
	}
	return mag, nil
}

// decimalParts describes a decimal value as sign × 0.digits × 10^exp, with
// digits free of trailing zeros (empty for zero). ok is false when v is
// too short to hold a scale and an unscaled value.
type decimalParts struct {
	sign   int
	digits string
	exp    int64
	scale  int32
}

func parseDecimalParts(v []byte) (decimalParts, bool) {
	if len(v) < 5 {
		return decimalParts{}, false
	}
	p := decimalParts{scale: int32(binary.BigEndian.Uint32(v))}
	m, _ := minimalVarint(v[4:])
	p.sign = varintSign(m)
	if p.sign == 0 {
		return p, true
	}
	s := new(big.Int).SetBytes(varintMagnitude(m)).Text(10)
	p.exp = int64(len(s)) - int64(p.scale)
	p.digits = strings.TrimRight(s, "0")
	return p, true
}

// compareDecimalParts orders decimals numerically (BigDecimal.compareTo).
func compareDecimalParts(a, b decimalParts) int {
	if a.sign != b.sign {
		return cmpInt(a.sign, b.sign)
	}
	if a.sign == 0 {
		return 0
	}
	c := cmpInt64(a.exp, b.exp)
	if c == 0 {
		c = strings.Compare(a.digits, b.digits)
	}
	return c * a.sign
}

// appendDecimalKey writes a sign class and, for non-zero values, the
// exponent (8 bytes, sign-flipped) and the digits packed two per byte
// (1 + 10a + b) ending with 0x00, complemented for negatives. Equal
// numbers (1.0, 1.00) encode identically; see decodeCanonicalDecimal.
func appendDecimalKey(dst, v []byte) ([]byte, bool) {
	p, ok := parseDecimalParts(v)
	if !ok {
		return dst, false
	}
	switch {
	case p.sign == 0:
		return append(dst, classZero), true
	case p.sign > 0:
		dst = append(dst, classPositive)
	default:
		dst = append(dst, classNegative)
	}
	start := len(dst)
	dst = binary.BigEndian.AppendUint64(dst, uint64(p.exp)^(1<<63))
	d := p.digits
	for i := 0; i < len(d); i += 2 {
		pair := 10 * (d[i] - '0')
		if i+1 < len(d) {
			pair += d[i+1] - '0'
		}
		dst = append(dst, 1+pair)
	}
	dst = append(dst, 0)
	if p.sign < 0 {
		invert(dst[start:])
	}
	return dst, true
}

func (r *keyReader) decimal() ([]byte, error) {
	class, ok := r.readByte()
	if !ok {
		return nil, r.fail("short decimal")
	}
	switch class {
	case classZero:
		return []byte{0, 0, 0, 0, 0}, nil
	case classPositive, classNegative:
	default:
		return nil, r.fail("bad decimal class")
	}
	var flip byte
	if class == classNegative {
		flip = 0xFF
	}
	e, ok := r.uint64()
	if !ok {
		return nil, r.fail("short decimal exponent")
	}
	if flip != 0 {
		e = ^e
	}
	exp := int64(e ^ (1 << 63))
	var digits []byte
	for {
		b, ok := r.readByte()
		if !ok {
			return nil, r.fail("unterminated decimal digits")
		}
		b ^= flip
		if b == 0 {
			break
		}
		if b > 100 {
			return nil, r.fail("bad decimal digit pair")
		}
		digits = append(digits, '0'+(b-1)/10, '0'+(b-1)%10)
	}
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	if len(digits) == 0 || digits[0] == '0' {
		return nil, r.fail("bad decimal digits")
	}
	v, ok := canonicalDecimal(string(digits), exp, class == classNegative)
	if !ok {
		return nil, r.fail("decimal exponent out of range")
	}
	return v, nil
}

// maxPlainZeros is how many trailing zeros a canonical decimal writes out
// in its unscaled value (scale 0) before it switches to a negative scale.
const maxPlainZeros = 32

// canonicalDecimal serializes ±0.digits×10^exp in the canonical form a key
// decodes to: no trailing zeros after the decimal point, scale 0 for
// integers with up to maxPlainZeros trailing zeros (so 1.00 decodes as 1,
// 100 stays 100), a negative scale beyond that.
func canonicalDecimal(digits string, exp int64, negative bool) ([]byte, bool) {
	x := exp - int64(len(digits)) // value = digits × 10^x
	var scale int64
	zeros := int64(0)
	switch {
	case x < 0:
		scale = -x
	case x <= maxPlainZeros:
		zeros = x
	default:
		scale = max(-x, math.MinInt32)
		zeros = x + scale
	}
	if scale > math.MaxInt32 || zeros > maxKeyZeros {
		return nil, false
	}
	u, _ := new(big.Int).SetString(digits+strings.Repeat("0", int(zeros)), 10)
	if negative {
		u.Neg(u)
	}
	out := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(digits)/2+1), uint32(int32(scale)))
	return append(out, EncodeBigInt(u)...), true
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

var bigOne = big.NewInt(1)

// EncodeBigInt serializes x as a minimal varint.
func EncodeBigInt(x *big.Int) []byte {
	if x.Sign() >= 0 {
		b := x.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			return append([]byte{0}, b...)
		}
		return b
	}
	n := new(big.Int).Not(x).BitLen()/8 + 1
	y := new(big.Int).Lsh(bigOne, uint(8*n))
	return y.Add(y, x).Bytes()
}

// varintToBig decodes a non-empty varint.
func varintToBig(v []byte) *big.Int {
	x := new(big.Int).SetBytes(v)
	if len(v) > 0 && v[0]&0x80 != 0 {
		x.Sub(x, new(big.Int).Lsh(bigOne, uint(8*len(v))))
	}
	return x
}
