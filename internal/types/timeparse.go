package types

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"time"

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

// parseTimestamp is TimestampSerializer.dateStringToTimestamp: 'now',
// milliseconds since the epoch, or a date-time in one of Cassandra's
// patterns. Without a zone the time is UTC (Partita's server zone).
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
	ms, ok := parseDateTime(source)
	if !ok {
		// TimestampSerializer.dateStringToTimestamp (Cassandra 5.0).
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

// number reads one or more ASCII digits as a Java int would parse them.
func (p *dtScanner) number() (int64, bool) {
	start := p.pos
	for !p.done() && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
		p.pos++
	}
	if p.pos == start || p.pos-start > 10 {
		return 0, false
	}
	n, _ := strconv.ParseInt(p.s[start:p.pos], 10, 64)
	return n, n <= math.MaxInt32
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

// parseDateTime accepts TimestampSerializer's patterns as commons-lang
// DateUtils.parseDateStrictly applies them: yyyy-MM-dd, optionally
// followed by ' ' or 'T' and HH:mm[:ss[.SSS]], then optionally a zone,
// either directly as Z, ±hh, ±hhmm or ±hh:mm, or after a space as ±hhmm,
// GMT±h:mm or a zone name. Fields are checked non-leniently; SSS is an
// integer count of milliseconds (".5" is 5 ms), as Java parses it; dates
// before 1582-10-15 are Julian, as java.util.GregorianCalendar has them.
func parseDateTime(s string) (int64, bool) {
	p := dtScanner{s: s}
	year, ok1 := p.number()
	ok2 := p.accept('-')
	month, ok3 := p.number()
	ok4 := p.accept('-')
	day, ok5 := p.number()
	if !(ok1 && ok2 && ok3 && ok4 && ok5) {
		return 0, false
	}
	var hour, minute, second, milli int64
	if (p.peek() == ' ' || p.peek() == 'T') && p.pos+1 < len(s) && isDigit(s[p.pos+1]) {
		p.pos++
		var ok bool
		if hour, ok = p.number(); !ok || !p.accept(':') {
			return 0, false
		}
		if minute, ok = p.number(); !ok {
			return 0, false
		}
		if p.accept(':') {
			if second, ok = p.number(); !ok {
				return 0, false
			}
			if p.accept('.') {
				if milli, ok = p.number(); !ok {
					return 0, false
				}
			}
		}
	}
	offset, ok := p.zone()
	if !ok || !p.done() {
		return 0, false
	}
	if year < 1 || year > 292278994 || hour > 23 || minute > 59 || second > 59 || milli > 999 {
		return 0, false
	}
	days, ok := javaCalendarDays(year, month, day)
	if !ok {
		return 0, false
	}
	ms := days*86400000 + hour*3600000 + minute*60000 + second*1000 + milli
	return ms - offset*1000, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// zone parses an optional zone suffix, returning its offset in seconds.
func (p *dtScanner) zone() (int64, bool) {
	switch {
	case p.done():
		return 0, true
	case p.accept('Z'):
		return 0, true
	case p.peek() == '+' || p.peek() == '-':
		return p.isoOffset()
	case p.accept(' '):
		return p.generalZone()
	}
	return 0, false
}

// isoOffset parses ISO 8601 offsets (the X patterns): ±hh, ±hhmm, ±hh:mm.
func (p *dtScanner) isoOffset() (int64, bool) {
	neg := p.s[p.pos] == '-'
	p.pos++
	h, ok := p.fixedDigits(2)
	if !ok {
		return 0, false
	}
	var m int64
	if p.accept(':') {
		if m, ok = p.fixedDigits(2); !ok {
			return 0, false
		}
	} else if !p.done() {
		if m, ok = p.fixedDigits(2); !ok {
			return 0, false
		}
	}
	return signedOffset(neg, h, m)
}

func signedOffset(neg bool, h, m int64) (int64, bool) {
	if h > 23 || m > 59 {
		return 0, false
	}
	off := h*3600 + m*60
	if neg {
		off = -off
	}
	return off, true
}

// generalZone parses the z patterns: RFC 822 ±hhmm, GMT±h:mm, or a name.
func (p *dtScanner) generalZone() (int64, bool) {
	rest := p.s[p.pos:]
	p.pos = len(p.s)
	if len(rest) == 5 && (rest[0] == '+' || rest[0] == '-') {
		q := dtScanner{s: rest, pos: 1}
		h, ok1 := q.fixedDigits(2)
		m, ok2 := q.fixedDigits(2)
		if ok1 && ok2 {
			return signedOffset(rest[0] == '-', h, m)
		}
		return 0, false
	}
	lower := strings.ToLower(rest)
	if strings.HasPrefix(lower, "gmt") && len(rest) > 3 && (rest[3] == '+' || rest[3] == '-') {
		q := dtScanner{s: rest, pos: 4}
		h, ok1 := q.number()
		ok2 := q.accept(':')
		m, ok3 := q.fixedDigits(2)
		if ok1 && ok2 && ok3 && q.done() && q.pos-4 <= 5 {
			return signedOffset(rest[3] == '-', h, m)
		}
		return 0, false
	}
	off, ok := zoneNames[lower]
	return int64(off) * 60, ok
}

// zoneNames maps zone names Java's DateFormatSymbols offers (lower case)
// to fixed offsets in minutes: a name stands for its standard or daylight
// offset, not for a region's rules.
var zoneNames = map[string]int{
	"utc": 0, "gmt": 0, "ut": 0, "z": 0, "zulu": 0, "wet": 0,
	"coordinated universal time": 0, "greenwich mean time": 0,
	"west": 60, "bst": 60, "cet": 60, "cest": 120, "met": 60, "mest": 120,
	"central european time": 60, "central european summer time": 120,
	"eet": 120, "eest": 180, "msk": 180, "ist": 330, "pkt": 300, "ict": 420,
	"sgt": 480, "hkt": 480, "awst": 480, "jst": 540, "kst": 540, "acst": 570,
	"aest": 600, "aedt": 660, "nzst": 720, "nzdt": 780,
	"est": -300, "edt": -240, "cst": -360, "cdt": -300, "mst": -420, "mdt": -360,
	"pst": -480, "pdt": -420, "akst": -540, "akdt": -480, "hst": -600,
	"eastern standard time": -300, "eastern daylight time": -240,
	"central standard time": -360, "central daylight time": -300,
	"mountain standard time": -420, "mountain daylight time": -360,
	"pacific standard time": -480, "pacific daylight time": -420,
}

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

// parseDate is SimpleDateSerializer.dateStringToDays: a raw unsigned day
// number, or an ISO-8601 local date (yyyy-MM-dd; years beyond 4 digits need
// a sign), returning the serialized uint32.
func parseDate(source string) (uint32, error) {
	if isJavaLong(source) {
		n, err := strconv.ParseInt(source, 10, 64)
		if err != nil || n < 0 || n > math.MaxUint32 {
			return 0, cqlerr.Invalidf("Unable to make unsigned int (for date) from: '%s'", source)
		}
		return uint32(n), nil
	}
	y, m, d, ok := parseISOLocalDate(source)
	if !ok {
		return 0, cqlerr.Invalidf("Unable to coerce '%s' to a formatted date (long)", source)
	}
	days := daysFromCivil(y, m, d)
	switch {
	case days < math.MinInt32:
		return 0, cqlerr.Invalidf("Input date %s is less than min supported date %s", source, "-5877641-06-23T00:00Z")
	case days > math.MaxInt32:
		return 0, cqlerr.Invalidf("Input date %s is greater than max supported date %s", source, "5881580-07-11T00:00Z")
	}
	return uint32(days + dateEpoch), nil
}

// parseISOLocalDate follows DateTimeFormatter.ISO_LOCAL_DATE with STRICT
// resolution: a 4 to 10 digit year (a '+' only when over 4 digits, '-' any
// time), then -MM-dd with two digits each, and a real calendar date.
func parseISOLocalDate(s string) (y, m, d int64, ok bool) {
	neg, plus := strings.HasPrefix(s, "-"), strings.HasPrefix(s, "+")
	if neg || plus {
		s = s[1:]
	}
	i := strings.IndexByte(s, '-')
	if i < 4 || i > 10 || len(s) != i+6 || s[i+3] != '-' || plus && i <= 4 {
		return 0, 0, 0, false
	}
	p := dtScanner{s: s}
	y, ok1 := p.fixedDigits(i)
	p.pos++
	m, ok2 := p.fixedDigits(2)
	p.pos++
	d, ok3 := p.fixedDigits(2)
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 {
		return 0, 0, 0, false
	}
	if neg {
		y = -y
	}
	// Proleptic Gregorian leap rule with astronomical year numbering.
	if d > daysInMonth(y, m, false) {
		return 0, 0, 0, false
	}
	return y, m, d, true
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
		if fraction == "" || len(fraction) > 9 || !isDigit(fraction[0]) {
			return 0, false
		}
	}
	sec, ok := javaParseInt(secText)
	if !ok || sec < 0 || sec >= 60 {
		return 0, false
	}
	var nanos int64
	if fraction != "" {
		n, ok := javaParseInt(fraction + strings.Repeat("0", 9-len(fraction)))
		if !ok {
			return 0, false
		}
		nanos = n
	}
	return hour*nanosPerHour + minute*nanosPerMinute + sec*nanosPerSecond + nanos, true
}

// javaParseInt is Integer.parseInt: an optional sign and ASCII digits that
// fit in an int32.
func javaParseInt(s string) (int64, bool) {
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 || body == "" {
		return 0, false
	}
	for i := 0; i < len(body); i++ {
		if !isDigit(body[i]) {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 32)
	return n, err == nil
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
