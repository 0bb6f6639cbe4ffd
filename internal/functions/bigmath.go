package functions

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/partita-db/partita/internal/types"
)

// exp, log and log10 of decimals (and, through decimals, of varints) are
// computed as Cassandra computes them (DecimalType.exp, log, log10 over
// BigDecimalMath): to max(32, the argument's precision) significant
// digits, at most 10000, rounded half-even. exp(0) is exactly 1 and
// log(1) exactly 0.

const (
	minSignificantDigits = 32
	maxSignificantDigits = 10000
)

// decimalPrecisionOf is BigDecimal.precision: the digits of the unscaled
// value (1 for zero).
func decimalPrecisionOf(d types.BigDecimal) int {
	if d.Unscaled.Sign() == 0 {
		return 1
	}
	return len(new(big.Int).Abs(d.Unscaled).String())
}

func mathDigits(d types.BigDecimal) int {
	p := decimalPrecisionOf(d)
	if p < minSignificantDigits {
		p = minSignificantDigits
	}
	if p > maxSignificantDigits {
		p = maxSignificantDigits
	}
	return p
}

// bitsFor is a binary precision comfortably above digits decimal ones.
func bitsFor(digits int) uint { return uint(digits)*4 + 128 }

func decimalToFloat(d types.BigDecimal, prec uint) *big.Float {
	f, _, err := big.ParseFloat(d.String(), 10, prec, big.ToNearestEven)
	if err != nil {
		return new(big.Float).SetPrec(prec)
	}
	return f
}

// floatToDecimal rounds f to digits significant digits, half-even, and
// keeps them all (BigDecimal.round keeps trailing zeros).
func floatToDecimal(f *big.Float, digits int) types.BigDecimal {
	s := f.Text('e', digits-1) // d.ddddde±x
	mant, exp, _ := strings.Cut(s, "e")
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimPrefix(mant, "-")
	mant = strings.Replace(mant, ".", "", 1)
	e, _ := strconv.Atoi(exp)
	u, _ := new(big.Int).SetString(mant, 10)
	if neg {
		u.Neg(u)
	}
	// value = mant × 10^(e - (digits-1))
	return types.BigDecimal{Unscaled: u, Scale: int32(digits - 1 - e)}
}

// ln2 computes ln 2 = 2·atanh(1/3) at prec bits.
func ln2(prec uint) *big.Float {
	third := new(big.Float).SetPrec(prec).Quo(big.NewFloat(1).SetPrec(prec), big.NewFloat(3).SetPrec(prec))
	r := atanh(third, prec)
	return r.Mul(r, big.NewFloat(2))
}

// atanh sums z + z³/3 + z⁵/5 + ... for |z| < 1.
func atanh(z *big.Float, prec uint) *big.Float {
	sum := new(big.Float).SetPrec(prec).Set(z)
	z2 := new(big.Float).SetPrec(prec).Mul(z, z)
	pow := new(big.Float).SetPrec(prec).Set(z)
	term := new(big.Float).SetPrec(prec)
	for k := int64(3); ; k += 2 {
		pow.Mul(pow, z2)
		term.Quo(pow, new(big.Float).SetPrec(prec).SetInt64(k))
		if term.Sign() == 0 || term.MantExp(nil)-sum.MantExp(nil) < -int(prec) {
			break
		}
		sum.Add(sum, term)
	}
	return sum
}

// bigLn is the natural log of x > 0.
func bigLn(x *big.Float, prec uint) *big.Float {
	m := new(big.Float).SetPrec(prec)
	e := x.MantExp(m) // x = m × 2^e, m in [0.5, 1)
	// ln m = 2·atanh((m-1)/(m+1)), |(m-1)/(m+1)| ≤ 1/3.
	one := big.NewFloat(1).SetPrec(prec)
	z := new(big.Float).SetPrec(prec).Quo(new(big.Float).SetPrec(prec).Sub(m, one), new(big.Float).SetPrec(prec).Add(m, one))
	r := atanh(z, prec)
	r.Mul(r, big.NewFloat(2))
	if e != 0 {
		r.Add(r, new(big.Float).SetPrec(prec).Mul(ln2(prec), new(big.Float).SetPrec(prec).SetInt64(int64(e))))
	}
	return r
}

