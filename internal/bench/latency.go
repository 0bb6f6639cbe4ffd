package bench

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram bounds: 1 µs to 10 min at 3 significant digits (0.1% error).
const (
	histLowest  = 1
	histHighest = int64(10 * time.Minute / time.Microsecond)
	histDigits  = 3
)

// recorder collects one worker's latencies; it is not safe for concurrent
// use (each worker owns one, merged at the end of a step).
type recorder struct {
	h *hdrhistogram.Histogram
}

func newRecorder() *recorder {
	return &recorder{h: hdrhistogram.New(histLowest, histHighest, histDigits)}
}

// record adds one latency, clamped into the histogram's range so that an
// outlier is counted at the bound rather than dropped.
func (r *recorder) record(d time.Duration) {
	us := max(int64(d/time.Microsecond), histLowest)
	_ = r.h.RecordValue(min(us, histHighest)) // in range by construction
}

func (r *recorder) merge(o *recorder) { r.h.Merge(o.h) }

// Summary is a latency distribution in milliseconds.
type Summary struct {
	Count int64   `json:"count"`
	Mean  float64 `json:"mean_ms"`
	P50   float64 `json:"p50_ms"`
	P95   float64 `json:"p95_ms"`
	P99   float64 `json:"p99_ms"`
	P999  float64 `json:"p999_ms"`
	Max   float64 `json:"max_ms"`
}

func (r *recorder) summary() Summary {
	ms := func(us int64) float64 { return float64(us) / 1000 }
	if r.h.TotalCount() == 0 {
		return Summary{}
	}
	return Summary{
		Count: r.h.TotalCount(),
		Mean:  r.h.Mean() / 1000,
		P50:   ms(r.h.ValueAtQuantile(50)),
		P95:   ms(r.h.ValueAtQuantile(95)),
		P99:   ms(r.h.ValueAtQuantile(99)),
		P999:  ms(r.h.ValueAtQuantile(99.9)),
		Max:   ms(r.h.Max()),
	}
}
