package bench

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

func TestNewZipfRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		s    float64
	}{
		{"no items", 0, 1},
		{"negative exponent", 10, -0.5},
		{"NaN exponent", 10, math.NaN()},
		{"infinite exponent", 10, math.Inf(1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewZipf(tc.n, tc.s); err == nil {
				t.Fatalf("NewZipf(%d, %v) succeeded", tc.n, tc.s)
			}
		})
	}
	for _, tc := range []struct {
		name   string
		n      int
		factor float64
	}{
		{"one item", 1, 50},
		{"factor below one", 200, 0.5},
		{"NaN factor", 200, math.NaN()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewZipfHot(tc.n, tc.factor); err == nil {
				t.Fatalf("NewZipfHot(%d, %v) succeeded", tc.n, tc.factor)
			}
		})
	}
}

// hotFactor is how much more likely item 0 is than the mean of the others.
func hotFactor(z *Zipf) float64 {
	return z.Prob(0) / ((1 - z.Prob(0)) / float64(z.N()-1))
}

func TestNewZipfHot(t *testing.T) {
	for _, tc := range []struct {
		n      int
		factor float64
	}{{200, 50}, {200, 1}, {10, 5}, {1000, 300}} {
		z, err := NewZipfHot(tc.n, tc.factor)
		if err != nil {
			t.Fatal(err)
		}
		if got := hotFactor(z); math.Abs(got-tc.factor) > 1e-6*tc.factor {
			t.Errorf("n=%d factor=%v: hot factor %v (s=%v)", tc.n, tc.factor, got, z.S())
		}
	}
	// The workload's distribution: 200 assets, one 50×, is a Zipf law with
	// an exponent just above 1.
	z, _ := NewZipfHot(200, 50)
	if s := z.S(); s < 1 || s > 1.2 {
		t.Errorf("s = %v, want in [1, 1.2]", s)
	}
}

func TestZipfSampling(t *testing.T) {
	z, err := NewZipfHot(200, 50)
	if err != nil {
		t.Fatal(err)
	}
	const samples = 400_000
	counts := make([]int, z.N())
	for i := range samples {
		counts[z.Pick(unit(uint64(i)))]++
	}
	for _, item := range []int{0, 1, 9, 199} {
		want := z.Prob(item) * samples
		if got := float64(counts[item]); math.Abs(got-want) > 5*math.Sqrt(want)+1 {
			t.Errorf("item %d drawn %v times, want %.0f", item, got, want)
		}
	}
	rest := float64(samples-counts[0]) / float64(z.N()-1)
	if f := float64(counts[0]) / rest; f < 45 || f > 55 {
		t.Errorf("sampled hot factor %.1f, want about 50", f)
	}
}

func TestZipfPickEdges(t *testing.T) {
	z, _ := NewZipf(4, 1)
	for _, tc := range []struct {
		u    float64
		want int
	}{{0, 0}, {z.cdf[0] - 1e-12, 0}, {z.cdf[0], 1}, {z.cdf[2], 3}, {0.999999999, 3}, {1, 3}, {2, 3}} {
		if got := z.Pick(tc.u); got != tc.want {
			t.Errorf("Pick(%v) = %d, want %d", tc.u, got, tc.want)
		}
	}
}

// TestZipfProperties: probabilities sum to one and decrease with rank, and
// Pick is monotonic and in range.
func TestZipfProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 500).Draw(t, "n")
		s := rapid.Float64Range(0, 4).Draw(t, "s")
		z, err := NewZipf(n, s)
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		for i := range n {
			sum += z.Prob(i)
			if i > 0 && z.Prob(i) > z.Prob(i-1)*(1+1e-9) {
				t.Fatalf("Prob(%d) = %v > Prob(%d) = %v", i, z.Prob(i), i-1, z.Prob(i-1))
			}
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Fatalf("probabilities sum to %v", sum)
		}
		u1 := rapid.Float64Range(0, 1).Draw(t, "u1")
		u2 := rapid.Float64Range(u1, 1).Draw(t, "u2")
		a, b := z.Pick(u1), z.Pick(u2)
		if a < 0 || b >= n || a > b {
			t.Fatalf("Pick(%v) = %d, Pick(%v) = %d with n = %d", u1, a, u2, b, n)
		}
	})
}

func TestUnitAndPick(t *testing.T) {
	for i := range uint64(10_000) {
		if u := unit(i); u < 0 || u >= 1 {
			t.Fatalf("unit(%d) = %v", i, u)
		}
		if p := pick(i, 7); p < 0 || p >= 7 {
			t.Fatalf("pick(%d, 7) = %d", i, p)
		}
	}
}

func BenchmarkZipfPick(b *testing.B) {
	z, _ := NewZipfHot(200, 50)
	for i := range b.N {
		z.Pick(unit(uint64(i)))
	}
}
