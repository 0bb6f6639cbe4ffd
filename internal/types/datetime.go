package types

import (
	"math"
	"strconv"

	"github.com/partita-db/partita/internal/cqlerr"
)

// Date-time strings of timestamp literals, parsed as Cassandra 5.0's
// TimestampSerializer.dateStringToTimestamp does (serializers/
// TimestampSerializer.java, generateFormatters). The string is offered, in
// order, to java.time DateTimeFormatters (ResolverStyle SMART, strict
// parsing, ISO chronology), and the first that parses all of it and
// resolves it gives the instant:
//
//  1. y-M-d'T'H:m[:s] and y-M-d H:m[:s], then a fraction
//     (appendFraction(MILLI_OF_SECOND, 0, 9, true)), then nothing (the
//     server's zone, UTC), " z", " zzzz", " X", "X" or "XXX";
//  2. yyyy-MM-dd, then " z", " zzzz", " X", "X" or "XXX", at midnight;
//  3. DateTimeFormatter.ISO_DATE (a date and an optional offset id), at
//     midnight, in the server's zone unless the string has an offset.
//
// The formatters of a family differ only in the zone suffix, and a suffix
// two of them accept means the same zone in both, so a family is parsed
// once with the union of its suffixes. Families 1 and 2-3 cannot both
// accept a string (1 needs a time), and 2 and 3 give the same instant when
// both do.
//
// What follows from java.time's rules, and differs from the
// SimpleDateFormat patterns of Cassandra 4: numbers in family 1 have any
// count of digits (up to 19, no sign), so '2026-1-2 6:0' is a date-time
// while '2026-1-2' is nothing; a fraction of any length up to 9 digits is
// read as a decimal fraction and cut to milliseconds ('.5' is 500 ms,
// '.1234' 123 ms), a '.' without digits is a zero fraction, and a
// fraction needs seconds before it; a day past the end of its month is the
// month's last day ('2026-02-30' is February 28) but a day beyond 31 is an
// error; 24:00 (with zero minutes, seconds and milliseconds) is midnight
// of the next day; the calendar is the proleptic Gregorian one, years 1 to 999999999
// in families 1 and 2 (year of era), and -999999999 to 999999999 in
// family 3 (ISO_DATE's proleptic year, with a sign when beyond four
// digits); zone names are the JDK's, with their regions' rules.

// dateTimeOutcome is the result of one family: no match, an instant, or an
// instant beyond the milliseconds a long can hold (Instant.toEpochMilli's
// ArithmeticException, which Cassandra does not catch).
type dateTimeOutcome int

const (
	dateTimeNoMatch dateTimeOutcome = iota
	dateTimeOK
	dateTimeOverflow
)

// errLongOverflow is the error a client gets when Instant.toEpochMilli
// overflows during parsing: Cassandra does not catch the
// ArithmeticException, so it is a Server error in Java's words.
func errLongOverflow() error { return cqlerr.Serverf("java.lang.ArithmeticException: long overflow") }

// parseDateTime parses a date-time string (not 'now', not a number) into
// milliseconds since the epoch.
func parseDateTime(s string) (int64, dateTimeOutcome) {
	if ms, outcome := parseDateAndTime(s); outcome != dateTimeNoMatch {
		return ms, outcome
	}
	if ms, outcome := parseDateWithZone(s); outcome != dateTimeNoMatch {
		return ms, outcome
	}
	return parseISODate(s)
}

// localDate is a date as the parser read it, before resolution.
type localDate struct{ year, month, day int64 }

// resolve is IsoChronology.resolveYMD in SMART mode: the year, month and
// day must be in their ranges (1-31 for the day), and a day past the end
// of its month becomes the month's last day. It returns days since
// 1970-01-01.
func (d localDate) resolve() (int64, bool) {
	if d.year < -maxJavaYear || d.year > maxJavaYear || d.month < 1 || d.month > 12 || d.day < 1 || d.day > 31 {
		return 0, false
	}
	return daysFromCivil(d.year, d.month, min(d.day, daysInMonth(d.year, d.month, false))), true
}

// maxJavaYear is Year.MAX_VALUE, the range of LocalDate years.
const maxJavaYear = 999999999

// localTime is a time of day as the parser read it, before resolution.
type localTime struct {
	hour, minute, second int64
	milli                int64
	hasSecond            bool
	hasFraction          bool
}

