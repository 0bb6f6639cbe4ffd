package functions

import (
	"math"
	"math/big"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/types"
)

// abs, exp, log, log10 and round over every number type, each returning
// its argument's type (cql3/functions/MathFcts.java and the NumberType
// overrides). Fixed-size integers compute in double and narrow as Java's
// casts do; floats round with Math.round; decimals and varints compute
// exactly where Cassandra does.
var mathTypes = []*types.Type{types.Tinyint, types.Smallint, types.Int, types.Float, types.Bigint,
	types.Double, types.Varint, types.Decimal, types.Counter}

func registerMathFunctions() {
	for _, t := range mathTypes {
		t := t
		for _, name := range []string{"abs", "exp", "log", "log10", "round"} {
			name := name
			register(&Func{Name: name, Args: []*types.Type{t}, Return: t, Deterministic: true,
				Impl: func(a [][]byte) ([]byte, error) {
					if len(a[0]) == 0 {
						// An empty number deserializes to null.
						return nil, nil
					}
					out, err := mathFunc(name, t, a[0])
					if ae, ok := err.(arithmeticError); ok {
						// The exception escapes the function unwrapped.
						return nil, cqlerr.Serverf("java.lang.ArithmeticException: %s", string(ae))
					}
					return out, err
				}})
		}
	}
}

// arithmeticError is a java.lang.ArithmeticException a math function
// throws.
type arithmeticError string

func (e arithmeticError) Error() string { return string(e) }

func mathFunc(name string, t *types.Type, v []byte) ([]byte, error) {
	switch t.Kind {
	case types.KindFloat, types.KindDouble:
		x, err := types.Float64(t, v)
		if err != nil {
			return nil, err
		}
		var r float64
		switch name {
		case "abs":
			r = math.Abs(x)
		case "exp":
			r = math.Exp(x)
		case "log":
			r = math.Log(x)
		case "log10":
			r = math.Log10(x)
		case "round":
			if t.Kind == types.KindFloat {
				r = float64(javaRoundFloat(float32(x)))
			} else {
				r = float64(javaRoundDouble(x))
			}
		}
		if t.Kind == types.KindFloat {
			return types.EncodeFloat(float32(r)), nil
		}
		return types.EncodeDouble(r), nil
	case types.KindVarint:
		return varintMath(name, v)
	case types.KindDecimal:
		return decimalMath(name, v)
	}
	n, err := types.Int64(t, v)
	if err != nil {
		return nil, err
	}
	var r int64
	switch name {
	case "abs":
		r = n
		if n < 0 {
			r = -n // wraps at the type's minimum, as Math.abs does
		}
	case "exp":
		r = javaDoubleToLong(math.Exp(float64(n)), t)
	case "log":
		r = javaDoubleToLong(math.Log(float64(n)), t)
	case "log10":
		r = javaDoubleToLong(math.Log10(float64(n)), t)
	case "round":
		r = n
	}
	return types.EncodeInt(t, wrapToType(r, t))
}

// javaDoubleToLong is Java's narrowing of a double: NaN is 0, values
// saturate at long's range, or for byte, short and int at int's range
// (a byte or short then keeps the int's low bits).
func javaDoubleToLong(f float64, t *types.Type) int64 {
	lo, hi := float64(math.MinInt64), float64(math.MaxInt64)
	loI, hiI := int64(math.MinInt64), int64(math.MaxInt64)
	if t.Kind == types.KindTinyint || t.Kind == types.KindSmallint || t.Kind == types.KindInt {
		lo, hi = math.MinInt32, math.MaxInt32
		loI, hiI = math.MinInt32, math.MaxInt32
	}
	switch {
	case math.IsNaN(f):
		return 0
	case f <= lo:
		return loI
	case f >= hi:
		return hiI
	}
	return int64(f)
}

// javaRoundDouble is Math.round(double): the closest long, ties toward
// positive infinity, NaN 0, saturating.
func javaRoundDouble(x float64) int64 {
	if math.IsNaN(x) {
		return 0
	}
	r := math.Floor(x)
	if x-r >= 0.5 {
		r++
	}
	return javaDoubleToLong(r, types.Bigint)
}

