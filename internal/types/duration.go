package types

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/partita-db/partita/internal/cqlerr"
)

// A duration value is three zig-zag vints: months, days, nanoseconds, all
// of one sign (DurationSerializer). Vints (utils/vint/VIntCoding.java):
// the count of leading 1-bits of the first byte is the number of extra
// bytes, and the rest is the value, big-endian.

func appendUnsignedVInt(dst []byte, x uint64) []byte {
	n := bits.Len64(x | 1)
	size := (n + 6) / 7
	if size >= 9 {
		dst = append(dst, 0xFF)
		return binary.BigEndian.AppendUint64(dst, x)
	}
	var buf [8]byte
	for i := size - 1; i >= 0; i-- {
		buf[i] = byte(x)
		x >>= 8
	}
	buf[0] |= ^byte(0xFF >> (size - 1))
	return append(dst, buf[:size]...)
}

func appendVInt(dst []byte, x int64) []byte {
	return appendUnsignedVInt(dst, uint64(x<<1)^uint64(x>>63))
}

// readVInt reads one signed vint; n is the bytes used (0 if truncated).
func readVInt(b []byte) (x int64, n int) {
	if len(b) == 0 {
		return 0, 0
	}
	first := b[0]
	extra := bits.LeadingZeros8(^first)
	if len(b) < 1+extra {
		return 0, 0
	}
	u := uint64(first & (0xFF >> extra))
	for i := 1; i <= extra; i++ {
		u = u<<8 | uint64(b[i])
	}
	return int64(u>>1) ^ -int64(u&1), 1 + extra
}

// readDurationVInts reads the three vints of a duration; bytes after them
// are ignored, as Cassandra does.
func readDurationVInts(v []byte) (months, days, nanos int64, ok bool) {
	var vals [3]int64
	for i := range vals {
		x, n := readVInt(v)
		if n == 0 {
			return 0, 0, 0, false
		}
		vals[i], v = x, v[n:]
	}
	return vals[0], vals[1], vals[2], true
}

// EncodeDuration serializes a duration; all parts must share one sign.
func EncodeDuration(months, days int32, nanos int64) ([]byte, error) {
	if !(months >= 0 && days >= 0 && nanos >= 0 || months <= 0 && days <= 0 && nanos <= 0) {
		return nil, cqlerr.Invalidf("The duration months, days and nanoseconds must be all of the same sign (%d, %d, %d)", months, days, nanos)
	}
	out := appendVInt(nil, int64(months))
	out = appendVInt(out, int64(days))
	return appendVInt(out, nanos), nil
}

// DecodeDuration splits a serialized duration into its parts.
func DecodeDuration(v []byte) (months, days int32, nanos int64, err error) {
	if err := validateDuration(v); err != nil {
		return 0, 0, 0, err
	}
	m, d, n, _ := readDurationVInts(v)
	return int32(m), int32(d), n, nil
}

const (
	nanosPerMicro  = 1000
	nanosPerMilli  = 1000 * nanosPerMicro
	nanosPerSecond = 1000 * nanosPerMilli
	nanosPerMinute = 60 * nanosPerSecond
	nanosPerHour   = 60 * nanosPerMinute
)

// formatDuration is Duration.toString (and cqlsh's duration_as_str), e.g.
// 1y2mo3d4h5m6s7ms8us9ns; zero is the empty string.
func formatDuration(months, days int32, nanos int64) string {
	var b strings.Builder
	if months < 0 || days < 0 || nanos < 0 {
		b.WriteByte('-')
	}
	rem := appendUnit(&b, absU64(int64(months)), 12, "y")
	appendUnit(&b, rem, 1, "mo")
	appendUnit(&b, absU64(int64(days)), 1, "d")
	if nanos != 0 {
		rem = appendUnit(&b, absU64(nanos), nanosPerHour, "h")
		rem = appendUnit(&b, rem, nanosPerMinute, "m")
		rem = appendUnit(&b, rem, nanosPerSecond, "s")
		rem = appendUnit(&b, rem, nanosPerMilli, "ms")
		rem = appendUnit(&b, rem, nanosPerMicro, "us")
		appendUnit(&b, rem, 1, "ns")
	}
	return b.String()
}

func absU64(x int64) uint64 {
	if x < 0 {
		return uint64(-(x + 1)) + 1
	}
	return uint64(x)
}

func appendUnit(b *strings.Builder, dividend, divisor uint64, unit string) uint64 {
	if dividend == 0 || dividend < divisor {
		return dividend
	}
	b.WriteString(strconv.FormatUint(dividend/divisor, 10))
	b.WriteString(unit)
	return dividend % divisor
}

