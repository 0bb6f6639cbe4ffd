package functions

import (
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/types"
)

// floor(t, duration [, start]) rounds a time down to start plus a whole
// number of durations (cql3/functions/TimeFcts.java FloorFunction and
// floorTime, duration/Duration.java floorTimestamp and floorTime). GROUP BY
// may group on it: it never decreases as t grows (MonotonicFirstArg).
func registerFloorFunctions() {
	for _, from := range []*types.Type{types.Timestamp, types.Timeuuid, types.Date} {
		ret, start := types.Timestamp, types.Timestamp
		if from.Kind == types.KindDate {
			ret, start = types.Date, types.Date
		}
		register(floorFunc(from, ret, nil))
		register(floorFunc(from, ret, start))
	}
	register(&Func{Name: "floor", Args: []*types.Type{types.Time, types.Duration}, Return: types.Time,
		Deterministic: true, MonotonicFirstArg: true, Impl: floorTime})
}

func floorFunc(from, ret, start *types.Type) *Func {
	args := []*types.Type{from, types.Duration}
	if start != nil {
		args = append(args, start)
	}
	return &Func{Name: "floor", Args: args, Return: ret, Deterministic: true, MonotonicFirstArg: true,
		Impl: func(a [][]byte) ([]byte, error) {
			t, err := millisOf(from, a[0])
			if err != nil {
				return nil, err
			}
			months, days, nanos, err := types.DecodeDuration(a[1])
			if err != nil {
				return nil, err
			}
			if err := checkFloorPrecision(from, a[1], nanos); err != nil {
				return nil, err
			}
			var startMillis int64
			if start != nil {
				if startMillis, err = millisOf(start, a[2]); err != nil {
					return nil, err
				}
			}
			floor, err := floorTimestamp(t, int64(months), int64(days), nanos, startMillis)
			if err != nil {
				return nil, err
			}
			if ret.Kind == types.KindDate {
				return types.EncodeDate(floorDiv(floor, msPerDay))
			}
			return types.EncodeTimestamp(floor), nil
		}}
}

const msPerDay = 86400000

// checkFloorPrecision is FloorFunction.validateDuration: timestamps floor to
// whole milliseconds, dates to whole days.
func checkFloorPrecision(from *types.Type, duration []byte, nanos int64) error {
	if from.Kind == types.KindDate {
		if nanos != 0 {
			return cqlerr.Invalidf("The floor on date values cannot be computed for the %s duration as precision is below 1 day", types.Format(types.Duration, duration))
		}
		return nil
	}
	if nanos%1e6 != 0 {
		return cqlerr.Invalidf("The floor cannot be computed for the %s duration as precision is below 1 millisecond", types.Format(types.Duration, duration))
	}
	return nil
}

// floorTimestamp is Duration.floorTimestamp: the largest start + k*duration
// not after t. Without months a duration is a fixed number of
// milliseconds; with months, k is estimated from the months between start
// and t and lowered until the floor is not after t, moving a calendar
// month by month as Cassandra's does (so a month-end start is clamped the
// same way).
func floorTimestamp(t, months, days, nanos, start int64) (int64, error) {
	if start > t {
		return 0, cqlerr.Invalidf("The floor function starting time is greater than the provided time")
	}
	if months < 0 || days < 0 || nanos < 0 {
		return 0, cqlerr.Invalidf("Negative durations are not supported by the floor function")
	}
	fixed := days*msPerDay + nanos/1e6
	if months == 0 {
		if fixed == 0 {
			return t, nil
		}
		return t - (t-start)%fixed, nil
	}
	year, month := types.JavaYearMonth(t)
	startYear, startMonth := types.JavaYearMonth(start)
	// Java int arithmetic: the month count and multiplier are 32-bit.
	multiplier := int64(int32((year-startYear)*12+month-startMonth) / int32(months))
	calendar := types.JavaAddMonths(start, int64(int32(multiplier*months)))
	if days == 0 && nanos == 0 {
		return calendar, nil
	}
	floor := calendar + multiplier*fixed
	for floor > t {
		multiplier--
		calendar = types.JavaAddMonths(calendar, -months)
		floor = calendar + multiplier*fixed
	}
	return max(start, floor), nil
}

// floorTime is Duration.floorTime for time values (nanoseconds of a day).
func floorTime(a [][]byte) ([]byte, error) {
	t, err := types.Int64(types.Time, a[0])
	if err != nil {
		return nil, err
	}
	months, days, nanos, err := types.DecodeDuration(a[1])
	if err != nil {
		return nil, err
	}
	if months < 0 || days < 0 || nanos < 0 {
		return nil, cqlerr.Invalidf("Negative durations are not supported by the floor function")
	}
	if months != 0 || days != 0 || nanos > 24*3600*1e9 {
		return nil, cqlerr.Invalidf("For time values, the floor can only be computed for durations smaller that a day")
	}
	if nanos == 0 {
		return a[0], nil
	}
	return types.EncodeTime(t - t%nanos)
}
