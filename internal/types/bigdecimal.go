package types

import (
	"errors"
	"math"
	"math/big"
	"strings"
)

// Decimal arithmetic as Cassandra's DecimalType does it with
// java.math.BigDecimal (db/marshal/DecimalType.java add, substract,
// multiply, divide, mod): a value is unscaled × 10^-scale, and the scale of
// a result follows BigDecimal's rules, since it shows (1.00 + 0 is 1.00).

// BigDecimal is a decimal value: Unscaled × 10^-Scale.
type BigDecimal struct {
	Unscaled *big.Int
	Scale    int32
}

// decimalPrecision is DecimalType.MAX_PRECISION, the MathContext of
// addition, subtraction and multiplication (rounding HALF_UP).
const decimalPrecision = 10000

// Cassandra's division scale bounds (DecimalType.MIN_SCALE,
// MIN_SIGNIFICANT_DIGITS, MAX_SCALE).
const (
	divisionMinScale = 32
	divisionMaxScale = 1000
)

var bigTen = big.NewInt(10)

// Errors with Java's messages: an operation's failure quotes them.
var (
	ErrDecimalNaN        = errors.New("A NaN cannot be converted into a decimal")
	ErrDecimalInfinite   = errors.New("An infinite number cannot be converted into a decimal")
	ErrLongDivideByZero  = errors.New("/ by zero")
	ErrBigDivideByZero   = errors.New("BigInteger divide by zero")
	ErrDivisionByZero    = errors.New("Division by zero")
	ErrDivisionUndefined = errors.New("Division undefined")
	errDecimalUnderflow  = errors.New("Underflow")
)

// DecodeBigDecimal reads a serialized decimal.
func DecodeBigDecimal(v []byte) (BigDecimal, error) {
	u, scale, err := DecodeDecimal(v)
	return BigDecimal{u, scale}, err
}

// Encode serializes d.
func (d BigDecimal) Encode() []byte { return EncodeDecimal(d.Unscaled, d.Scale) }

// String is BigDecimal.toString.
func (d BigDecimal) String() string { return bigDecimalString(d.Unscaled, d.Scale) }

// DecimalFromInt is new BigDecimal(BigInteger): scale 0.
func DecimalFromInt(n *big.Int) BigDecimal { return BigDecimal{new(big.Int).Set(n), 0} }

// DecimalFromJavaDouble is BigDecimal.valueOf(double), the decimal of
// Double.toString(f): Cassandra converts every fixed-size number this way
// (DecimalType.toBigDecimal), so the int 5 becomes 5.0 and 2e9 becomes
// 2.0E9, scale -8.
func DecimalFromJavaDouble(f float64) (BigDecimal, error) {
	switch {
	case math.IsNaN(f):
		return BigDecimal{}, ErrDecimalNaN
	case math.IsInf(f, 0):
		return BigDecimal{}, ErrDecimalInfinite
	}
	u, scale, ok := parseJavaBigDecimal(javaFloatString(f, 64))
	if !ok {
		return BigDecimal{}, ErrDecimalNaN
	}
	return BigDecimal{u, scale}, nil
}

// JavaDoubleString is Double.toString.
func JavaDoubleString(f float64) string { return javaFloatString(f, 64) }

// JavaFloatString is Float.toString.
func JavaFloatString(f float32) string { return javaFloatString(float64(f), 32) }

func pow10(n int64) *big.Int { return new(big.Int).Exp(bigTen, big.NewInt(n), nil) }

// decimalDigits is BigDecimal.precision: the digits of the unscaled value
// (1 for zero).
func decimalDigits(u *big.Int) int64 {
	if u.Sign() == 0 {
		return 1
	}
	return int64(len(new(big.Int).Abs(u).Text(10)))
}

// scaleTo returns u × 10^(to-from); below from it truncates, which the
// callers only do where the division is exact.
func scaleTo(u *big.Int, from, to int64) *big.Int {
	switch {
	case to == from || u.Sign() == 0:
		return new(big.Int).Set(u)
	case to < from:
		return new(big.Int).Quo(u, pow10(from-to))
	}
	return new(big.Int).Mul(u, pow10(to-from))
}

func checkScale(s int64, u *big.Int) (int32, error) {
	switch {
	case s >= math.MinInt32 && s <= math.MaxInt32:
		return int32(s), nil
	case u.Sign() == 0:
		// BigDecimal.checkScale clamps the scale of a zero.
		if s > 0 {
			return math.MaxInt32, nil
		}
		return math.MinInt32, nil
	case s > 0:
		return 0, errDecimalUnderflow
	}
	return 0, ErrDecimalOverflow
}

