package types

// Month arithmetic on instants the way Cassandra does it, with a
// java.util.GregorianCalendar in UTC (Duration.floorTimestamp): the hybrid
// calendar (Julian before 1582-10-15), years AD.

// JavaYearMonth returns the year and month (1-12) of an instant given in
// milliseconds since the epoch.
func JavaYearMonth(ms int64) (year, month int64) {
	y, m, _ := javaCalendarDate(floorDiv(ms, msPerDay))
	return y, m
}

// JavaAddMonths is GregorianCalendar.add(Calendar.MONTH, n): the month
// moves by n, a day of month the new month lacks becomes its last day, and
// the time of day is kept.
func JavaAddMonths(ms, n int64) int64 {
	days := floorDiv(ms, msPerDay)
	timeOfDay := ms - days*msPerDay
	y, m, d := javaCalendarDate(days)
	months := y*12 + m - 1 + n
	y, m = floorDiv(months, 12), months-floorDiv(months, 12)*12+1
	julian := y < 1582 || y == 1582 && m < 10
	d = min(d, daysInMonth(y, m, julian))
	out, ok := javaCalendarDays(y, m, d)
	if !ok {
		// Days 5 to 14 of October 1582 do not exist; they are read as
		// Julian dates.
		out = julianDayNumber(y, m, d) - 2440588
	}
	return out*msPerDay + timeOfDay
}
