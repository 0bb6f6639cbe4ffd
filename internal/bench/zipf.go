package bench

import (
	"fmt"
	"math"
	"sort"
)

// Zipf picks one of n items, item i (0-based) with probability proportional
// to 1/(i+1)^s. Sampling is a pure function of a uniform number, so a
// request's choice depends only on its index (see splitmix).
type Zipf struct {
	s   float64
	cdf []float64 // cdf[i] = P(item ≤ i); cdf[n-1] = 1
}

// NewZipf returns the distribution over n ≥ 1 items with exponent s ≥ 0.
func NewZipf(n int, s float64) (*Zipf, error) {
	if n < 1 || s < 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return nil, fmt.Errorf("zipf: need n ≥ 1 and a finite s ≥ 0, got n=%d s=%v", n, s)
	}
	z := &Zipf{s: s, cdf: make([]float64, n)}
	var sum float64
	for i := range n {
		sum += math.Pow(float64(i+1), -s)
		z.cdf[i] = sum
	}
	for i := range z.cdf {
		z.cdf[i] /= sum
	}
	z.cdf[n-1] = 1
	return z, nil
}

// NewZipfHot returns the Zipf distribution over n ≥ 2 items whose first item
// is drawn factor times as often as the mean of the others: the workload's
// "one asset 50×" stated as a distribution.
func NewZipfHot(n int, factor float64) (*Zipf, error) {
	if n < 2 || !(factor >= 1) || math.IsInf(factor, 0) {
		return nil, fmt.Errorf("zipf: need n ≥ 2 and a finite factor ≥ 1, got n=%d factor=%v", n, factor)
	}
	// hot(s) = (n-1) / Σ_{i=2..n} i^-s grows monotonically from 1 at s=0,
	// so bisection finds s.
	hot := func(s float64) float64 {
		var rest float64
		for i := 2; i <= n; i++ {
			rest += math.Pow(float64(i), -s)
		}
		return float64(n-1) / rest
	}
	lo, hi := 0.0, 1.0
	for hot(hi) < factor {
		hi *= 2
		if hi > 64 {
			return nil, fmt.Errorf("zipf: factor %v out of reach for %d items", factor, n)
		}
	}
	for range 100 {
		mid := (lo + hi) / 2
		if hot(mid) < factor {
			lo = mid
		} else {
			hi = mid
		}
	}
	return NewZipf(n, (lo+hi)/2)
}

// S is the exponent.
func (z *Zipf) S() float64 { return z.s }

// N is the number of items.
func (z *Zipf) N() int { return len(z.cdf) }

// Prob is the probability of item i.
func (z *Zipf) Prob(i int) float64 {
	if i == 0 {
		return z.cdf[0]
	}
	return z.cdf[i] - z.cdf[i-1]
}

// Pick maps u in [0, 1) to an item.
func (z *Zipf) Pick(u float64) int {
	i := sort.SearchFloat64s(z.cdf, u)
	// u exactly on a boundary belongs to the next item; u ≥ 1 to the last.
	for i < len(z.cdf)-1 && z.cdf[i] <= u {
		i++
	}
	return min(i, len(z.cdf)-1)
}

// splitmix is SplitMix64's finaliser: a well-mixed 64-bit hash of x, used to
// derive a request's pseudo-random choices from its index.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// unit maps x to a uniform float64 in [0, 1).
func unit(x uint64) float64 { return float64(splitmix(x)>>11) / (1 << 53) }

// pick maps x to a uniform int in [0, n).
func pick(x uint64, n int) int { return int(splitmix(x) % uint64(n)) }
