package bench

import (
	"fmt"
	"math"
	"strconv"
)

// Better says which direction of a figure is good.
type Better string

// Directions of figures.
const (
	HigherIsBetter Better = "higher" // throughput
	LowerIsBetter  Better = "lower"  // latency, time, memory
)

// Ratio is Partita's figure divided by a peer's.
type Ratio struct {
	Metric string  `json:"metric"`
	Value  float64 `json:"value"`
	Better Better  `json:"better"`
}

// Favourable reports whether Partita does at least as well as the peer.
func (r Ratio) Favourable() bool {
	if r.Better == HigherIsBetter {
		return r.Value >= 1
	}
	return r.Value <= 1
}

// ratioOf divides a by b; ok is false when b is not a positive number (no
// figure to compare with).
func ratioOf(a, b float64) (float64, bool) {
	if !(b > 0) || math.IsNaN(a) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return 0, false
	}
	return a / b, true
}

// FormatRatio prints a/b as "2.31×", or "n/a" when it is undefined, with
// three significant digits.
func FormatRatio(a, b float64) string {
	r, ok := ratioOf(a, b)
	if !ok {
		return "n/a"
	}
	return formatFactor(r)
}

func formatFactor(r float64) string {
	switch {
	case r >= 100:
		return strconv.FormatFloat(r, 'f', 0, 64) + "×"
	case r >= 10:
		return strconv.FormatFloat(r, 'f', 1, 64) + "×"
	default:
		return strconv.FormatFloat(r, 'f', 2, 64) + "×"
	}
}

// FormatMillis prints a latency given in milliseconds with a unit that keeps
// three significant digits: 0.0412 → "41.2µs", 4.12 → "4.12ms", 4120 → "4.12s".
func FormatMillis(ms float64) string {
	switch {
	case ms <= 0:
		return "-"
	case ms < 1:
		return sig3(ms*1000) + "µs"
	case ms < 1000:
		return sig3(ms) + "ms"
	default:
		return sig3(ms/1000) + "s"
	}
}

func sig3(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

// FormatRate prints a throughput per second with thousands separators.
func FormatRate(perSec float64) string {
	if perSec <= 0 {
		return "-"
	}
	if perSec < 10 {
		return strconv.FormatFloat(perSec, 'f', 1, 64) + "/s"
	}
	return groupThousands(int64(math.Round(perSec))) + "/s"
}

// FormatBytes prints a size in binary units.
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

func groupThousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// formatMicros prints a CPU time per request in µs, or "" when unmeasured.
func formatMicros(us float64) string {
	switch {
	case !(us > 0):
		return ""
	case us >= 100:
		return strconv.FormatFloat(us, 'f', 0, 64)
	}
	return strconv.FormatFloat(us, 'f', 1, 64)
}

// formatAlloc prints bytes allocated per request, or "" when unmeasured.
func formatAlloc(b float64) string {
	if !(b > 0) {
		return ""
	}
	return FormatBytes(int64(b + 0.5))
}

// formatRSS prints a resident set, or "" when unmeasured.
func formatRSS(b int64) string {
	if b <= 0 {
		return ""
	}
	return FormatBytes(b)
}
