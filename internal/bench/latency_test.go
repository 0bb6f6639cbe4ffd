package bench

import (
	"math"
	"testing"
	"time"
)

func TestRecorderSummary(t *testing.T) {
	r := newRecorder()
	for i := 1; i <= 1000; i++ {
		r.record(time.Duration(i) * time.Millisecond)
	}
	got := r.summary()
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > want*0.002 {
			t.Errorf("%s = %v, want %v (±0.2%%)", name, got, want)
		}
	}
	if got.Count != 1000 {
		t.Errorf("count = %d", got.Count)
	}
	near("mean", got.Mean, 500.5)
	near("p50", got.P50, 500)
	near("p95", got.P95, 950)
	near("p99", got.P99, 990)
	near("p99.9", got.P999, 999)
	near("max", got.Max, 1000)
}

func TestRecorderMergeAndClamp(t *testing.T) {
	a, b := newRecorder(), newRecorder()
	a.record(0)         // below 1 µs: counted as 1 µs
	b.record(time.Hour) // above the range: counted at the bound
	b.record(2 * time.Millisecond)
	a.merge(b)
	s := a.summary()
	if s.Count != 3 {
		t.Fatalf("count = %d, want 3", s.Count)
	}
	if s.Max < 599_000 {
		t.Errorf("max = %v ms, want the 10 min bound", s.Max)
	}
	if s.P50 < 1.99 || s.P50 > 2.01 {
		t.Errorf("p50 = %v ms, want 2", s.P50)
	}
}

func TestRecorderEmpty(t *testing.T) {
	if s := newRecorder().summary(); s != (Summary{}) {
		t.Fatalf("empty summary = %+v", s)
	}
}

func BenchmarkRecord(b *testing.B) {
	r := newRecorder()
	for i := range b.N {
		r.record(time.Duration(i%100_000) * time.Microsecond)
	}
}
