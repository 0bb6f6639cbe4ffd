package catalog

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/partita-db/partita/internal/cqlerr"
)

// Compaction options are validated as Cassandra 5.0's CompactionParams and
// each strategy's validateOptions do, with their messages (verified against
// Cassandra 5.0.6: testdata/schema_options). Partita compacts nothing
// itself; the options are kept and shown as Cassandra keeps them.

const compactionPackage = "org.apache.cassandra.db.compaction."

// compactionStrategy is what a strategy accepts beyond the class: its
// sub-options with their checks, and whether the thresholds (min_threshold,
// max_threshold) belong to it, as they do to every strategy but UCS.
type compactionStrategy struct {
	options    map[string]optionCheck
	thresholds bool
}

// optionCheck validates one sub-option's value.
type optionCheck func(name, value string) error

var (
	// AbstractCompactionStrategy.validateOptions.
	tombstoneOptions = map[string]optionCheck{
		"tombstone_threshold":            checkTombstoneThreshold,
		"tombstone_compaction_interval":  checkNonNegativeLong("%s must be greater than 0, but was %d"),
		"unchecked_tombstone_compaction": checkStrictBool,
		"only_purge_repaired_tombstones": checkStrictBool,
		"log_all":                        anyValue,
		"provide_overlapping_tombstones": checkOverlappingTombstones,
	}
	// SizeTieredCompactionStrategyOptions.validateOptions, which LCS (for
	// level 0) and TWCS (within a window) apply too.
	sizeTieredOptions = map[string]optionCheck{
		"min_sstable_size": checkNonNegativeLong("%s must be non negative: %d"),
		"bucket_low":       checkFloat,
		"bucket_high":      checkFloat,
	}
	unifiedOptions = map[string]optionCheck{
		"scaling_parameters":                      checkScalingParameters,
		"base_shard_count":                        checkBaseShardCount,
		"target_sstable_size":                     checkTargetSize,
		"min_sstable_size":                        checkMinSize,
		"flush_size_override":                     checkTargetSize,
		"max_sstables_to_compact":                 checkInt,
		"sstable_growth":                          checkGrowth,
		"overlap_inclusion_method":                checkOverlapInclusion,
		"expired_sstable_check_frequency_seconds": checkExpiredFrequency,
		"unsafe_aggressive_sstable_expiration":    anyValue,
	}
)

var compactionStrategies = map[string]compactionStrategy{
	"SizeTieredCompactionStrategy": {options: merged(tombstoneOptions, sizeTieredOptions), thresholds: true},
	"LeveledCompactionStrategy": {options: merged(tombstoneOptions, sizeTieredOptions, map[string]optionCheck{
		"sstable_size_in_mb":     checkPositiveInt,
		"fanout_size":            checkPositiveInt,
		"single_sstable_uplevel": anyValue,
	}), thresholds: true},
	"TimeWindowCompactionStrategy": {options: merged(tombstoneOptions, sizeTieredOptions, map[string]optionCheck{
		"compaction_window_unit":                  checkUnit("MINUTES", "HOURS", "DAYS"),
		"compaction_window_size":                  checkWindowSize,
		"timestamp_resolution":                    checkUnit("SECONDS", "MILLISECONDS", "MICROSECONDS", "NANOSECONDS"),
		"expired_sstable_check_frequency_seconds": checkExpiredFrequency,
		"unsafe_aggressive_sstable_expiration":    checkUnsafeExpiration,
	}), thresholds: true},
	"UnifiedCompactionStrategy": {options: merged(tombstoneOptions, unifiedOptions)},
}

