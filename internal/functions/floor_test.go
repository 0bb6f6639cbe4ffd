package functions

import (
	"testing"
	"time"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/types"
)

// The cases of Cassandra's test/unit/org/apache/cassandra/cql3/DurationTest.java
// (testFloorTimestamp*, testInvalidFloorTimestamp, testFloorTime,
// testInvalidFloorTime), expected values as asserted there.
func TestFloorTimestamp(t *testing.T) {
	cases := []struct{ time, duration, start, want string }{
		{"2016-09-27T16:12:00", "2h", "2016-09-27T16:12:00", "2016-09-27T16:12:00"},
		{"2016-09-27T18:12:00", "0h", "2016-09-27T16:12:00", "2016-09-27T18:12:00"},
		{"2016-09-27T18:12:00", "2h", "2016-09-27T16:12:00", "2016-09-27T18:12:00"},
		{"2016-09-27T16:13:00", "2h", "2016-09-27T16:12:00", "2016-09-27T16:12:00"},
		{"2016-09-27T16:12:00", "2h", "2016-09-27T00:00:00", "2016-09-27T16:00:00"},
		{"2016-09-27T16:12:00", "2d", "2016-09-01T00:00:00", "2016-09-27T00:00:00"},
		{"2016-09-27T16:12:00", "2d", "2016-08-01T00:00:00", "2016-09-26T00:00:00"},
		{"2016-09-27T16:12:00", "2d12h", "2016-09-01T00:00:00", "2016-09-26T00:00:00"},
		{"2016-09-01T00:00:00", "2mo", "2016-09-01T00:00:00", "2016-09-01T00:00:00"},
		{"2016-09-27T16:12:00", "2mo", "2016-09-01T00:00:00", "2016-09-01T00:00:00"},
		{"2016-09-27T16:12:00", "1mo", "2016-01-01T00:00:00", "2016-09-01T00:00:00"},
		{"2016-09-27T16:12:00", "2mo", "2015-01-01T00:00:00", "2016-09-01T00:00:00"},
		{"2016-09-27T16:12:00", "2mo", "2015-02-02T00:00:00", "2016-08-02T00:00:00"},
		{"2016-09-27T16:12:00", "2mo2d", "2016-01-01T00:00:00", "2016-09-09T00:00:00"},
		{"2016-09-27T16:12:00", "2mo5d", "2016-01-01T00:00:00", "2016-09-21T00:00:00"},
		{"2016-09-04T16:12:00", "2mo5d", "2016-07-01T00:00:00", "2016-07-01T00:00:00"},
		{"2016-09-27T16:12:00", "2mo10d", "2016-01-01T00:00:00", "2016-07-31T00:00:00"},
		{"2016-09-27T16:12:00", "2mo12d", "2016-01-01T00:00:00", "2016-08-06T00:00:00"},
		{"2016-04-27T16:12:00", "1mo30d", "2016-01-01T00:00:00", "2016-03-02T00:00:00"},
		{"2015-04-27T16:12:00", "1mo30d", "2015-01-01T00:00:00", "2015-03-03T00:00:00"},
		{"2016-09-27T18:14:00", "5us", "2016-09-27T16:12:00", "2016-09-27T18:14:00"},
		{"2016-09-27T18:14:00", "1h5us", "2016-09-27T16:12:00", "2016-09-27T18:12:00"},
		{"2016-07-02T00:00:00", "2m", "2016-06-30T23:58:00", "2016-07-02T00:00:00"},
		{"2016-07-02T00:00:00", "2mo2d8h", "2016-01-01T00:00:00", "2016-05-05T16:00:00"},
	}
	for _, c := range cases {
		months, days, nanos := duration(t, c.duration)
		got, err := floorTimestamp(millis(t, c.time), months, days, nanos, millis(t, c.start))
		if err != nil {
			t.Errorf("floor(%s, %s, %s): %v", c.time, c.duration, c.start, err)
			continue
		}
		if want := millis(t, c.want); got != want {
			t.Errorf("floor(%s, %s, %s) = %s, want %s", c.time, c.duration, c.start,
				time.UnixMilli(got).UTC().Format("2006-01-02T15:04:05.000"), c.want)
		}
	}
	errs := []struct{ time, duration, start, msg string }{
		{"2016-09-27T16:12:00", "2h", "2017-09-01T00:00:00", "The floor function starting time is greater than the provided time"},
		{"2016-09-27T16:12:00", "-2h", "2016-09-27T00:00:00", "Negative durations are not supported by the floor function"},
	}
	for _, c := range errs {
		months, days, nanos := duration(t, c.duration)
		_, err := floorTimestamp(millis(t, c.time), months, days, nanos, millis(t, c.start))
		if e := cqlerr.As(err); err == nil || e.Code != cqlerr.Invalid || e.Message != c.msg {
			t.Errorf("floor(%s, %s, %s): error %v, want %q", c.time, c.duration, c.start, err, c.msg)
		}
	}
}