// Duration units, in the order a duration literal must list them
// (Duration.Builder's unit indexes).
const (
	unitYears = iota + 1
	unitMonths
	unitWeeks
	unitDays
	unitHours
	unitMinutes
	unitSeconds
	unitMillis
	unitMicros
	unitNanos
)

var unitNames = [...]string{"", "years", "months", "weeks", "days", "hours", "minutes",
	"seconds", "milliseconds", "microseconds", "nanoseconds"}

// durationBuilder accumulates units with Duration.Builder's checks.
type durationBuilder struct {
	negative bool
	months   int64
	days     int64
	nanos    int64
	unit     int
}

func (d *durationBuilder) add(unit int, n uint64) error {
	if unit == d.unit {
		return durationError("Invalid duration. The %s are specified multiple times", unitNames[unit])
	}
	if unit < d.unit {
		return durationError("Invalid duration. The %s should be after %s", unitNames[d.unit], unitNames[unit])
	}
	d.unit = unit
	switch unit {
	case unitYears, unitMonths:
		per := int64(1)
		if unit == unitYears {
			per = 12
		}
		if n > uint64((math.MaxInt32-d.months)/per) {
			return durationLimitError("months")
		}
		d.months += int64(n) * per
	case unitWeeks, unitDays:
		per := int64(1)
		if unit == unitWeeks {
			per = 7
		}
		if n > uint64((math.MaxInt32-d.days)/per) {
			return durationLimitError("days")
		}
		d.days += int64(n) * per
	default:
		per := unitNanosPer[unit]
		if n > uint64((math.MaxInt64-d.nanos)/per) {
			return durationLimitError("nanoseconds")
		}
		d.nanos += int64(n) * per
	}
	return nil
}

var unitNanosPer = map[int]int64{
	unitHours: nanosPerHour, unitMinutes: nanosPerMinute, unitSeconds: nanosPerSecond,
	unitMillis: nanosPerMilli, unitMicros: nanosPerMicro, unitNanos: 1,
}

func durationLimitError(unit string) error {
	return durationError("Invalid duration. The total number of %s must be less or equal to %d", unit, math.MaxInt32)
}

// requestError is an Invalid error that Cassandra raises as an
// InvalidRequestException, not a MarshalException, as Duration.from does
// (RequestValidations.invalidRequest). INSERT JSON passes it on as it is,
// without naming the column (JSONColumnError).
type requestError struct{ err *cqlerr.Error }

func (e *requestError) Error() string { return e.err.Error() }
func (e *requestError) Unwrap() error { return e.err }

func durationError(format string, args ...any) error {
	return &requestError{cqlerr.Invalidf(format, args...)}
}

// parseJavaLong is Long.parseLong of a run of ASCII digits. Duration.from
// does not catch its NumberFormatException, so a number past a long is a
// Server error in Java's words.
func parseJavaLong(digits string) (uint64, error) {
	n, err := strconv.ParseUint(digits, 10, 63)
	if err != nil {
		return 0, cqlerr.Serverf("java.lang.NumberFormatException: For input string: \"%s\"", digits)
	}
	return n, nil
}

func (d *durationBuilder) encode() []byte {
	m, dd, n := d.months, d.days, d.nanos
	if d.negative {
		m, dd, n = -m, -dd, -n
	}
	out, _ := EncodeDuration(int32(m), int32(dd), n)
	return out
}

// parseDuration is Duration.from: an optional '-', then 12h30m style
// units (parseStandardFormat), or after a 'P' the ISO 8601 forms P[n]W
// when it ends with W, P[YYYY]-[MM]-[DD]T[hh]:[mm]:[ss] when it holds a
// '-', else P[n]Y[n]M[n]DT[n]H[n]M[n]S. The ISO forms must match whole
// before any unit is added; the units form adds each unit as it is read,
// so an out-of-order or repeated unit is reported even when what follows
// would not parse.
func parseDuration(input string) ([]byte, error) {
	d := durationBuilder{negative: strings.HasPrefix(input, "-")}
	source := strings.TrimPrefix(input, "-")
	var ok bool
	var err error
	switch {
	case !strings.HasPrefix(source, "P"):
		ok, err = d.parseStandard(source)
	case strings.HasSuffix(source, "W"):
		ok, err = d.parseISOWeeks(source)
	case strings.Contains(source, "-"):
		ok, err = d.parseISOAlternative(source)
	default:
		ok, err = d.parseISO(source)
	}
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, durationError("Unable to convert '%s' to a duration", source)
	}
	return d.encode(), nil
}

