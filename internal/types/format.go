package types

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/big"
	"net/netip"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// cqlsh's default precisions (cqlsh --float-precision / --double-precision).
const (
	floatPrecision  = 5
	doublePrecision = 12
)

// Format renders v as cqlsh prints it (pylib/cqlshlib/formatting.py): null
// as null, the empty value as nothing, text unquoted with control
// characters escaped, booleans True/False, timestamps
// 2026-01-20 06:00:00.000000+0000, blobs 0x..., floats with cqlsh's
// default precision, collections [1, 2], {'a': 1}, tuples (1, 'a'), UDTs
// {f: 1}. Used by test output.
func Format(t *Type, v []byte) string {
	var b strings.Builder
	formatValue(&b, t, v, false)
	return b.String()
}

// formatValue writes one value; quoted is true inside collections, where
// cqlsh quotes text, timestamps and inets.
func formatValue(b *strings.Builder, t *Type, v []byte, quoted bool) {
	switch {
	case v == nil:
		b.WriteString("null")
		return
	case len(v) == 0:
		return
	}
	if Validate(t, v) != nil {
		b.WriteString("0x")
		b.WriteString(hex.EncodeToString(v))
		return
	}
	switch t.Kind {
	case KindAscii, KindVarchar:
		writeCqlshText(b, v, quoted)
	case KindBoolean:
		if v[0] != 0 {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case KindTinyint, KindSmallint, KindInt, KindBigint, KindCounter:
		n, _ := Int64(t, v)
		b.WriteString(strconv.FormatInt(n, 10))
	case KindVarint:
		b.WriteString(varintToBig(v).String())
	case KindDecimal:
		// A 4-byte decimal passes validation but has no unscaled value
		// (Java's BigInteger rejects zero bytes): show the bytes.
		if u, scale, err := DecodeDecimal(v); err == nil {
			b.WriteString(bigDecimalString(u, scale))
		} else {
			b.WriteString("0x" + hex.EncodeToString(v))
		}
	case KindFloat:
		b.WriteString(cqlshFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(v))), floatPrecision))
	case KindDouble:
		b.WriteString(cqlshFloat(math.Float64frombits(binary.BigEndian.Uint64(v)), doublePrecision))
	case KindTimestamp:
		writeQuoted(b, cqlshTimestamp(int64(binary.BigEndian.Uint64(v))), quoted)
	case KindDate:
		b.WriteString(cqlshDate(v))
	case KindTime:
		b.WriteString(cqlshTime(int64(binary.BigEndian.Uint64(v))))
	case KindUUID, KindTimeuuid:
		b.WriteString(formatUUID(v))
	case KindInet:
		a, _ := netip.AddrFromSlice(v)
		writeQuoted(b, a.String(), quoted)
	case KindDuration:
		m, d, n, _ := DecodeDuration(v)
		b.WriteString(formatDuration(m, d, n))
	case KindList, KindSet:
		formatElems(b, t, v)
	case KindMap:
		formatMap(b, t, v, false)
	case KindTuple:
		formatTuple(b, t, v, false)
	case KindUDT:
		formatUDT(b, t, v, false)
	default:
		b.WriteString("0x")
		b.WriteString(hex.EncodeToString(v))
	}
}

func writeQuoted(b *strings.Builder, s string, quoted bool) {
	if quoted {
		b.WriteByte('\'')
		b.WriteString(s)
		b.WriteByte('\'')
		return
	}
	b.WriteString(s)
}

// writeCqlshText escapes backslashes and control characters
// (U+0000–U+001F, U+007F–U+00A0) the way Python's repr shows them;
// inside collections the text is quoted with ” doubled. Bytes that are
// not UTF-8 show as \xNN.
func writeCqlshText(b *strings.Builder, v []byte, quoted bool) {
	if quoted {
		b.WriteByte('\'')
	}
	for len(v) > 0 {
		r, size := utf8.DecodeRune(v)
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteString(`\x`)
			b.WriteString(hex.EncodeToString(v[:1]))
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\'' && quoted:
			b.WriteString("''")
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r >= 0x7f && r <= 0xa0:
			b.WriteString(`\x`)
			b.WriteString(hex.EncodeToString([]byte{byte(r)}))
		default:
			b.WriteRune(r)
		}
		v = v[size:]
	}
	if quoted {
		b.WriteByte('\'')
	}
}

