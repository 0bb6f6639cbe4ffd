package types

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSON rendering for SELECT JSON and toJson(), following each
// AbstractType.toJSONString in Cassandra's src/java/org/apache/cassandra/
// db/marshal/ and Selection.rowToJson in cql3/selection/Selection.java.

// ToJSON renders v as Cassandra's toJson() does: null as null; text and
// ascii as JSON strings; integers, varints, decimals, floats and booleans
// bare (float and double NaN and infinities as null, as FloatType and
// DoubleType write them); blobs "0x..."; uuids, inets (Java's
// getHostAddress form, "0:0:0:0:0:0:0:1"), dates ("2026-01-20"), times
// ("06:00:00.000000000"), timestamps ("2026-01-20 06:00:00.000Z") and
// durations ("1h30m") as strings; lists, sets and tuples as arrays, maps as
// objects whose non-string keys are their JSON text quoted, UDTs as
// objects keyed by field name ("\"Name\"" when not lower case). The empty
// value of a number, boolean, uuid, inet, timestamp or duration is "".
// The output is always valid JSON: a value its type cannot parse is
// rendered as a "0x..." blob string.
func ToJSON(t *Type, v []byte) string {
	var b strings.Builder
	writeJSON(&b, t, v)
	return b.String()
}

// FormatJSONRow builds the single text value of a SELECT JSON row
// (Selection.rowToJson): an object of the selected columns in order, each
// name quoted when it is not all lower case (a column "Name" is the key
// "\"Name\""), null values as null and empty values as "".
func FormatJSONRow(names []string, ts []*Type, values [][]byte) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, name := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		writeJSONString(&b, jsonName(name))
		b.WriteString(": ")
		var v []byte
		if i < len(values) {
			v = values[i]
		}
		var t *Type
		if i < len(ts) {
			t = ts[i]
		}
		switch {
		case v == nil:
			b.WriteString("null")
		case len(v) == 0:
			b.WriteString(`""`)
		default:
			writeJSON(&b, t, v)
		}
	}
	b.WriteByte('}')
	return b.String()
}

// jsonName is how SELECT JSON and UDT values name a column or field: as
// it is when all lower case, else in double quotes (without doubling
// embedded quotes, as Cassandra does).
func jsonName(name string) string {
	if name == strings.ToLower(name) {
		return name
	}
	return `"` + name + `"`
}

func writeJSON(b *strings.Builder, t *Type, v []byte) {
	switch {
	case v == nil:
		b.WriteString("null")
	case len(v) == 0 && t != nil && t.Kind == KindDuration:
		// Not a valid duration, but what INSERT JSON stores for "", and
		// Cassandra writes it back as "" (confirmed against 5.0.6).
		b.WriteString(`""`)
	case t == nil || Validate(t, v) != nil:
		writeJSONBlob(b, v)
	default:
		writeJSONValid(b, t, v)
	}
}

func writeJSONBlob(b *strings.Builder, v []byte) {
	b.WriteString(`"0x`)
	b.WriteString(hex.EncodeToString(v))
	b.WriteByte('"')
}

// writeJSONValid writes a non-null value that Validate accepts; nested
// values are valid because Validate checks them too.
func writeJSONValid(b *strings.Builder, t *Type, v []byte) {
	switch t.Kind {
	case KindAscii, KindVarchar:
		writeJSONString(b, string(v))
		return
	case KindBlob, KindCustom:
		writeJSONBlob(b, v)
		return
	case KindList, KindSet:
		writeJSONElems(b, t, v)
		return
	case KindMap:
		writeJSONMap(b, t, v)
		return
	case KindTuple, KindUDT:
		writeJSONComponents(b, t, v)
		return
	}
	if len(v) == 0 {
		// Numbers and booleans write Objects.toString(null, "\"\""); the
		// string-like types quote an empty string.
		b.WriteString(`""`)
		return
	}
	writeJSONScalar(b, t, v)
}