// bigExp is e^x for |x| small enough that the result is representable.
func bigExp(x *big.Float, prec uint) *big.Float {
	// x = k·ln2 + r, |r| ≤ ln2/2; e^r by Taylor on r/2^16, squared back.
	l2 := ln2(prec)
	kf := new(big.Float).SetPrec(prec).Quo(x, l2)
	ki, _ := kf.Int(nil)
	if kf.Sign() < 0 {
		ki.Sub(ki, big.NewInt(1))
	}
	r := new(big.Float).SetPrec(prec).Sub(x, new(big.Float).SetPrec(prec).Mul(l2, new(big.Float).SetPrec(prec).SetInt(ki)))
	const halvings = 16
	r.SetMantExp(r, -halvings)
	sum := big.NewFloat(1).SetPrec(prec)
	term := big.NewFloat(1).SetPrec(prec)
	for n := int64(1); ; n++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(n))
		if term.Sign() == 0 || term.MantExp(nil) < -int(prec)-8 {
			break
		}
		sum.Add(sum, term)
	}
	for i := 0; i < halvings; i++ {
		sum.Mul(sum, sum)
	}
	return sum.SetMantExp(sum, int(ki.Int64()))
}

// decimalExp is DecimalType.exp. Its integral part must be an int
// (BigDecimal.intValueExact); the result is m × 10^k with m computed from
// the fraction of x/ln10, as a binary exponent would not reach so far.
func decimalExp(d types.BigDecimal) (types.BigDecimal, error) {
	if d.Unscaled.Sign() == 0 {
		return types.BigDecimal{Unscaled: big.NewInt(1)}, nil
	}
	// More than ten integer digits cannot be an int.
	if int64(decimalPrecisionOf(d))-int64(d.Scale) > 10 {
		return types.BigDecimal{}, arithmeticError("Overflow")
	}
	if ip, err := decimalToBigInt(d); err != nil || !ip.IsInt64() || ip.Int64() > math.MaxInt32 || ip.Int64() < math.MinInt32 {
		return types.BigDecimal{}, arithmeticError("Overflow")
	}
	digits := mathDigits(d)
	if int64(d.Scale)-int64(decimalPrecisionOf(d)) > int64(digits)+2 {
		// |x| < 10^-(digits+2): e^x rounds to one, written to digits.
		return types.BigDecimal{Unscaled: pow10(int64(digits - 1)), Scale: int32(digits - 1)}, nil
	}
	prec := bitsFor(digits) + 64
	x := decimalToFloat(d, prec)
	ln10 := bigLn(big.NewFloat(10).SetPrec(prec), prec)
	y := new(big.Float).SetPrec(prec).Quo(x, ln10)
	k, _ := y.Int(nil)
	if y.Sign() < 0 && !y.IsInt() {
		k.Sub(k, big.NewInt(1))
	}
	frac := new(big.Float).SetPrec(prec).Sub(y, new(big.Float).SetPrec(prec).SetInt(k))
	m := bigExp(frac.Mul(frac, ln10), prec)
	out := floatToDecimal(m, digits)
	scale := int64(out.Scale) - k.Int64()
	if scale > math.MaxInt32 {
		return types.BigDecimal{}, arithmeticError("Underflow")
	}
	if scale < math.MinInt32 {
		return types.BigDecimal{}, arithmeticError("Overflow")
	}
	out.Scale = int32(scale)
	return out, nil
}

// decimalLog is DecimalType.log (ten is false) or log10 (ten is true).
// log10 divides the natural log of x by that of ten, both to two more
// digits, as BigDecimal.divide does (an exact quotient keeps only the
// digits it needs), and rounds to the result's digits: log10(10) is 1,
// log10(1) a zero of scale -(digits+1).
func decimalLog(d types.BigDecimal, ten bool) (types.BigDecimal, error) {
	if d.Unscaled.Sign() <= 0 {
		if ten {
			return types.BigDecimal{}, arithmeticError("Log10 of number zero or less")
		}
		return types.BigDecimal{}, arithmeticError("Natural log of number zero or less")
	}
	digits := mathDigits(d)
	if !ten {
		return naturalLog(d, digits), nil
	}
	lnx := naturalLog(d, digits+2)
	ln10 := naturalLog(types.BigDecimal{Unscaled: big.NewInt(10)}, digits+2)
	return roundDecimal(javaDivide(lnx, ln10, digits+2), digits), nil
}

