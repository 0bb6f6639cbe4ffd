package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// durationUnits are the units of a duration as Cassandra spells them
// (config/DurationSpec.java), longest symbol first so that "ms" is not
// taken for "s".
var durationUnits = []struct {
	symbol string
	unit   time.Duration
}{
	{"ms", time.Millisecond}, {"us", time.Microsecond}, {"µs", time.Microsecond}, {"ns", time.Nanosecond},
	{"d", 24 * time.Hour}, {"h", time.Hour}, {"m", time.Minute}, {"s", time.Second},
}

// ParseDuration parses a duration such as "30s" or "500ms": a whole number
// and one unit, as in cassandra.yaml 4.1; the unit may be left out only
// for 0.
func ParseDuration(s string) (time.Duration, error) {
	if s == "0" {
		return 0, nil
	}
	for _, u := range durationUnits {
		digits, ok := strings.CutSuffix(s, u.symbol)
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(digits, 10, 64)
		if err != nil || n < 0 || digits == "" || digits[0] == '+' {
			break
		}
		if n > int64(1<<63-1)/int64(u.unit) {
			return 0, fmt.Errorf("%q is too long", s)
		}
		return time.Duration(n) * u.unit, nil
	}
	return 0, fmt.Errorf("invalid duration %q (want a whole number and a unit: d, h, m, s, ms, us or ns)", s)
}