func writeJSONScalar(b *strings.Builder, t *Type, v []byte) {
	switch t.Kind {
	case KindBoolean:
		b.WriteString(strconv.FormatBool(v[0] != 0))
	case KindTinyint, KindSmallint, KindInt, KindBigint, KindCounter:
		n, _ := Int64(t, v)
		var digits [20]byte
		b.Write(strconv.AppendInt(digits[:0], n, 10))
	case KindVarint:
		b.WriteString(varintToBig(v).String())
	case KindDecimal:
		// A 4-byte decimal validates but has no unscaled value.
		u, scale, err := DecodeDecimal(v)
		if err != nil {
			writeJSONBlob(b, v)
			return
		}
		b.WriteString(bigDecimalString(u, scale))
	case KindFloat:
		writeJSONFloat(b, float64(math.Float32frombits(binary.BigEndian.Uint32(v))), 32)
	case KindDouble:
		writeJSONFloat(b, math.Float64frombits(binary.BigEndian.Uint64(v)), 64)
	case KindTimestamp:
		var buf [40]byte
		b.WriteByte('"')
		b.Write(appendJSONTimestamp(buf[:0], int64(binary.BigEndian.Uint64(v))))
		b.WriteByte('"')
	case KindDate:
		writeJSONQuoted(b, isoDate(int64(binary.BigEndian.Uint32(v))-dateEpoch))
	case KindTime:
		writeJSONQuoted(b, cqlshTime(int64(binary.BigEndian.Uint64(v))))
	case KindUUID, KindTimeuuid:
		writeJSONQuoted(b, formatUUID(v))
	case KindInet:
		writeJSONQuoted(b, javaHostAddress(v))
	case KindDuration:
		m, d, n, _ := DecodeDuration(v)
		writeJSONQuoted(b, formatDuration(m, d, n))
	default:
		writeJSONBlob(b, v)
	}
}

// writeJSONQuoted writes s, which needs no escaping, as a JSON string.
func writeJSONQuoted(b *strings.Builder, s string) {
	b.WriteByte('"')
	b.WriteString(s)
	b.WriteByte('"')
}

// writeJSONFloat writes Float.toString/Double.toString, or null for NaN
// and the infinities, which JSON cannot represent.
func writeJSONFloat(b *strings.Builder, f float64, bitSize int) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		b.WriteString("null")
		return
	}
	b.WriteString(javaFloatString(f, bitSize))
}

// writeJSONElems writes a list or set as ListType.setOrListToJsonString.
func writeJSONElems(b *strings.Builder, t *Type, v []byte) {
	elems, err := DecodeCollection(v)
	if err != nil {
		writeJSONBlob(b, v)
		return
	}
	b.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			b.WriteString(", ")
		}
		writeJSONNested(b, t.Elem(), e)
	}
	b.WriteByte(']')
}

// writeJSONMap writes a map as MapType.toJSONString: JSON object keys
// must be strings, so a key whose JSON text is not a string is quoted.
func writeJSONMap(b *strings.Builder, t *Type, v []byte) {
	keys, vals, err := DecodeMap(v)
	if err != nil {
		writeJSONBlob(b, v)
		return
	}
	b.WriteByte('{')
	var kb strings.Builder
	for i := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		kb.Reset()
		writeJSONNested(&kb, t.Key(), keys[i])
		if k := kb.String(); strings.HasPrefix(k, `"`) {
			b.WriteString(k)
		} else {
			writeJSONString(b, k)
		}
		b.WriteString(": ")
		writeJSONNested(b, t.Value(), vals[i])
	}
	b.WriteByte('}')
}

// writeJSONComponents writes a tuple as an array and a UDT as an object
// (TupleType and UserType.toJSONString); absent trailing components are
// null.
func writeJSONComponents(b *strings.Builder, t *Type, v []byte) {
	comps, err := DecodeTuple(t, v)
	if err != nil {
		writeJSONBlob(b, v)
		return
	}
	udt := t.Kind == KindUDT
	open, close := byte('['), byte(']')
	if udt {
		open, close = '{', '}'
	}
	b.WriteByte(open)
	for i, c := range comps {
		if i > 0 {
			b.WriteString(", ")
		}
		if udt {
			name := ""
			if i < len(t.FieldNames) {
				name = t.FieldNames[i]
			}
			writeJSONString(b, jsonName(name))
			b.WriteString(": ")
		}
		writeJSONNested(b, t.Elems[i], c)
	}
	b.WriteByte(close)
}

func writeJSONNested(b *strings.Builder, t *Type, v []byte) {
	if v == nil {
		b.WriteString("null")
		return
	}
	writeJSONValid(b, t, v)
}

// writeJSONString writes s as Jackson's JsonStringEncoder.quoteAsString
// quotes it: '"' and '\' escaped, \b \t \n \f \r as short escapes, other
// control characters as \u00XX (upper-case hex), everything else as is.
// Bytes that are not UTF-8 become U+FFFD, as Java's decoder makes them.
func writeJSONString(b *strings.Builder, s string) {
	const hexDigits = "0123456789ABCDEF"
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b.WriteString("\uFFFD")
			} else {
				b.WriteString(s[i : i+size])
			}
			i += size
			continue
		}
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xF])
			} else {
				b.WriteByte(c)
			}
		}
		i++
	}
	b.WriteByte('"')
}

const msPerDay = 86400000

// gregorianCutover is 1582-10-15, the first Gregorian day of
// java.util.GregorianCalendar, in days since the epoch.
const gregorianCutover = -141427