// resolve is Parsed.resolveTime in SMART mode: the fields must be in
// their ranges, a fraction needs seconds (Parsed.resolveTimeLenient
// leaves such a time unresolved), and 24:00 exactly is midnight of the
// next day. It returns the second of the day and the days to add.
func (t localTime) resolve() (second, extraDays int64, ok bool) {
	if t.hasFraction && !t.hasSecond || t.minute > 59 {
		return 0, 0, false
	}
	if t.hour == 24 && t.minute == 0 && t.second == 0 && t.milli == 0 {
		return 0, 1, true
	}
	if t.hour > 23 || t.second > 59 {
		return 0, 0, false
	}
	return t.hour*3600 + t.minute*60 + t.second, 0, true
}

// maxLocalDays is LocalDate.MAX (+999999999-12-31) in days since the
// epoch; minLocalDays is LocalDate.MIN (-999999999-01-01).
const (
	maxLocalDays = 365241780471
	minLocalDays = -365243219162
)

// toEpochMilli is Instant.toEpochMilli of an epoch second and a
// millisecond: exact, or an overflow where the value leaves the range of
// a long.
func toEpochMilli(sec, milli int64) (int64, dateTimeOutcome) {
	if sec < 0 && milli > 0 {
		// Computed as (sec+1)*1000 + (milli-1000), which reaches
		// Long.MIN_VALUE without an intermediate overflow.
		if sec+1 < math.MinInt64/1000 {
			return 0, dateTimeOverflow
		}
		ms, adj := (sec+1)*1000, milli-1000
		if ms < math.MinInt64-adj {
			return 0, dateTimeOverflow
		}
		return ms + adj, dateTimeOK
	}
	if sec > math.MaxInt64/1000 || sec < math.MinInt64/1000 {
		return 0, dateTimeOverflow
	}
	ms := sec * 1000
	if ms > math.MaxInt64-milli {
		return 0, dateTimeOverflow
	}
	return ms + milli, dateTimeOK
}

// localMillis is the instant of a resolved local date-time in the zone it
// was written in (families 1 and 2, and 3 without an offset).
func localMillis(days, secondOfDay, milli int64, zone parsedZone) (int64, dateTimeOutcome) {
	if days > maxLocalDays {
		return 0, dateTimeNoMatch // a 24:00 past LocalDate.MAX
	}
	return toEpochMilli(zone.instant(days*86400+secondOfDay), milli)
}

// parseDateAndTime is family 1: y-M-d, 'T' or ' ', H:m[:s], a fraction,
// a zone suffix.
func parseDateAndTime(s string) (int64, dateTimeOutcome) {
	p := dtScanner{s: s}
	var d localDate
	var t localTime
	var ok bool
	if d.year, ok = p.javaValue(); !ok || !p.accept('-') {
		return 0, dateTimeNoMatch
	}
	if d.month, ok = p.javaValue(); !ok || !p.accept('-') {
		return 0, dateTimeNoMatch
	}
	if d.day, ok = p.javaValue(); !ok || !p.accept('T') && !p.accept(' ') {
		return 0, dateTimeNoMatch
	}
	if t.hour, ok = p.javaValue(); !ok || !p.accept(':') {
		return 0, dateTimeNoMatch
	}
	if t.minute, ok = p.javaValue(); !ok {
		return 0, dateTimeNoMatch
	}
	// [:s]: an optional section, so a ':' without digits is left for the
	// parts after it, which never accept one.
	if p.peek() == ':' && p.pos+1 < len(s) && isDigit(s[p.pos+1]) {
		p.pos++
		if t.second, ok = p.javaValue(); !ok {
			return 0, dateTimeNoMatch
		}
		t.hasSecond = true
	}
	if p.accept('.') {
		t.hasFraction = true
		t.milli = p.fractionMillis()
	}
	zone, ok := dateTimeZoneSuffix(s[p.pos:], true)
	if !ok || d.year < 1 {
		// y is the year of era, which SMART resolution wants in 1..max.
		return 0, dateTimeNoMatch
	}
	days, ok := d.resolve()
	if !ok {
		return 0, dateTimeNoMatch
	}
	second, extraDays, ok := t.resolve()
	if !ok {
		return 0, dateTimeNoMatch
	}
	return localMillis(days+extraDays, second, t.milli, zone)
}

// dateTimeZoneSuffix parses the zone suffix of families 1 and 2: nothing
// (only when empty is allowed; the server's zone), " z", " zzzz" or " X"
// (a space, then a zone name or an offset), "X" or "XXX" (an offset).
func dateTimeZoneSuffix(rest string, empty bool) (parsedZone, bool) {
	if rest == "" {
		return utcZone, empty
	}
	if rest[0] == ' ' {
		if z, ok := parseZoneText(rest[1:]); ok {
			return z, true
		}
		off, ok := parseOffset(rest[1:], offsetHHmm, "Z", false)
		return parsedZone{offset: off}, ok
	}
	if off, ok := parseOffset(rest, offsetHHmm, "Z", false); ok {
		return parsedZone{offset: off}, true
	}
	off, ok := parseOffset(rest, offsetHHMM, "Z", false)
	return parsedZone{offset: off}, ok
}

