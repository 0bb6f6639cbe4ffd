package catalog

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/partita-db/partita/internal/cqlerr"
)

// Compression and speculative retry options, validated and normalised as
// Cassandra 5.0's CompressionParams.fromMap and SpeculativeRetryPolicy
// .fromString do (messages verified against Cassandra 5.0.6:
// testdata/schema_options).

const compressionPackage = "org.apache.cassandra.io.compress."

// compressorOptions are the options each compressor understands besides
// chunk_length_in_kb and min_compress_ratio, with their checks.
var compressorOptions = map[string]map[string]optionCheck{
	"LZ4Compressor": {
		"lz4_compressor_type":       checkLZ4Type,
		"lz4_high_compressor_level": checkLZ4Level,
	},
	"ZstdCompressor":    {"compression_level": checkZstdLevel},
	"SnappyCompressor":  {},
	"DeflateCompressor": {},
	"NoopCompressor":    {},
}

func (o *Options) setCompression(m map[string]string) error {
	// Boolean.parseBoolean: anything but "true" disables compression.
	if enabled, ok := m["enabled"]; ok && !strings.EqualFold(enabled, "true") {
		if len(m) > 1 {
			return cqlerr.Configf("If the 'enabled' option is set to false no other options must be specified")
		}
		o.Compression = map[string]string{"enabled": "false"}
		return nil
	}
	class, ok := m["class"]
	if !ok {
		return cqlerr.Configf("Missing sub-option 'class' for the 'compression' option.")
	}
	full := class
	if !strings.Contains(class, ".") {
		full = compressionPackage + class
	}
	known, ok := compressorOptions[strings.TrimPrefix(full, compressionPackage)]
	if !ok || !strings.HasPrefix(full, compressionPackage) {
		return cqlerr.Configf("Could not create Compression for type %s", full)
	}
	c := map[string]string{"class": full, "chunk_length_in_kb": "16"}
	var unknown []string
	for k, v := range m {
		switch k {
		case "class", "enabled":
			continue
		case "chunk_length_in_kb":
			if err := checkChunkLength(v); err != nil {
				return err
			}
		case "min_compress_ratio":
			if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil || (f != 0 && f < 1) {
				return cqlerr.Configf("min_compress_ratio can either be 0 or greater than or equal to 1")
			}
		default:
			check, ok := known[k]
			if !ok {
				unknown = append(unknown, k)
				continue
			}
			if err := check(k, v); err != nil {
				return err
			}
		}
		c[k] = v
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return cqlerr.Configf("Unknown compression options %s", strings.Join(unknown, ", "))
	}
	o.Compression = c
	return nil
}

func checkChunkLength(v string) error {
	n, err := strconv.ParseInt(v, 10, 32)
	switch {
	case err != nil:
		return cqlerr.Configf("Invalid value for chunk_length_in_kb")
	case n <= 0:
		return cqlerr.Configf("Invalid negative or null chunk_length_in_kb")
	case n&(n-1) != 0:
		return cqlerr.Configf("chunk_length_in_kb must be a power of 2")
	}
	return nil
}

func checkLZ4Type(name, value string) error {
	if value != "high" && value != "fast" {
		return cqlerr.Configf("Invalid compressor type '%s' specified for LZ4 parameter '%s'. Valid options are [high, fast].", value, name)
	}
	return nil
}

func checkLZ4Level(name, value string) error {
	if n, err := strconv.Atoi(value); err != nil || n < 1 || n > 17 {
		return cqlerr.Configf("Invalid value [%s] for parameter '%s'. Value must be between 1 and 17.", value, name)
	}
	return nil
}

// checkZstdLevel: zstd's levels run from -131072 (fastest) to 22.
func checkZstdLevel(name, value string) error {
	if n, err := strconv.Atoi(value); err != nil || n < -131072 || n > 22 {
		return cqlerr.Configf("ZstdCompressor.create() threw an error: java.lang.IllegalArgumentException %s=%s is invalid", name, value)
	}
	return nil
}

// unknownKeys lists the keys of m outside allowed, sorted.
func unknownKeys(m map[string]string, allowed ...string) []string {
	var out []string
	for k := range m {
		ok := false
		for _, a := range allowed {
			ok = ok || k == a
		}
		if !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

var (
	percentileRetry = regexp.MustCompile(`(?i)^([0-9.]+)(p|percentile)$`)
	fixedRetry      = regexp.MustCompile(`(?i)^([0-9.]+)ms$`)
	hybridRetry     = regexp.MustCompile(`(?i)^(min|max)\(\s*([0-9.]+(?:p|percentile|ms))\s*,\s*([0-9.]+(?:p|percentile|ms))\s*\)$`)
)

// parseSpeculativeRetry returns a speculative_retry or
// additional_write_policy value as Cassandra stores it (99PERCENTILE is
// 99p, NONE is NEVER, a hybrid puts its percentile first). Cassandra's
// messages name speculative_retry for both options.
func parseSpeculativeRetry(value string) (string, error) {
	invalid := cqlerr.Configf("Invalid value %s for option 'speculative_retry'", value)
	switch strings.ToUpper(value) {
	case "NEVER", "NONE":
		return "NEVER", nil
	case "ALWAYS":
		return "ALWAYS", nil
	}
	if m := hybridRetry.FindStringSubmatch(value); m != nil {
		a, aPct, errA := retryPart(m[2], value)
		b, bPct, errB := retryPart(m[3], value)
		if errA != nil {
			return "", errA
		}
		if errB != nil {
			return "", errB
		}
		if aPct == bPct {
			kind := "FIXED"
			if aPct {
				kind = "PERCENTILE"
			}
			return "", cqlerr.Configf("Invalid value %s for option 'speculative_retry': MIN()/MAX() arguments should be of different types, but both are of type %s", value, kind)
		}
		if !aPct {
			a, b = b, a
		}
		return strings.ToUpper(m[1]) + "(" + a + "," + b + ")", nil
	}
	if percentileRetry.MatchString(value) || fixedRetry.MatchString(value) {
		s, _, err := retryPart(value, value)
		return s, err
	}
	return "", invalid
}

// retryPart normalises one percentile or fixed policy; whole is the
// option's value, for messages.
func retryPart(part, whole string) (string, bool, error) {
	if m := percentileRetry.FindStringSubmatch(part); m != nil {
		f, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return "", true, cqlerr.Configf("Invalid value %s for option 'speculative_retry'", whole)
		}
		if f < 0 || f > 100 {
			return "", true, cqlerr.Configf("Invalid value %s for PERCENTILE option 'speculative_retry': must be between (0.0 and 100.0)", whole)
		}
		// DecimalFormat("#.####"), which rounds half to even.
		return strconv.FormatFloat(math.RoundToEven(f*10000)/10000, 'f', -1, 64) + "p", true, nil
	}
	m := fixedRetry.FindStringSubmatch(part)
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return "", false, cqlerr.Configf("Invalid value %s for option 'speculative_retry'", whole)
	}
	return strconv.FormatInt(int64(f), 10) + "ms", false, nil
}