// naturalLog is ln(d) to digits significant digits; ln(1) is exactly 0.
// It is ln(unscaled) - scale·ln(10), with the bits the subtraction may
// cancel (a value near 1 written with many digits) added.
func naturalLog(d types.BigDecimal, digits int) types.BigDecimal {
	if isOne(d) {
		return types.BigDecimal{Unscaled: big.NewInt(0)}
	}
	prec := bitsFor(digits) + 64 + uint(decimalPrecisionOf(d))*4 + 64
	u := new(big.Float).SetPrec(prec).SetInt(d.Unscaled)
	r := bigLn(u, prec)
	if d.Scale != 0 {
		ln10 := bigLn(big.NewFloat(10).SetPrec(prec), prec)
		r.Sub(r, ln10.Mul(ln10, new(big.Float).SetPrec(prec).SetInt64(int64(d.Scale))))
	}
	return floatToDecimal(r, digits)
}

func isOne(d types.BigDecimal) bool {
	if d.Scale < 0 || int64(decimalPrecisionOf(d)) != int64(d.Scale)+1 {
		return false
	}
	return d.Unscaled.Cmp(new(big.Int).Exp(bigTen, big.NewInt(int64(d.Scale)), nil)) == 0
}

var bigTen = big.NewInt(10)

func pow10(n int64) *big.Int { return new(big.Int).Exp(bigTen, big.NewInt(n), nil) }

// roundDecimal is BigDecimal.round to digits significant digits,
// half-even: a value with no more digits is unchanged.
func roundDecimal(d types.BigDecimal, digits int) types.BigDecimal {
	excess := decimalPrecisionOf(d) - digits
	if excess <= 0 {
		return d
	}
	u := roundQuo(d.Unscaled, pow10(int64(excess)))
	out := types.BigDecimal{Unscaled: u, Scale: d.Scale - int32(excess)}
	if decimalPrecisionOf(out) > digits { // 999.. rounded up to 1000..
		out = types.BigDecimal{Unscaled: new(big.Int).Quo(u, bigTen), Scale: out.Scale - 1}
	}
	return out
}

// roundQuo is num/den rounded half-even.
func roundQuo(num, den *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if r.Sign() == 0 {
		return q
	}
	c := new(big.Int).Lsh(new(big.Int).Abs(r), 1).Cmp(new(big.Int).Abs(den))
	if c > 0 || (c == 0 && q.Bit(0) == 1) {
		if (num.Sign() < 0) != (den.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// javaDivide is BigDecimal.divide(b, MathContext(digits, HALF_EVEN)): the
// quotient rounded to digits significant digits; when it is exact, with
// its trailing zeros stripped down to the preferred scale a.scale-b.scale.
func javaDivide(a, b types.BigDecimal, digits int) types.BigDecimal {
	preferred := int64(a.Scale) - int64(b.Scale)
	if a.Unscaled.Sign() == 0 {
		return types.BigDecimal{Unscaled: big.NewInt(0), Scale: int32(preferred)}
	}
	// |a/b| < 10^e: e from the operands' digit counts.
	e := int64(decimalPrecisionOf(a)) - int64(decimalPrecisionOf(b)) - preferred + 1
	// q = trunc(a/b × 10^s) has at least digits+1 digits.
	s := int64(digits) - e + 2
	num, den := new(big.Int).Set(a.Unscaled), new(big.Int).Set(b.Unscaled)
	if shift := s - preferred; shift >= 0 {
		num.Mul(num, pow10(shift))
	} else {
		den.Mul(den, pow10(-shift))
	}
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if r.Sign() == 0 {
		// The quotient terminates: exact if its digits fit.
		out := types.BigDecimal{Unscaled: q, Scale: int32(s)}
		for out.Unscaled.Sign() != 0 {
			qq, rr := new(big.Int).QuoRem(out.Unscaled, bigTen, new(big.Int))
			if rr.Sign() != 0 || int64(out.Scale) <= preferred && decimalPrecisionOf(out) <= digits {
				break
			}
			out = types.BigDecimal{Unscaled: qq, Scale: out.Scale - 1}
		}
		if decimalPrecisionOf(out) <= digits {
			return out
		}
		return roundDecimal(out, digits)
	}
	// Inexact: a sticky digit past q keeps half-even rounding from
	// seeing a tie.
	q.Mul(q, bigTen)
	if q.Sign() < 0 || (q.Sign() == 0 && r.Sign() < 0) {
		q.Sub(q, big.NewInt(1))
	} else {
		q.Add(q, big.NewInt(1))
	}
	return roundDecimal(types.BigDecimal{Unscaled: q, Scale: int32(s + 1)}, digits)
}