// leadingDigits splits s into its leading ASCII digits (regex \d) and the
// rest.
func leadingDigits(s string) (string, string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i], s[i:]
}

// parseStandard repeats \G(\d+)(unit) from the start of s and must end at
// its end.
func (d *durationBuilder) parseStandard(s string) (bool, error) {
	if s == "" {
		return false, nil
	}
	for s != "" {
		num, rest := leadingDigits(s)
		if num == "" {
			return false, nil
		}
		unit, n := standardUnit(rest)
		if unit == 0 {
			return false, nil
		}
		x, err := parseJavaLong(num)
		if err != nil {
			return false, err
		}
		if err := d.add(unit, x); err != nil {
			return false, err
		}
		s = rest[n:]
	}
	return true, nil
}

// standardUnit recognises a unit symbol at the start of s (any case; the
// micro sign U+00B5 for µs, not the Greek mu), returning its index and
// length.
func standardUnit(s string) (int, int) {
	lower := strings.ToLower(s[:min(len(s), 3)])
	switch {
	case strings.HasPrefix(lower, "mo"):
		return unitMonths, 2
	case strings.HasPrefix(lower, "ms"):
		return unitMillis, 2
	case strings.HasPrefix(lower, "us"):
		return unitMicros, 2
	case strings.HasPrefix(s, "\u00b5s"), strings.HasPrefix(s, "\u00b5S"):
		return unitMicros, len("\u00b5s")
	case strings.HasPrefix(lower, "ns"):
		return unitNanos, 2
	case lower == "":
		return 0, 0
	}
	switch lower[0] {
	case 'y':
		return unitYears, 1
	case 'w':
		return unitWeeks, 1
	case 'd':
		return unitDays, 1
	case 'h':
		return unitHours, 1
	case 'm':
		return unitMinutes, 1
	case 's':
		return unitSeconds, 1
	}
	return 0, 0
}

// parseISOWeeks matches P(\d+)W.
func (d *durationBuilder) parseISOWeeks(s string) (bool, error) {
	num := s[1 : len(s)-1]
	if n, rest := leadingDigits(num); n == "" || rest != "" {
		return false, nil
	}
	x, err := parseJavaLong(num)
	if err != nil {
		return false, err
	}
	return true, d.add(unitWeeks, x)
}

// parseISO matches P((\d+)Y)?((\d+)M)?((\d+)D)?(T((\d+)H)?((\d+)M)?((\d+)S)?)?
// and then adds the groups present, in that order.
func (d *durationBuilder) parseISO(s string) (bool, error) {
	date, timePart, hasT := strings.Cut(s[1:], "T")
	var groups [6]string
	if !isoGroups(date, "YMD", groups[:3]) || hasT && !isoGroups(timePart, "HMS", groups[3:]) {
		return false, nil
	}
	units := [6]int{unitYears, unitMonths, unitDays, unitHours, unitMinutes, unitSeconds}
	for i, num := range groups {
		if num == "" {
			continue
		}
		x, err := parseJavaLong(num)
		if err != nil {
			return false, err
		}
		if err := d.add(units[i], x); err != nil {
			return false, err
		}
	}
	return true, nil
}

// isoGroups matches s against optional <digits><designator> groups in the
// order of designators, storing each group's digits.
func isoGroups(s, designators string, groups []string) bool {
	for i := 0; i < len(designators) && s != ""; i++ {
		num, rest := leadingDigits(s)
		if num == "" || rest == "" {
			return false
		}
		j := strings.IndexByte(designators[i:], rest[0])
		if j < 0 {
			return false
		}
		i += j
		groups[i] = num
		s = rest[1:]
	}
	return s == ""
}

// parseISOAlternative matches P(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})
func (d *durationBuilder) parseISOAlternative(s string) (bool, error) {
	const layout = "P0000-00-00T00:00:00"
	if len(s) != len(layout) {
		return false, nil
	}
	for i := 0; i < len(layout); i++ {
		if layout[i] == '0' {
			if s[i] < '0' || s[i] > '9' {
				return false, nil
			}
		} else if s[i] != layout[i] {
			return false, nil
		}
	}
	fields := []struct {
		from, to, unit int
	}{{1, 5, unitYears}, {6, 8, unitMonths}, {9, 11, unitDays}, {12, 14, unitHours}, {15, 17, unitMinutes}, {18, 20, unitSeconds}}
	for _, f := range fields {
		x, _ := strconv.ParseUint(s[f.from:f.to], 10, 63)
		if err := d.add(f.unit, x); err != nil {
			return false, err
		}
	}
	return true, nil
}