// javaRoundFloat is Math.round(float): the closest int.
func javaRoundFloat(x float32) int32 {
	if x != x {
		return 0
	}
	f := float64(x)
	r := math.Floor(f)
	if f-r >= 0.5 {
		r++
	}
	return int32(javaDoubleToLong(r, types.Int))
}

func varintMath(name string, v []byte) ([]byte, error) {
	n, err := types.BigInt(types.Varint, v)
	if err != nil {
		return nil, err
	}
	switch name {
	case "abs":
		return types.EncodeBigInt(new(big.Int).Abs(n)), nil
	case "round":
		return v, nil
	}
	// Through a decimal, truncated back to an integer.
	d := types.DecimalFromInt(n)
	var r types.BigDecimal
	if name == "exp" {
		r, err = decimalExp(d)
	} else {
		r, err = decimalLog(d, name == "log10")
	}
	if err != nil {
		return nil, err
	}
	out, err := decimalToBigInt(r)
	if err != nil {
		return nil, err
	}
	return types.EncodeBigInt(out), nil
}

// decimalToBigInt is BigDecimal.toBigInteger: truncation toward zero. A
// value past BigInteger's range (2^31 bits) is Java's ArithmeticException.
func decimalToBigInt(d types.BigDecimal) (*big.Int, error) {
	if d.Scale <= 0 {
		p, err := javaPow10(-int64(d.Scale), d.Unscaled)
		if err != nil {
			return nil, err
		}
		return p.Mul(p, d.Unscaled), nil
	}
	if int64(d.Scale) > int64(decimalPrecisionOf(d)) {
		return new(big.Int), nil // |d| < 1
	}
	return new(big.Int).Quo(d.Unscaled, pow10(int64(d.Scale))), nil
}

// javaPow10 is 10^n for scaling u up, refused as BigInteger refuses a
// result of more than 2^31 bits.
func javaPow10(n int64, u *big.Int) (*big.Int, error) {
	if float64(n)*math.Log2(10)+float64(u.BitLen()) > math.MaxInt32 {
		return nil, arithmeticError("BigInteger would overflow supported range")
	}
	return pow10(n), nil
}

func decimalMath(name string, v []byte) ([]byte, error) {
	d, err := types.DecodeBigDecimal(v)
	if err != nil {
		return nil, err
	}
	switch name {
	case "abs":
		return types.BigDecimal{Unscaled: new(big.Int).Abs(d.Unscaled), Scale: d.Scale}.Encode(), nil
	case "round":
		r, err := roundDecimalHalfUp(d)
		if err != nil {
			return nil, err
		}
		return r.Encode(), nil
	}
	var r types.BigDecimal
	if name == "exp" {
		r, err = decimalExp(d)
	} else {
		r, err = decimalLog(d, name == "log10")
	}
	if err != nil {
		return nil, err
	}
	return r.Encode(), nil
}

// roundDecimalHalfUp is setScale(0, HALF_UP): the nearest integer, ties
// away from zero.
func roundDecimalHalfUp(d types.BigDecimal) (types.BigDecimal, error) {
	if d.Scale <= 0 {
		u, err := decimalToBigInt(d)
		return types.BigDecimal{Unscaled: u, Scale: 0}, err
	}
	if int64(d.Scale) > int64(decimalPrecisionOf(d))+1 {
		return types.BigDecimal{Unscaled: new(big.Int), Scale: 0}, nil // |d| < 0.1
	}
	den := pow10(int64(d.Scale))
	q, r := new(big.Int).QuoRem(new(big.Int).Abs(d.Unscaled), den, new(big.Int))
	if new(big.Int).Lsh(r, 1).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if d.Unscaled.Sign() < 0 {
		q.Neg(q)
	}
	return types.BigDecimal{Unscaled: q, Scale: 0}, nil
}