// jsonTimestamp formats milliseconds since the epoch with Cassandra 5.0's
// JSON pattern "yyyy-MM-dd HH:mm:ss.SSSX" in UTC
// (TimestampSerializer.getJsonDateFormatter, a java.time formatter): the
// proleptic Gregorian calendar, and the year of era, so a year before
// 1 AD shows as its BC number, padded to four digits and signed beyond
// them ("+10000").
func jsonTimestamp(ms int64) string {
	return string(appendJSONTimestamp(nil, ms))
}

func appendJSONTimestamp(dst []byte, ms int64) []byte { return appendJavaTimestamp(dst, ms, ' ') }

// TemporalText is the text Cassandra 5.0 gives a timestamp or a date as a
// string (CAST to text): TimestampSerializer.toString, the pattern
// yyyy-MM-dd'T'HH:mm:ss.SSSX in UTC (the JSON form with a 'T'), or
// SimpleDateSerializer.toString, ISO_LOCAL_DATE. ok is false for other
// types and for values that do not validate.
func TemporalText(t *Type, v []byte) (text string, ok bool) {
	if Validate(t, v) != nil || len(v) == 0 {
		return "", false
	}
	switch t.Kind {
	case KindTimestamp:
		return string(appendJavaTimestamp(nil, int64(binary.BigEndian.Uint64(v)), 'T')), true
	case KindDate:
		return isoDate(int64(binary.BigEndian.Uint32(v)) - dateEpoch), true
	}
	return "", false
}

// appendJavaTimestamp appends ms as java.time formats it with the pattern
// yyyy-MM-dd?HH:mm:ss.SSSX in UTC, sep standing for the '?'.
func appendJavaTimestamp(dst []byte, ms int64, sep byte) []byte {
	days, rem := ms/msPerDay, ms%msPerDay
	if rem < 0 {
		days, rem = days-1, rem+msPerDay
	}
	y, m, d := civilFromDays(days)
	if y <= 0 {
		y = 1 - y
	}
	if y > 9999 {
		dst = append(dst, '+')
	}
	dst = appendPadded(dst, y, 4, '-')
	dst = appendPadded(dst, m, 2, '-')
	dst = appendPadded(dst, d, 2, sep)
	dst = appendPadded(dst, rem/3600000, 2, ':')
	dst = appendPadded(dst, rem/60000%60, 2, ':')
	dst = appendPadded(dst, rem/1000%60, 2, '.')
	dst = appendPadded(dst, rem%1000, 3, 'Z')
	return dst
}

// appendPadded appends n (>= 0) zero-padded to width digits, then sep.
func appendPadded(dst []byte, n int64, width int, sep byte) []byte {
	var digits [20]byte
	s := strconv.AppendInt(digits[:0], n, 10)
	for i := len(s); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(append(dst, s...), sep)
}

// javaCalendarDate is the inverse of javaCalendarDays: the date (with
// astronomical year numbering) of a day in GregorianCalendar's hybrid
// calendar.
func javaCalendarDate(days int64) (y, m, d int64) {
	if days >= gregorianCutover {
		return civilFromDays(days)
	}
	// Julian calendar from the Julian Day Number (Richards' algorithm).
	c := days + 2440588 + 32082
	dd := floorDiv(4*c+3, 1461)
	e := c - floorDiv(1461*dd, 4)
	mm := floorDiv(5*e+2, 153)
	d = e - floorDiv(153*mm+2, 5) + 1
	m = mm + 3 - 12*floorDiv(mm, 10)
	y = dd - 4800 + floorDiv(mm, 10)
	return y, m, d
}

// javaHostAddress is InetAddress.getHostAddress of the address
// InetAddress.getByAddress builds: dotted quad for IPv4 and IPv4-mapped
// IPv6 (Java turns those into Inet4Address), else eight hex groups
// without leading zeros or "::" compression.
func javaHostAddress(v []byte) string {
	if len(v) == 16 && isIPv4Mapped(v) {
		v = v[12:]
	}
	if len(v) == 4 {
		return strconv.Itoa(int(v[0])) + "." + strconv.Itoa(int(v[1])) + "." +
			strconv.Itoa(int(v[2])) + "." + strconv.Itoa(int(v[3]))
	}
	var b strings.Builder
	for i := 0; i+1 < len(v); i += 2 {
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(strconv.FormatUint(uint64(v[i])<<8|uint64(v[i+1]), 16))
	}
	return b.String()
}

func isIPv4Mapped(v []byte) bool {
	for _, c := range v[:10] {
		if c != 0 {
			return false
		}
	}
	return v[10] == 0xff && v[11] == 0xff
}