func TestFloorTime(t *testing.T) {
	call := func(tm, d string) ([]byte, error) {
		tv, err := types.ParseLiteral(types.Time, types.LitString, tm)
		if err != nil {
			t.Fatal(err)
		}
		dv, err := types.ParseLiteral(types.Duration, types.LitDuration, d)
		if err != nil {
			t.Fatal(err)
		}
		return floorTime([][]byte{tv, dv})
	}
	got, err := call("16:12:00", "2h")
	want, _ := types.ParseLiteral(types.Time, types.LitString, "16:00:00")
	if err != nil || types.Compare(types.Time, got, want) != 0 {
		t.Errorf("floor(16:12:00, 2h) = %s, %v; want 16:00:00", types.Format(types.Time, got), err)
	}
	for d, msg := range map[string]string{
		"2d":  "For time values, the floor can only be computed for durations smaller that a day",
		"25h": "For time values, the floor can only be computed for durations smaller that a day",
		"-2h": "Negative durations are not supported by the floor function",
	} {
		if _, err := call("16:12:00", d); err == nil || cqlerr.As(err).Message != msg {
			t.Errorf("floor(16:12:00, %s): error %v, want %q", d, err, msg)
		}
	}
}

// TestJavaAddMonths checks the calendar arithmetic floor relies on against
// GregorianCalendar.add(MONTH): a missing day of month is clamped to the
// month's last day, cumulatively.
func TestJavaAddMonths(t *testing.T) {
	cases := []struct {
		from   string
		months int64
		want   string
	}{
		{"2016-01-31T10:00:00", 1, "2016-02-29T10:00:00"},
		{"2015-01-31T10:00:00", 1, "2015-02-28T10:00:00"},
		{"2016-03-31T00:00:00", -1, "2016-02-29T00:00:00"},
		{"2016-01-31T00:00:00", 14, "2017-03-31T00:00:00"},
		{"2016-12-15T00:00:00", 1, "2017-01-15T00:00:00"},
		{"2016-01-15T00:00:00", -1, "2015-12-15T00:00:00"},
		{"1900-01-31T00:00:00", 1, "1900-02-28T00:00:00"},
	}
	for _, c := range cases {
		if got := types.JavaAddMonths(millis(t, c.from), c.months); got != millis(t, c.want) {
			t.Errorf("%s + %d months = %s, want %s", c.from, c.months,
				time.UnixMilli(got).UTC().Format("2006-01-02T15:04:05"), c.want)
		}
	}
}

func millis(t *testing.T, s string) int64 {
	t.Helper()
	tm, err := time.Parse("2006-01-02T15:04:05", s)
	if err != nil {
		t.Fatal(err)
	}
	return tm.UnixMilli()
}

func duration(t *testing.T, s string) (months, days, nanos int64) {
	t.Helper()
	v, err := types.ParseLiteral(types.Duration, types.LitDuration, s)
	if err != nil {
		t.Fatal(err)
	}
	m, d, n, err := types.DecodeDuration(v)
	if err != nil {
		t.Fatal(err)
	}
	return int64(m), int64(d), n
}
