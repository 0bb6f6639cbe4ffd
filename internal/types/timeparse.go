package types

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/partita-db/partita/internal/cqlerr"
)

// nowFunc is the clock for 'now' literals; tests replace it.
var nowFunc = time.Now

// isJavaLong reports whether s matches ^-?\d+$ (the raw-number form the
// temporal serializers accept).
func isJavaLong(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseTimestamp is TimestampSerializer.dateStringToTimestamp (5.0):
// 'now', milliseconds since the epoch, or a date-time (datetime.go).
func parseTimestamp(source string) (int64, error) {
	if strings.EqualFold(source, "now") {
		return nowFunc().UnixMilli(), nil
	}
	if isJavaLong(source) {
		ms, err := strconv.ParseInt(source, 10, 64)
		if err != nil {
			return 0, cqlerr.Invalidf("Unable to make long (for date) from: '%s'", source)
		}
		return ms, nil
	}
	ms, outcome := parseDateTime(source)
	switch outcome {
	case dateTimeOverflow:
		return 0, errLongOverflow()
	case dateTimeNoMatch:
		return 0, cqlerr.Invalidf("Unable to parse a date/time from '%s'", source)
	}
	return ms, nil
}

// dtScanner walks a date-time string.
type dtScanner struct {
	s   string
	pos int
}

func (p *dtScanner) done() bool { return p.pos >= len(p.s) }

func (p *dtScanner) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.pos]
}

func (p *dtScanner) accept(c byte) bool {
	if p.peek() == c && !p.done() {
		p.pos++
		return true
	}
	return false
}

