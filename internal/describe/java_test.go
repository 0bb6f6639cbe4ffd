package describe

import (
	"slices"
	"sort"
	"strings"
	"testing"
)

// The expectations below were printed by OpenJDK 17 running the Java
// library calls each function models.

func TestJavaHashOrder(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{[]string{"a", "b", "c", "d"}, "a,b,c,d"},
		{[]string{"v3"}, "v3"},
		{[]string{"v1", "v2", "v3"}, "v3,v2,v1"},
		{[]string{"alpha", "beta", "gamma", "delta", "epsilon"}, "gamma,alpha,epsilon,beta,delta"},
		{[]string{"c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9", "c10", "c11", "c12", "c13"},
			"c10,c12,c11,c13,c9,c8,c7,c6,c5,c4,c3,c2,c1"},
		{[]string{"name", "value", "Nick Name", "é"}, "value,Nick Name,name,é"},
		{[]string{"x", "xx", "xxx", "xxxx", "xxxxx", "xxxxxx"}, "xx,xxx,x,xxxx,xxxxxx,xxxxx"},
		{nil, ""},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := strings.Join(javaHashOrder(tc.names), ","); got != tc.want {
				t.Errorf("javaHashOrder(%v) = %s, want %s", tc.names, got, tc.want)
			}
		})
	}
}

func TestJavaDouble(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0.01, "0.01"}, {1, "1.0"}, {0.1, "0.1"}, {0.0001, "1.0E-4"}, {6.71e-5, "6.71E-5"},
		{1e7, "1.0E7"}, {12345678.9, "1.23456789E7"}, {0.5, "0.5"}, {1e-3, "0.001"},
		{0.001234, "0.001234"}, {100, "100.0"}, {1e21, "1.0E21"}, {0.3, "0.3"}, {0, "0.0"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := javaDouble(tc.f); got != tc.want {
				t.Errorf("javaDouble(%v) = %s, want %s", tc.f, got, tc.want)
			}
		})
	}
}

func TestCompareIgnoreCase(t *testing.T) {
	names := []string{"b", "A", "Test", "has_all_types", "users", "users_mv", "_x", "Z1", "z0"}
	sort.SliceStable(names, func(i, j int) bool { return compareIgnoreCase(names[i], names[j]) < 0 })
	want := []string{"_x", "A", "b", "has_all_types", "Test", "users", "users_mv", "z0", "Z1"}
	if !slices.Equal(names, want) {
		t.Errorf("sorted %v, want %v", names, want)
	}
}

func TestColumnLess(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"a", "b", true},
		{"b", "a", false},
		{"Nick Name", "home", true}, // upper case first: byte order
		{"é", "a", true},            // a first byte of 0x80 or more sorts first
		{"a", "é", false},
		{"abcdefg", "abcdefh", true}, // beyond the six-byte prefix
		{"ab", "abc", true},
		{"same", "same", false},
	} {
		t.Run(tc.a+"<"+tc.b, func(t *testing.T) {
			if got := columnLess(tc.a, tc.b); got != tc.want {
				t.Errorf("columnLess(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

func TestCompareOrders(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cmp      func(a, b string) int
		a, b     string
		wantSign int
	}{
		{"utf16 ascii", compareUTF16, "a", "b", -1},
		{"utf16 prefix", compareUTF16, "ab", "a", 1},
		// U+FFFD sorts after a supplementary character in byte order but
		// before it in UTF-16 code units.
		{"utf16 surrogates", compareUTF16, "\uFFFD", "\U0001F600", 1},
		{"signed bytes", compareSignedBytes, "é", "a", -1},
		{"signed ascii", compareSignedBytes, "a", "b", -1},
		{"ignore case equal", compareIgnoreCase, "ABC", "abc", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.cmp(tc.a, tc.b)
			if sign(got) != tc.wantSign {
				t.Errorf("compare(%q, %q) = %d, want sign %d", tc.a, tc.b, got, tc.wantSign)
			}
		})
	}
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}