// parseDateWithZone is family 2: yyyy-MM-dd and a zone suffix.
func parseDateWithZone(s string) (int64, dateTimeOutcome) {
	p := dtScanner{s: s}
	year, ok := p.paddedYear(19)
	if !ok || year < 1 {
		// yyyy is the year of era: a sign can only be '+'.
		return 0, dateTimeNoMatch
	}
	d, ok := p.monthDay(year)
	if !ok {
		return 0, dateTimeNoMatch
	}
	zone, ok := dateTimeZoneSuffix(s[p.pos:], false)
	if !ok {
		return 0, dateTimeNoMatch
	}
	days, ok := d.resolve()
	if !ok {
		return 0, dateTimeNoMatch
	}
	return localMillis(days, 0, 0, zone)
}

// parseISODate is family 3: ISO_LOCAL_DATE, then optionally an offset id
// (+HH:MM[:ss] or Z, in any case: ISO_DATE parses case-insensitively).
// The zone the result is expressed in is the server's (the formatter's
// withZone), and the date in it must still be a LocalDate.
func parseISODate(s string) (int64, dateTimeOutcome) {
	p := dtScanner{s: s}
	year, ok := p.paddedYear(10)
	if !ok {
		return 0, dateTimeNoMatch
	}
	d, ok := p.monthDay(year)
	if !ok {
		return 0, dateTimeNoMatch
	}
	days, ok := d.resolve()
	if !ok {
		return 0, dateTimeNoMatch
	}
	if p.done() {
		return localMillis(days, 0, 0, utcZone)
	}
	offset, ok := parseOffset(s[p.pos:], offsetHHMMss, "Z", true)
	if !ok {
		return 0, dateTimeNoMatch
	}
	sec := days*86400 - offset
	if utcDays := floorDiv(sec, 86400); utcDays < minLocalDays || utcDays > maxLocalDays {
		return 0, dateTimeNoMatch
	}
	return toEpochMilli(sec, 0)
}

// javaValue reads a number as appendValue(field) parses it strictly: 1 to
// 19 ASCII digits. A sign is never accepted here: '+' is refused by
// SignStyle.NORMAL, and '-' gives a negative (or a refused minus zero)
// that no field of these patterns allows.
func (p *dtScanner) javaValue() (int64, bool) {
	start := p.pos
	for !p.done() && isDigit(p.s[p.pos]) {
		p.pos++
	}
	n := p.pos - start
	if n == 0 || n > 19 {
		return 0, false
	}
	var v int64
	for _, c := range p.s[start:p.pos] {
		d := int64(c - '0')
		if v > (math.MaxInt64-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

// fractionMillis reads appendFraction's 0 to 9 digits after the '.' and
// returns them as milliseconds, rounded down.
func (p *dtScanner) fractionMillis() int64 {
	var ms int64
	n := 0
	for ; n < 9 && !p.done() && isDigit(p.s[p.pos]); n++ {
		if n < 3 {
			ms = ms*10 + int64(p.s[p.pos]-'0')
		}
		p.pos++
	}
	for ; n < 3; n++ {
		ms *= 10
	}
	return ms
}

// paddedYear reads a year as appendValue(field, 4, maxDigits,
// SignStyle.EXCEEDS_PAD) parses it strictly: four digits, or a sign and
// four or more ('+' only with more than four), at most maxDigits; minus
// zero is refused.
func (p *dtScanner) paddedYear(maxDigits int) (int64, bool) {
	sign := p.peek()
	if sign == '+' || sign == '-' {
		p.pos++
	}
	start := p.pos
	for !p.done() && isDigit(p.s[p.pos]) && p.pos-start < maxDigits {
		p.pos++
	}
	n := p.pos - start
	switch {
	case n < 4, sign == '+' && n == 4, sign != '+' && sign != '-' && n > 4:
		return 0, false
	}
	v, err := strconv.ParseInt(p.s[start:p.pos], 10, 64)
	if err != nil || sign == '-' && v == 0 {
		return 0, false
	}
	if sign == '-' {
		v = -v
	}
	return v, true
}

// monthDay reads -MM-dd (two digits each, no sign) after a year.
func (p *dtScanner) monthDay(year int64) (localDate, bool) {
	d := localDate{year: year}
	var ok bool
	if !p.accept('-') {
		return d, false
	}
	if d.month, ok = p.fixedDigits(2); !ok || !p.accept('-') {
		return d, false
	}
	d.day, ok = p.fixedDigits(2)
	return d, ok
}