// formatElems writes a list as [a, b] or a set as {a, b}.
func formatElems(b *strings.Builder, t *Type, v []byte) {
	elems, _ := DecodeCollection(v)
	open, close := "[", "]"
	if t.Kind == KindSet {
		open, close = "{", "}"
	}
	b.WriteString(open)
	for i, e := range elems {
		if i > 0 {
			b.WriteString(", ")
		}
		formatValue(b, t.Elem(), e, true)
	}
	b.WriteString(close)
}

func formatMap(b *strings.Builder, t *Type, v []byte, literal bool) {
	keys, vals, _ := DecodeMap(v)
	b.WriteByte('{')
	for i := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		writeElem(b, t.Key(), keys[i], literal)
		b.WriteString(": ")
		writeElem(b, t.Value(), vals[i], literal)
	}
	b.WriteByte('}')
}

func formatTuple(b *strings.Builder, t *Type, v []byte, literal bool) {
	comps, _ := DecodeTuple(t, v)
	b.WriteByte('(')
	for i, c := range comps {
		if i > 0 {
			b.WriteString(", ")
		}
		writeElem(b, t.Elems[i], c, literal)
	}
	b.WriteByte(')')
}

// formatUDT writes {field: value, ...}; cqlsh shows field names as they
// are, a CQL literal quotes them when needed.
func formatUDT(b *strings.Builder, t *Type, v []byte, literal bool) {
	comps, _ := DecodeTuple(t, v)
	b.WriteByte('{')
	for i, c := range comps {
		if i > 0 {
			b.WriteString(", ")
		}
		name := ""
		if i < len(t.FieldNames) {
			name = t.FieldNames[i]
		}
		if literal {
			name = QuoteIdent(name)
		}
		b.WriteString(name)
		b.WriteString(": ")
		writeElem(b, t.Elems[i], c, literal)
	}
	b.WriteByte('}')
}

func writeElem(b *strings.Builder, t *Type, v []byte, literal bool) {
	if literal {
		writeLiteral(b, t, v)
		return
	}
	formatValue(b, t, v, true)
}

// cqlshFloat is cqlsh's format_floating_point_type: %g with the precision
// widened by the digits left of the point when that avoids exponents.
func cqlshFloat(f float64, precision int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	if math.Abs(f) > 2.220446049250313e-16 {
		exp := int(math.Log10(math.Abs(f)))
		if exp >= -4 && exp < precision {
			precision += exp + 1
		}
	}
	return strconv.FormatFloat(f, 'g', precision, 64)
}

// cqlshTimestamp formats milliseconds as %Y-%m-%d %H:%M:%S.%f%z in UTC;
// outside years 1–9999 (Python's datetime range) cqlsh prints the number.
func cqlshTimestamp(ms int64) string {
	tm := time.UnixMilli(ms).UTC()
	if y := tm.Year(); y < 1 || y > 9999 {
		return strconv.FormatInt(ms, 10)
	}
	return tm.Format("2006-01-02 15:04:05.000000-0700")
}

// cqlshDate formats a date as yyyy-mm-dd, or as days since the epoch
// outside Python's date range.
func cqlshDate(v []byte) string {
	days := int64(binary.BigEndian.Uint32(v)) - dateEpoch
	y, m, d := civilFromDays(days)
	if y < 1 || y > 9999 {
		return strconv.FormatInt(days, 10)
	}
	return fmtDate(y, m, d)
}

func fmtDate(y, m, d int64) string {
	return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2)
}

func pad(n int64, width int) string {
	s := strconv.FormatInt(n, 10)
	if len(s) < width {
		s = strings.Repeat("0", width-len(s)) + s
	}
	return s
}

