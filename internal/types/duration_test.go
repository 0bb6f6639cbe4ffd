package types

import (
	"encoding/hex"
	"math"
	"testing"

	"pgregory.net/rapid"
)

func TestVIntEncoding(t *testing.T) {
	// Signed vints as Cassandra's VIntCoding writes them (zig-zag first).
	tests := []struct {
		n    int64
		want string
	}{
		{0, "00"}, {-1, "01"}, {1, "02"}, {63, "7e"}, {-64, "7f"}, {64, "8080"},
		{8191, "bffe"}, {8192, "c04000"}, {math.MaxInt64, "fffffffffffffffffe"},
		{math.MinInt64, "ffffffffffffffffff"},
	}
	for _, tt := range tests {
		got := hex.EncodeToString(appendVInt(nil, tt.n))
		if got != tt.want {
			t.Errorf("appendVInt(%d) = %s, want %s", tt.n, got, tt.want)
		}
		back, n := readVInt(h(tt.want))
		if back != tt.n || n != len(tt.want)/2 {
			t.Errorf("readVInt(%s) = %d, %d", tt.want, back, n)
		}
	}
	rapid.Check(t, func(rt *rapid.T) {
		x := rapid.Int64().Draw(rt, "x")
		b := appendVInt(nil, x)
		if got, n := readVInt(b); got != x || n != len(b) {
			rt.Fatalf("round trip %d: %d (%d bytes of %d)", x, got, n, len(b))
		}
	})
}

func TestDurationEncode(t *testing.T) {
	v, err := EncodeDuration(1, 2, 3)
	if err != nil || hex.EncodeToString(v) != "020406" {
		t.Fatalf("EncodeDuration = %x, %v", v, err)
	}
	m, d, n, err := DecodeDuration(v)
	if err != nil || m != 1 || d != 2 || n != 3 {
		t.Errorf("DecodeDuration = %d %d %d %v", m, d, n, err)
	}
	if _, err := EncodeDuration(1, -1, 0); err == nil {
		t.Error("mixed signs accepted")
	}
	if got := formatDuration(0, 0, 0); got != "" {
		t.Errorf("zero duration formats as %q", got)
	}
	if got := formatDuration(-14, -3, -(nanosPerHour + 5)); got != "-1y2mo3d1h5ns" {
		t.Errorf("formatDuration = %q", got)
	}
}