func merged(maps ...map[string]optionCheck) map[string]optionCheck {
	out := map[string]optionCheck{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func (o *Options) setCompaction(m map[string]string) error {
	class, ok := m["class"]
	if !ok {
		return cqlerr.Configf("Missing sub-option 'class' for the 'compaction' option")
	}
	full := class
	if !strings.Contains(class, ".") {
		full = compactionPackage + class
	}
	strategy, known := compactionStrategies[strings.TrimPrefix(full, compactionPackage)]
	if !known || !strings.HasPrefix(full, compactionPackage) {
		return cqlerr.Configf("Unable to find compaction strategy class '%s'", full)
	}
	c := map[string]string{"class": full}
	if strategy.thresholds {
		c["min_threshold"], c["max_threshold"] = "4", "32"
	}
	for k, v := range m {
		if k != "class" {
			c[k] = v
		}
	}
	if err := validateCompaction(strings.TrimPrefix(full, compactionPackage), strategy, c); err != nil {
		return err
	}
	o.Compaction = c
	return nil
}

// validateCompaction checks the options c of a strategy in Cassandra's
// order: enabled, the thresholds, the strategy's sub-options, the options
// nobody understands, then the relations between thresholds and buckets.
func validateCompaction(name string, s compactionStrategy, c map[string]string) error {
	if v, ok := c["enabled"]; ok && !strings.EqualFold(v, "true") && !strings.EqualFold(v, "false") {
		return cqlerr.Configf("enabled should either be 'true' or 'false', not %s", v)
	}
	var min, max int
	if s.thresholds {
		var err error
		if min, err = thresholdValue(c, "min_threshold"); err != nil {
			return err
		}
		if max, err = thresholdValue(c, "max_threshold"); err != nil {
			return err
		}
		if min == 0 || max == 0 {
			return cqlerr.Configf("Disabling compaction by setting compaction thresholds to 0 has been removed, set the compaction option 'enabled' to false instead.")
		}
	}
	var unknown []string
	for k, v := range c {
		switch k {
		case "class", "enabled":
			continue
		case "min_threshold", "max_threshold":
			if s.thresholds {
				continue
			}
		}
		check, ok := s.options[k]
		if !ok {
			unknown = append(unknown, k)
			continue
		}
		if err := check(k, v); err != nil {
			return err
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return cqlerr.Configf("Properties specified [%s] are not understood by %s", strings.Join(unknown, ", "), name)
	}
	if s.thresholds {
		if min < 2 {
			return cqlerr.Configf("Min compaction threshold cannot be less than 2 (got %d)", min)
		}
		if min > max {
			return cqlerr.Configf("Min compaction threshold (got %d) cannot be greater than max compaction threshold (got %d)", min, max)
		}
	}
	if _, ok := s.options["bucket_low"]; ok {
		low, high := floatOr(c, "bucket_low", 0.5), floatOr(c, "bucket_high", 1.5)
		if high <= low {
			return cqlerr.Configf("bucket_high value (%s) is less than or equal to the bucket_low value (%s)", javaDouble(high), javaDouble(low))
		}
	}
	return nil
}

func thresholdValue(c map[string]string, name string) (int, error) {
	n, err := strconv.ParseInt(c[name], 10, 32)
	if err != nil {
		return 0, cqlerr.Configf("Invalid value %s for '%s' compaction sub-option - must be an integer", c[name], name)
	}
	return int(n), nil
}

func floatOr(c map[string]string, name string, def float64) float64 {
	if v, ok := c[name]; ok {
		f, _ := strconv.ParseFloat(strings.TrimSpace(v), 64) // checked by checkFloat
		return f
	}
	return def
}

func anyValue(string, string) error { return nil }

func notInt(name, value string) error {
	return cqlerr.Configf("%s is not a parsable int (base10) for %s", value, name)
}

func checkInt(name, value string) error {
	if _, err := strconv.ParseInt(value, 10, 32); err != nil {
		return notInt(name, value)
	}
	return nil
}

func checkPositiveInt(name, value string) error {
	n, err := strconv.ParseInt(value, 10, 32)
	if err != nil {
		return notInt(name, value)
	}
	if n <= 0 {
		return cqlerr.Configf("%s must be larger than 0, but was %d", name, n)
	}
	return nil
}

func checkNonNegativeLong(format string) optionCheck {
	return func(name, value string) error {
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return notInt(name, value)
		}
		if n < 0 {
			return cqlerr.Configf(format, name, n)
		}
		return nil
	}
}

func checkExpiredFrequency(name, value string) error {
	return checkNonNegativeLong("%s must not be negative, but was %d")(name, value)
}

// checkTombstoneThreshold: a float, though Cassandra's parse error calls
// it an int.
func checkTombstoneThreshold(name, value string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(value), 32)
	if err != nil {
		return notInt(name, value)
	}
	if f < 0 {
		return cqlerr.Configf("%s must be greater than 0, but was %f", name, f)
	}
	return nil
}

func checkFloat(name, value string) error {
	if _, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err != nil {
		return cqlerr.Configf("%s is not a parsable float for %s", value, name)
	}
	return nil
}

func checkStrictBool(name, value string) error {
	if !strings.EqualFold(value, "true") && !strings.EqualFold(value, "false") {
		return cqlerr.Configf("'%s' should be either 'true' or 'false', not '%s'", name, value)
	}
	return nil
}

func checkOverlappingTombstones(name, value string) error {
	switch up := strings.ToUpper(value); up {
	case "NONE", "ROW", "CELL":
		return nil
	default:
		return cqlerr.Configf("Invalid value %s for '%s' compaction sub-option - must be one of the following [NONE, ROW, CELL].", up, name)
	}
}

// checkUnit accepts the Java TimeUnit names given, spelled exactly.
func checkUnit(valid ...string) optionCheck {
	return func(name, value string) error {
		for _, v := range valid {
			if value == v {
				return nil
			}
		}
		return cqlerr.Configf("%s is not valid for %s", value, name)
	}
}

func checkWindowSize(name, value string) error {
	n, err := strconv.ParseInt(value, 10, 32)
	if err != nil {
		return notInt(name, value)
	}
	if n < 1 {
		return cqlerr.Configf("%d must be greater than 1 for %s", n, name)
	}
	return nil
}

func checkUnsafeExpiration(name, value string) error {
	if strings.EqualFold(value, "true") {
		return cqlerr.Configf("%s is requested but not allowed, restart cassandra with -Dcassandra.allow_unsafe_aggressive_sstable_expiration=true to allow it", name)
	}
	return nil
}

var scalingParameter = regexp.MustCompile(`^(N|L[0-9]+|T[0-9]+|[+-]?[0-9]+)$`)

func checkScalingParameters(_, value string) error {
	for _, p := range strings.Split(value, ",") {
		if p = strings.TrimSpace(p); !scalingParameter.MatchString(p) {
			return cqlerr.Configf("Scaling parameter %s must match N|L[0-9]+|T[0-9]+|[+-]?[0-9]+", p)
		}
	}
	return nil
}

func checkBaseShardCount(name, value string) error {
	n, err := strconv.ParseInt(value, 10, 32)
	if err != nil {
		return notInt(name, value)
	}
	if n <= 0 {
		return cqlerr.Configf("Invalid configuration, %s should be positive: %d", name, n)
	}
	return nil
}

// dataSize is a DataStorageSpec size: a count and a unit.
var dataSize = regexp.MustCompile(`^\d+(B|KiB|MiB|GiB)$`)

// checkTargetSize: the message is Cassandra's for a value without a unit;
// DataStorageSpec words other malformed values differently.
func checkTargetSize(name, value string) error {
	if !dataSize.MatchString(value) {
		return cqlerr.Configf("%s %s is not a valid size in bytes: %s does not end in unit B", name, value, value)
	}
	return nil
}

func checkMinSize(name, value string) error {
	if !dataSize.MatchString(value) {
		return cqlerr.Configf("%s is not a valid size in bytes for %s", value, name)
	}
	return nil
}

func checkGrowth(name, value string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
	if err != nil || f < 0 || f > 1 {
		return cqlerr.Configf("%s %s must be between 0 and 1", name, value)
	}
	return nil
}

func checkOverlapInclusion(_, value string) error {
	switch strings.ToUpper(value) {
	case "NONE", "SINGLE", "TRANSITIVE":
		return nil
	}
	return cqlerr.Configf("Invalid overlap inclusion method %s. The valid options are [NONE, SINGLE, TRANSITIVE].", value)
}
