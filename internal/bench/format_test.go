package bench

import (
	"math"
	"testing"
)

func TestFormatRatio(t *testing.T) {
	for _, tc := range []struct {
		a, b float64
		want string
	}{
		{2, 1, "2.00×"},
		{1, 3, "0.33×"},
		{31.1, 2, "15.6×"},
		{250, 1, "250×"},
		{0, 5, "0.00×"},
		{1, 0, "n/a"},
		{1, -1, "n/a"},
		{1, math.NaN(), "n/a"},
		{math.Inf(1), 1, "n/a"},
	} {
		if got := FormatRatio(tc.a, tc.b); got != tc.want {
			t.Errorf("FormatRatio(%v, %v) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestRatioFavourable(t *testing.T) {
	for _, tc := range []struct {
		r    Ratio
		want bool
	}{
		{Ratio{Value: 2, Better: HigherIsBetter}, true},
		{Ratio{Value: 0.5, Better: HigherIsBetter}, false},
		{Ratio{Value: 0.5, Better: LowerIsBetter}, true},
		{Ratio{Value: 2, Better: LowerIsBetter}, false},
		{Ratio{Value: 1, Better: LowerIsBetter}, true},
	} {
		if got := tc.r.Favourable(); got != tc.want {
			t.Errorf("%+v.Favourable() = %v", tc.r, got)
		}
	}
}

func TestFormatMillis(t *testing.T) {
	for _, tc := range []struct {
		ms   float64
		want string
	}{
		{0, "-"},
		{0.0412, "41.2µs"},
		{0.005, "5.00µs"},
		{0.999, "999µs"},
		{4.12, "4.12ms"},
		{41.26, "41.3ms"},
		{412, "412ms"},
		{4120, "4.12s"},
	} {
		if got := FormatMillis(tc.ms); got != tc.want {
			t.Errorf("FormatMillis(%v) = %q, want %q", tc.ms, got, tc.want)
		}
	}
}

func TestFormatRateAndBytes(t *testing.T) {
	for _, tc := range []struct {
		rate float64
		want string
	}{{0, "-"}, {2.54, "2.5/s"}, {999.6, "1,000/s"}, {1234567, "1,234,567/s"}} {
		if got := FormatRate(tc.rate); got != tc.want {
			t.Errorf("FormatRate(%v) = %q, want %q", tc.rate, got, tc.want)
		}
	}
	for _, tc := range []struct {
		n    int64
		want string
	}{{512, "512 B"}, {2048, "2.0 KiB"}, {300 << 20, "300.0 MiB"}, {5 << 30, "5.0 GiB"}} {
		if got := FormatBytes(tc.n); got != tc.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	for _, tc := range []struct {
		n    int64
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {-1234567, "-1,234,567"}} {
		if got := groupThousands(tc.n); got != tc.want {
			t.Errorf("groupThousands(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
