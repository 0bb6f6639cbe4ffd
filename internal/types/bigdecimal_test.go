package types

import (
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"
)

func mustDecimal(t *testing.T, s string) BigDecimal {
	t.Helper()
	u, scale, ok := parseJavaBigDecimal(s)
	if !ok {
		t.Fatalf("bad decimal %q", s)
	}
	return BigDecimal{u, scale}
}

// TestBigDecimalArithmetic: results and their scales as Cassandra 5.0.6
// prints them for the same operations (SELECT (decimal) x op (decimal) y),
// including operands whose scales are two billion apart, which must not
// build two-billion-digit numbers (BigDecimal.preAlign).
func TestBigDecimalArithmetic(t *testing.T) {
	one999 := "1." + strings.Repeat("0", 9999)
	for _, tc := range []struct {
		x    string
		op   byte
		y    string
		want string
	}{
		{"10.5", '/', "3.0", "3.5"},
		{"1", '/', "3", "0.33333333333333333333333333333333"},
		{"100", '/', "7", "14.28571428571428571428571428571429"},
		{"1e-40", '/', "3", "3.3333333333333333333333333333333E-41"},
		{"1E+3", '/', "1E+2", "1E+1"},
		{"100", '%', "0.5", "0"},
		{"10", '%', "0.3", "0.1"},
		{"-7", '%', "2", "-1"},
		{"7.5", '%', "-2", "1.5"},
		{"1E+3", '%', "7", "6"},
		{"1E+3", '%', "1E+2", "0E+3"},
		{"1E+5", '%', "3E+2", "1E+2"},
		{"1.00", '+', "0", "1.00"},
		{"1.00", '*', "1.0", "1.000"},
		{"10.5", '*', "2.0E9", "2.100E+10"},
		{"1", '+', "1E-2147483647", one999},
		{"1", '-', "1E-2147483647", one999},
		{"0E-2147483647", '+', "1", one999},
		{"0E-2147483647", '+', "0E+5", "0E-2147483647"},
		{"1E-20000", '+', "1E-20001", "1.1E-20000"},
	} {
		start := time.Now()
		x, y := mustDecimal(t, tc.x), mustDecimal(t, tc.y)
		var got BigDecimal
		var err error
		switch tc.op {
		case '+':
			got, err = x.Add(y)
		case '-':
			got, err = x.Sub(y)
		case '*':
			got, err = x.Mul(y)
		case '/':
			got, err = x.Div(y)
		case '%':
			got, err = x.Rem(y)
		}
		if err != nil || got.String() != tc.want {
			t.Errorf("%s %c %s = %.60s (%v), want %.60s", tc.x, tc.op, tc.y, got.String(), err, tc.want)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s %c %s took %v", tc.x, tc.op, tc.y, d)
		}
	}
}

// TestBigDecimalFailures: the exceptions Cassandra reports, and an
// overflow instead of an unbounded power of ten.
func TestBigDecimalFailures(t *testing.T) {
	for _, tc := range []struct {
		x    string
		op   byte
		y    string
		want string
	}{
		{"10.5", '/', "0", "BigInteger divide by zero"},
		{"10.5", '%', "0", "Division by zero"},
		{"0", '%', "0", "Division undefined"},
		{"1E-2147483647", '*', "1E-10", "Underflow"},
		{"1E+2147483647", '/', "3", "Overflow"},
		{"1E+2147483647", '%', "3", "Overflow"},
	} {
		start := time.Now()
		x, y := mustDecimal(t, tc.x), mustDecimal(t, tc.y)
		var err error
		switch tc.op {
		case '*':
			_, err = x.Mul(y)
		case '/':
			_, err = x.Div(y)
		case '%':
			_, err = x.Rem(y)
		}
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s %c %s: %v, want %s", tc.x, tc.op, tc.y, err, tc.want)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s %c %s took %v", tc.x, tc.op, tc.y, d)
		}
	}
	if _, err := DecimalFromJavaDouble(0); err != nil {
		t.Error(err)
	}
	var nan float64
	nan = nan / nan
	if _, err := DecimalFromJavaDouble(nan); !errors.Is(err, ErrDecimalNaN) {
		t.Errorf("NaN: %v", err)
	}
}

// TestDecimalFromJavaDouble: BigDecimal.valueOf(double) goes through
// Double.toString, so the int 5 is 5.0 and 2e9 is 2.0E9 (scale -8).
func TestDecimalFromJavaDouble(t *testing.T) {
	for f, want := range map[float64]BigDecimal{
		5:       {big.NewInt(50), 1},
		2e9:     {big.NewInt(20), -8},
		0.1:     {big.NewInt(1), 1},
		1.5:     {big.NewInt(15), 1},
		1e300:   {big.NewInt(10), -299},
		-0.0625: {big.NewInt(-625), 4},
	} {
		got, err := DecimalFromJavaDouble(f)
		if err != nil || got.Unscaled.Cmp(want.Unscaled) != 0 || got.Scale != want.Scale {
			t.Errorf("DecimalFromJavaDouble(%v) = %v×10^-%d (%v), want %v×10^-%d", f, got.Unscaled, got.Scale, err, want.Unscaled, want.Scale)
		}
	}
}