// cqlshTime formats nanoseconds since midnight as HH:MM:SS.nnnnnnnnn.
func cqlshTime(n int64) string {
	if n < 0 || n >= nanosPerDay {
		return strconv.FormatInt(n, 10)
	}
	return pad(n/nanosPerHour, 2) + ":" + pad(n/nanosPerMinute%60, 2) + ":" +
		pad(n/nanosPerSecond%60, 2) + "." + pad(n%nanosPerSecond, 9)
}

func formatUUID(v []byte) string {
	h := hex.EncodeToString(v)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// bigDecimalString is BigDecimal.toString (and Python's Decimal str):
// plain unless the scale is negative or the adjusted exponent is below -6.
func bigDecimalString(unscaled *big.Int, scale int32) string {
	digits := new(big.Int).Abs(unscaled).String()
	sign := ""
	if unscaled.Sign() < 0 {
		sign = "-"
	}
	adjusted := int64(len(digits)-1) - int64(scale)
	if scale >= 0 && adjusted >= -6 {
		return sign + plainDecimal(digits, int64(scale))
	}
	s := digits[:1]
	if len(digits) > 1 {
		s += "." + digits[1:]
	}
	exp := strconv.FormatInt(adjusted, 10)
	if adjusted >= 0 {
		exp = "+" + exp
	}
	return sign + s + "E" + exp
}

// plainDecimal places the point scale digits from the right (scale >= 0).
func plainDecimal(digits string, scale int64) string {
	if scale == 0 {
		return digits
	}
	if int64(len(digits)) > scale {
		cut := int64(len(digits)) - scale
		return digits[:cut] + "." + digits[cut:]
	}
	return "0." + strings.Repeat("0", int(scale)-len(digits)) + digits
}

// FormatLiteral renders v as a CQL literal of type t that parses back to an
// equal value (used by DESCRIBE): strings quoted with ” doubled, blobs
// 0x..., timestamps '2026-01-20T06:00:00.000Z', collections, tuples and
// UDTs in literal syntax, null as null.
func FormatLiteral(t *Type, v []byte) string {
	var b strings.Builder
	writeLiteral(&b, t, v)
	return b.String()
}

func writeLiteral(b *strings.Builder, t *Type, v []byte) {
	switch {
	case v == nil:
		b.WriteString("null")
		return
	case len(v) == 0:
		writeEmptyLiteral(b, t)
		return
	case Validate(t, v) != nil:
		b.WriteString("0x" + hex.EncodeToString(v))
		return
	}
	switch t.Kind {
	case KindAscii, KindVarchar:
		b.WriteString(QuoteString(string(v)))
	case KindBoolean:
		b.WriteString(strconv.FormatBool(v[0] != 0))
	case KindDecimal:
		u, scale, err := DecodeDecimal(v)
		if err != nil {
			b.WriteString("0x" + hex.EncodeToString(v))
		} else if scale >= 0 && int64(scale)-int64(len(u.String())) <= maxPlainZeros {
			b.WriteString(signedPlain(u, scale))
		} else {
			// Scientific notation keeps the scale and stays short.
			b.WriteString(bigDecimalString(u, scale))
		}
	case KindFloat:
		b.WriteString(javaFloatString(float64(math.Float32frombits(binary.BigEndian.Uint32(v))), 32))
	case KindDouble:
		b.WriteString(javaFloatString(math.Float64frombits(binary.BigEndian.Uint64(v)), 64))
	case KindTimestamp:
		b.WriteString(timestampLiteral(int64(binary.BigEndian.Uint64(v))))
	case KindDate:
		days := int64(binary.BigEndian.Uint32(v)) - dateEpoch
		b.WriteString(QuoteString(isoDate(days)))
	case KindTime:
		n := int64(binary.BigEndian.Uint64(v))
		if n < 0 || n >= nanosPerDay {
			b.WriteString(strconv.FormatInt(n, 10))
		} else {
			b.WriteString(QuoteString(cqlshTime(n)))
		}
	case KindInet:
		a, _ := netip.AddrFromSlice(v)
		b.WriteString(QuoteString(a.String()))
	case KindDuration:
		m, d, n, _ := DecodeDuration(v)
		if s := formatDuration(m, d, n); s != "" {
			b.WriteString(s)
		} else {
			b.WriteString("0s")
		}
	case KindList:
		writeLiteralElems(b, t, v, "[", "]")
	case KindSet:
		writeLiteralElems(b, t, v, "{", "}")
	case KindMap:
		formatMap(b, t, v, true)
	case KindTuple:
		formatTuple(b, t, v, true)
	case KindUDT:
		formatUDT(b, t, v, true)
	case KindBlob, KindCustom:
		b.WriteString("0x" + hex.EncodeToString(v))
	default:
		formatValue(b, t, v, false) // integers, varint, uuids
	}
}

func signedPlain(u *big.Int, scale int32) string {
	s := plainDecimal(new(big.Int).Abs(u).String(), int64(scale))
	if u.Sign() < 0 {
		return "-" + s
	}
	return s
}

func writeLiteralElems(b *strings.Builder, t *Type, v []byte, open, close string) {
	elems, _ := DecodeCollection(v)
	b.WriteString(open)
	for i, e := range elems {
		if i > 0 {
			b.WriteString(", ")
		}
		writeLiteral(b, t.Elem(), e)
	}
	b.WriteString(close)
}

// writeEmptyLiteral writes the empty value: ” for strings, 0x for blobs,
// blobAs<type>(0x) for other native types (no literal exists), else null.
func writeEmptyLiteral(b *strings.Builder, t *Type) {
	switch {
	case t.IsText():
		b.WriteString("''")
	case t.Kind == KindBlob || t.Kind == KindCustom:
		b.WriteString("0x")
	case t.IsNative():
		b.WriteString("blobAs" + t.Kind.String() + "(0x)")
	default:
		b.WriteString("null")
	}
}

// QuoteString returns s as a CQL string literal: in single quotes, with
// single quotes doubled.
func QuoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// timestampLiteral is TimestampSerializer.toCQLLiteral's
// 'yyyy-MM-ddTHH:mm:ss.SSSZ' in UTC (java.time's proleptic Gregorian
// calendar, as Go's); outside the years 1–9999, where Cassandra writes the
// year of era or a '+' and the literal would not parse back to the same
// instant, it is the millisecond number, which does.
func timestampLiteral(ms int64) string {
	tm := time.UnixMilli(ms).UTC()
	if y := tm.Year(); y < 1 || y > 9999 {
		return strconv.FormatInt(ms, 10)
	}
	return "'" + tm.Format("2006-01-02T15:04:05.000Z") + "'"
}

// isoDate is LocalDate.toString: yyyy-MM-dd, with a sign for years beyond
// four digits or before year 0.
func isoDate(days int64) string {
	y, m, d := civilFromDays(days)
	switch {
	case y > 9999:
		return "+" + fmtDate(y, m, d)
	case y < 0:
		return "-" + fmtDate(-y, m, d)
	}
	return fmtDate(y, m, d)
}

// javaFloatString is Float.toString/Double.toString: the shortest digits
// that round-trip, plain for 1e-3 <= |x| < 1e7 (with at least one digit
// after the point), else d.dddE±n.
func javaFloatString(f float64, bitSize int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	e := strconv.FormatFloat(f, 'e', -1, bitSize) // d.ddde±XX
	if !strings.Contains(e, ".") {
		// Java renders at least two significant digits, the closest
		// two-digit decimal (Float.MIN_VALUE is 1.4E-45, not 1.0E-45).
		e = strconv.FormatFloat(f, 'e', 1, bitSize)
	}
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.TrimRight(strings.Replace(mant, ".", "", 1), "0")
	if digits == "" {
		digits = "0"
	}
	if f >= 1e-3 && f < 1e7 {
		if exp >= 0 {
			if len(digits) <= exp+1 {
				return sign + digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
			}
			return sign + digits[:exp+1] + "." + digits[exp+1:]
		}
		return sign + "0." + strings.Repeat("0", -exp-1) + digits
	}
	frac := digits[1:]
	if frac == "" {
		frac = "0"
	}
	return sign + digits[:1] + "." + frac + "E" + strconv.Itoa(exp)
}