// fixedDigits reads exactly n digits.
func (p *dtScanner) fixedDigits(n int) (int64, bool) {
	if len(p.s)-p.pos < n {
		return 0, false
	}
	var v int64
	for i := 0; i < n; i++ {
		c := p.s[p.pos+i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	p.pos += n
	return v, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// javaCalendarDays returns the days since 1970-01-01 of a date in
// java.util.GregorianCalendar's hybrid calendar (Julian before
// 1582-10-15), rejecting invalid dates as a non-lenient calendar does.
func javaCalendarDays(y, m, d int64) (int64, bool) {
	if m < 1 || m > 12 || d < 1 {
		return 0, false
	}
	julian := y < 1582 || y == 1582 && (m < 10 || m == 10 && d < 15)
	if julian {
		if y == 1582 && m == 10 && d > 4 {
			return 0, false // the days dropped by the Gregorian reform
		}
		if d > daysInMonth(y, m, true) {
			return 0, false
		}
		return julianDayNumber(y, m, d) - 2440588, true
	}
	if d > daysInMonth(y, m, false) {
		return 0, false
	}
	return daysFromCivil(y, m, d), true
}

func daysInMonth(y, m int64, julian bool) int64 {
	switch m {
	case 2:
		leap := y%4 == 0
		if !julian {
			leap = leap && (y%100 != 0 || y%400 == 0)
		}
		if leap {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// julianDayNumber is the Julian Day Number of a Julian-calendar date.
func julianDayNumber(y, m, d int64) int64 {
	a := (14 - m) / 12
	yy := y + 4800 - a
	mm := m + 12*a - 3
	return d + (153*mm+2)/5 + 365*yy + floorDiv(yy, 4) - 32083
}

// daysFromCivil returns days since 1970-01-01 of a proleptic Gregorian date
// (any year, astronomical numbering).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// Dates are stored as uint32 days with the epoch at 2^31.
const dateEpoch = 1 << 31

// parseDate is SimpleDateSerializer.dateStringToDays (5.0): a raw
// unsigned day number, or DateTimeFormatter.ISO_LOCAL_DATE with STRICT
// resolution, returning the serialized uint32. The date's milliseconds
// (an ArithmeticException past a long, which is caught) must lie within
// the days a date can hold.
func parseDate(source string) (uint32, error) {
	if isJavaLong(source) {
		n, err := strconv.ParseInt(source, 10, 64)
		if err != nil || n < 0 || n > math.MaxUint32 {
			return 0, cqlerr.Invalidf("Unable to make unsigned int (for date) from: '%s'", source)
		}
		return uint32(n), nil
	}
	days, ok := parseISOLocalDate(source)
	if !ok || days > math.MaxInt64/msPerDay || days < math.MinInt64/msPerDay {
		return 0, cqlerr.Invalidf("Unable to coerce '%s' to a formatted date (long)", source)
	}
	// The bounds print as ZonedDateTime.toString prints them.
	switch {
	case days < math.MinInt32:
		return 0, cqlerr.Invalidf("Input date %s is less than min supported date %s", source, "-5877641-06-23T00:00Z")
	case days > math.MaxInt32:
		return 0, cqlerr.Invalidf("Input date %s is greater than max supported date %s", source, "+5881580-07-11T00:00Z")
	}
	return uint32(days + dateEpoch), nil
}

// parseISOLocalDate follows DateTimeFormatter.ISO_LOCAL_DATE with STRICT
// resolution: a year of four digits, or of four to ten after a sign ('+'
// only beyond four; not minus zero), within LocalDate's years; then -MM-dd
// with two digits each, a real date of the proleptic Gregorian calendar.
// It returns days since 1970-01-01.
func parseISOLocalDate(s string) (int64, bool) {
	p := dtScanner{s: s}
	year, ok := p.paddedYear(10)
	if !ok {
		return 0, false
	}
	d, ok := p.monthDay(year)
	if !ok || !p.done() || d.day > 28 && d.month >= 1 && d.month <= 12 && d.day > daysInMonth(year, d.month, false) {
		return 0, false
	}
	return d.resolve()
}

const nanosPerDay = 86400 * nanosPerSecond

// parseTime is TimeSerializer.timeStringToLong: raw nanoseconds since
// midnight, or hh:mm:ss[.fffffffff].
func parseTime(source string) (int64, error) {
	if isJavaLong(source) {
		n, err := strconv.ParseInt(source, 10, 64)
		if err != nil || n < 0 || n >= nanosPerDay {
			return 0, cqlerr.Invalidf("Unable to make long (for time) from: '%s'", source)
		}
		return n, nil
	}
	n, ok := parseTimeOfDay(source)
	if !ok {
		return 0, cqlerr.Invalidf("(TimeType) Unable to coerce '%s' to a formatted time (long)", source)
	}
	return n, nil
}

// parseTimeOfDay follows TimeSerializer.parseTimeStrictly.
func parseTimeOfDay(s string) (int64, bool) {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	first := strings.IndexByte(s, ':')
	if first <= 0 {
		return 0, false
	}
	second := strings.IndexByte(s[first+1:], ':')
	if second < 0 {
		return 0, false
	}
	second += first + 1
	if second >= len(s)-1 {
		return 0, false
	}
	hour, ok1 := javaParseInt(s[:first])
	minute, ok2 := javaParseInt(s[first+1 : second])
	if !ok1 || !ok2 || hour < 0 || hour >= 24 || minute < 0 || minute >= 60 {
		return 0, false
	}
	secText, fraction := s[second+1:], ""
	if period := strings.IndexByte(secText, '.'); period >= 0 {
		secText, fraction = secText[:period], secText[period+1:]
		first, _ := utf8.DecodeRuneInString(fraction)
		if fraction == "" || utf16Len(fraction) > 9 || !isJavaDigit(first) {
			return 0, false
		}
	}
	sec, ok := javaParseInt(secText)
	if !ok || sec < 0 || sec >= 60 {
		return 0, false
	}
	var nanos int64
	if fraction != "" {
		n, ok := javaParseInt(fraction + strings.Repeat("0", 9-utf16Len(fraction)))
		if !ok {
			return 0, false
		}
		nanos = n
	}
	return hour*nanosPerHour + minute*nanosPerMinute + sec*nanosPerSecond + nanos, true
}

// javaParseInt is Integer.parseInt: an optional sign and decimal digits
// (any Unicode decimal digit, as Character.digit reads them) that fit in
// an int32.
func javaParseInt(s string) (int64, bool) {
	body := s
	if s != "" && (s[0] == '+' || s[0] == '-') {
		body = s[1:]
	}
	if body == "" {
		return 0, false
	}
	var n int64
	for _, r := range body {
		d, ok := decimalDigit(r)
		if !ok {
			return 0, false
		}
		if n = n*10 + d; n > math.MaxInt32+1 {
			return 0, false
		}
	}
	if s[0] == '-' {
		n = -n
	}
	return n, n >= math.MinInt32 && n <= math.MaxInt32
}

// decimalDigit is Character.digit(c, 10) of one UTF-16 unit: a decimal
// digit (category Nd) of the Basic Multilingual Plane. Unicode encodes
// those in runs of ten, 0 to 9, so a digit's value is its distance from
// the start of its run, modulo ten.
func decimalDigit(r rune) (int64, bool) {
	if r >= '0' && r <= '9' {
		return int64(r - '0'), true
	}
	if !isJavaDigit(r) {
		return 0, false
	}
	start := r
	for unicode.IsDigit(start - 1) {
		start--
	}
	return int64(r-start) % 10, true
}

// isJavaDigit is Character.isDigit of one UTF-16 unit (a rune beyond the
// BMP is two units, neither a digit).
func isJavaDigit(r rune) bool { return r <= 0xFFFF && unicode.IsDigit(r) }

// utf16Len is the length of s as a Java string (UTF-16 code units).
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xFFFF {
			n++
		}
	}
	return n
}

// EncodeTimestamp serializes milliseconds since the epoch.
func EncodeTimestamp(ms int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(ms)) }

// EncodeDate serializes a date given as days since 1970-01-01.
func EncodeDate(days int64) ([]byte, error) {
	if days < math.MinInt32 || days > math.MaxInt32 {
		return nil, cqlerr.Invalidf("Date value %d days from the epoch is out of range", days)
	}
	return binary.BigEndian.AppendUint32(nil, uint32(days+dateEpoch)), nil
}

// DateDays returns a serialized date as days since 1970-01-01.
func DateDays(v []byte) (int64, error) {
	if len(v) != 4 {
		return 0, cqlerr.Invalidf("Expected 4 byte long for date (%d)", len(v))
	}
	return int64(binary.BigEndian.Uint32(v)) - dateEpoch, nil
}

// EncodeTime serializes nanoseconds since midnight.
func EncodeTime(nanos int64) ([]byte, error) {
	if nanos < 0 || nanos >= nanosPerDay {
		return nil, cqlerr.Invalidf("Time value %d is out of range [0, %d)", nanos, int64(nanosPerDay))
	}
	return binary.BigEndian.AppendUint64(nil, uint64(nanos)), nil
}