// roundHalfUp returns num/den rounded half away from zero (RoundingMode
// HALF_UP).
func roundHalfUp(num, den *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if r.Sign() == 0 {
		return q
	}
	twice := new(big.Int).Abs(r)
	twice.Lsh(twice, 1)
	if twice.Cmp(new(big.Int).Abs(den)) >= 0 {
		if (num.Sign() < 0) != (den.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// roundToPrecision rounds to decimalPrecision significant digits, as a
// MathContext does (the result of 10000 digits or fewer is exact).
func roundToPrecision(u *big.Int, scale int64) (BigDecimal, error) {
	for {
		drop := decimalDigits(u) - decimalPrecision
		if drop <= 0 {
			break
		}
		u = roundHalfUp(u, pow10(drop))
		scale -= drop
	}
	s, err := checkScale(scale, u)
	return BigDecimal{u, s}, err
}

// Add is BigDecimal.add(augend, MathContext(10000)).
func (d BigDecimal) Add(o BigDecimal) (BigDecimal, error) {
	switch {
	case d.Unscaled.Sign() == 0 || o.Unscaled.Sign() == 0:
		return addZero(d, o)
	case d.Scale != o.Scale:
		d, o = preAlign(d, o)
	}
	scale := max(int64(d.Scale), int64(o.Scale))
	sum := new(big.Int).Add(scaleTo(d.Unscaled, int64(d.Scale), scale), scaleTo(o.Unscaled, int64(o.Scale), scale))
	return roundToPrecision(sum, scale)
}

// addZero is BigDecimal.add(augend, mc) when an operand is zero: the
// other, rounded, at the larger scale as far as the precision allows (1.00
// + 0 is 1.00, 0E-2147483647 + 1 is 1 with 9999 zeros after the point).
func addZero(d, o BigDecimal) (BigDecimal, error) {
	preferred := max(int64(d.Scale), int64(o.Scale))
	if d.Unscaled.Sign() == 0 && o.Unscaled.Sign() == 0 {
		return BigDecimal{new(big.Int), int32(preferred)}, nil
	}
	if d.Unscaled.Sign() == 0 {
		d = o
	}
	res, err := roundToPrecision(d.Unscaled, int64(d.Scale))
	if err != nil || int64(res.Scale) >= preferred {
		return res, err
	}
	up := min(decimalPrecision-decimalDigits(res.Unscaled), preferred-int64(res.Scale))
	if up <= 0 {
		return res, nil
	}
	return BigDecimal{scaleTo(res.Unscaled, 0, up), res.Scale + int32(up)}, nil
}

// preAlign is BigDecimal.preAlign: when the operand with the larger scale
// lies entirely below both the other's digits and the rounded result's
// last digit, it only decides the rounding, so a one-digit value just
// below both replaces it. This keeps 1 + 1E-2147483647 from building a
// number of two billion digits (the result is the same once rounded).
func preAlign(a, b BigDecimal) (BigDecimal, BigDecimal) {
	large, small := a, b
	if a.Scale > b.Scale {
		large, small = b, a
	}
	largeScale := int64(large.Scale)
	estResultUlpScale := largeScale - decimalDigits(large.Unscaled) + decimalPrecision
	smallHighDigitPos := int64(small.Scale) - decimalDigits(small.Unscaled) + 1
	if smallHighDigitPos > largeScale+2 && smallHighDigitPos > estResultUlpScale+2 {
		scale := max(largeScale, estResultUlpScale) + 3
		if scale <= math.MaxInt32 {
			small = BigDecimal{big.NewInt(int64(small.Unscaled.Sign())), int32(scale)}
		}
	}
	return large, small
}

// Sub is BigDecimal.subtract(subtrahend, MathContext(10000)).
func (d BigDecimal) Sub(o BigDecimal) (BigDecimal, error) {
	return d.Add(BigDecimal{new(big.Int).Neg(o.Unscaled), o.Scale})
}

// Mul is BigDecimal.multiply(multiplicand, MathContext(10000)).
func (d BigDecimal) Mul(o BigDecimal) (BigDecimal, error) {
	return roundToPrecision(new(big.Int).Mul(d.Unscaled, o.Unscaled), int64(d.Scale)+int64(o.Scale))
}

// Neg is BigDecimal.negate: the scale is kept.
func (d BigDecimal) Neg() BigDecimal { return BigDecimal{new(big.Int).Neg(d.Unscaled), d.Scale} }

// maxDecimalShift bounds the power of ten a division or remainder may
// scale an operand by. Java would go on and build the number (two billion
// digits for 1E+2147483647 / 3) or run out of memory; past the bound the
// operation fails instead, as an overflow.
const maxDecimalShift = 100000

// ErrDecimalOverflow is the failure of a decimal operation past
// maxDecimalShift.
var ErrDecimalOverflow = errors.New("Overflow")

// Div is DecimalType.divide: the quotient at a scale leaving at least 32
// significant digits (never below 32 nor the operands' scales, never above
// 1000), rounded HALF_UP, trailing zeros stripped.
func (d BigDecimal) Div(o BigDecimal) (BigDecimal, error) {
	dl, sl := decimalDigits(d.Unscaled), int64(d.Scale)
	dr, sr := decimalDigits(o.Unscaled), int64(o.Scale)
	firstDigit := (dl - sl) - (dr - sr)
	scale := max(divisionMinScale-firstDigit, sl, sr, divisionMinScale)
	scale = min(scale, divisionMaxScale)
	if o.Unscaled.Sign() == 0 {
		return BigDecimal{}, divideByZeroError(d.Unscaled, scale+sr-sl)
	}
	// d/o at scale: d.u × 10^(scale - sl + sr) / o.u.
	num, den := new(big.Int).Set(d.Unscaled), new(big.Int).Set(o.Unscaled)
	raise := scale - sl + sr
	if raise > maxDecimalShift || -raise > maxDecimalShift {
		return BigDecimal{}, ErrDecimalOverflow
	}
	if raise >= 0 {
		num.Mul(num, pow10(raise))
	} else {
		den.Mul(den, pow10(-raise))
	}
	q := roundHalfUp(num, den)
	return stripTrailingZeros(q, scale)
}

// divideByZeroError is the ArithmeticException BigDecimal.divide(divisor,
// scale, rounding) throws for a zero divisor: long division says "/ by
// zero" when the scaled dividend fits a long, BigInteger's division
// otherwise (the usual case: the scale is at least 32).
func divideByZeroError(dividend *big.Int, raise int64) error {
	if dividend.IsInt64() && raise < 19 {
		scaled := scaleTo(dividend, 0, max(raise, 0))
		if scaled.IsInt64() {
			return ErrLongDivideByZero
		}
	}
	return ErrBigDivideByZero
}

// stripTrailingZeros is BigDecimal.stripTrailingZeros (zero becomes 0 at
// scale 0).
func stripTrailingZeros(u *big.Int, scale int64) (BigDecimal, error) {
	if u.Sign() == 0 {
		return BigDecimal{new(big.Int), 0}, nil
	}
	zeros := trailingZeros(u)
	s, err := checkScale(scale-zeros, u)
	return BigDecimal{new(big.Int).Quo(u, pow10(zeros)), s}, err
}

// Rem is BigDecimal.remainder: d - q×o with q the integral quotient
// (divideToIntegralValue) at the scale BigDecimal gives it, which fixes
// the scale of the result (100 % 0.5 is 0, 10 % 0.3 is 0.1).
func (d BigDecimal) Rem(o BigDecimal) (BigDecimal, error) {
	if o.Unscaled.Sign() == 0 {
		if d.Unscaled.Sign() == 0 {
			return BigDecimal{}, ErrDivisionUndefined
		}
		return BigDecimal{}, ErrDivisionByZero
	}
	sl, sr := int64(d.Scale), int64(o.Scale)
	// Integral quotient, truncated: d.u×10^sr / (o.u×10^sl).
	num, den := new(big.Int).Set(d.Unscaled), new(big.Int).Set(o.Unscaled)
	e := sr - sl
	if e > maxDecimalShift || -e > maxDecimalShift {
		return BigDecimal{}, ErrDecimalOverflow
	}
	if e >= 0 {
		num.Mul(num, pow10(e))
	} else {
		den.Mul(den, pow10(-e))
	}
	q := new(big.Int).Quo(num, den)
	preferred := sl - sr
	qScale := preferred
	if q.Sign() != 0 {
		qScale = max(preferred, -trailingZeros(q))
	}
	// remainder = d - q×o, at scale max(sl, qScale + sr): with q as
	// unscaled × 10^-qScale, q×o is qUnscaled × o.u at scale qScale + sr.
	qUnscaled := q
	if qScale < 0 {
		qUnscaled = new(big.Int).Quo(q, pow10(-qScale))
	} else {
		qUnscaled = scaleTo(q, 0, qScale)
	}
	scale := max(sl, qScale+sr)
	product := scaleTo(new(big.Int).Mul(qUnscaled, o.Unscaled), qScale+sr, scale)
	rem := new(big.Int).Sub(scaleTo(d.Unscaled, sl, scale), product)
	s, err := checkScale(scale, rem)
	return BigDecimal{rem, s}, err
}

// trailingZeros counts the decimal zeros u ends with (none for zero).
func trailingZeros(u *big.Int) int64 {
	if u.Sign() == 0 {
		return 0
	}
	digits := u.Text(10)
	return int64(len(digits) - len(strings.TrimRight(digits, "0")))
}
