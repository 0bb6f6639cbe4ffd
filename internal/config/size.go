package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sizeUnits are the units of a data size, largest first, as Cassandra
// spells them (config/DataStorageSpec.java: "GiB", "MiB", "KiB", "B").
var sizeUnits = []struct {
	symbol string
	bytes  int64
}{
	{"GiB", 1 << 30},
	{"MiB", 1 << 20},
	{"KiB", 1 << 10},
	{"B", 1},
}

// ParseSize parses a data size such as "16MiB" into bytes. The unit is
// case sensitive and may be left out only for 0, as in Cassandra.
func ParseSize(s string) (int64, error) {
	digits, unit := s, ""
	for _, u := range sizeUnits {
		if rest, ok := strings.CutSuffix(s, u.symbol); ok {
			digits, unit = rest, u.symbol
			break
		}
	}
	n, err := strconv.ParseUint(digits, 10, 63)
	if err != nil || (unit == "" && n != 0) {
		return 0, fmt.Errorf("invalid data size %q: want a non-negative integer and a unit, one of B, KiB, MiB, GiB (case matters), e.g. \"16MiB\"", s)
	}
	mult := int64(1)
	for _, u := range sizeUnits {
		if u.symbol == unit {
			mult = u.bytes
		}
	}
	if int64(n) > math.MaxInt64/mult {
		return 0, fmt.Errorf("invalid data size %q: too large", s)
	}
	return int64(n) * mult, nil
}

// FormatSize writes bytes in the largest unit that divides it exactly.
func FormatSize(bytes int64) string {
	for _, u := range sizeUnits {
		if bytes != 0 && bytes%u.bytes == 0 {
			return strconv.FormatInt(bytes/u.bytes, 10) + u.symbol
		}
	}
	return "0B"
}
