package functions

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/partita-db/partita/internal/types"
)

// Castable reports whether CAST(x AS to) is defined for x of type from
// (cql3/functions/CastFcts.java): numbers convert among themselves, times
// among timestamp/date/timeuuid, and most types to text and ascii.
func Castable(from, to *types.Type) bool {
	switch {
	case from.Equal(to):
		return true
	case isNumber(from) && isNumber(to) && to.Kind != types.KindCounter:
		return true
	case to.Kind == types.KindVarchar || to.Kind == types.KindAscii:
		// CastFcts: to text from ascii, to both from the other native
		// types but blob and duration (text to ascii is no cast).
		switch from.Kind {
		case types.KindBlob, types.KindDuration:
			return false
		case types.KindVarchar:
			return to.Kind == types.KindVarchar
		}
		return from.IsNative()
	}
	switch to.Kind {
	case types.KindTimestamp:
		return from.Kind == types.KindDate || from.Kind == types.KindTimeuuid
	case types.KindDate:
		return from.Kind == types.KindTimestamp || from.Kind == types.KindTimeuuid
	}
	return false
}

func isNumber(t *types.Type) bool { return t.IsNumeric() || t.Kind == types.KindCounter }

// Cast converts v from one type to another (Castable must hold).
func Cast(from, to *types.Type, v []byte) ([]byte, error) {
	if v == nil || from.Equal(to) {
		return v, nil
	}
	switch {
	case to.Kind == types.KindVarchar || to.Kind == types.KindAscii:
		return []byte(castText(from, v)), nil
	case to.Kind == types.KindTimestamp || to.Kind == types.KindDate:
		ms, err := millisOf(from, v)
		if err != nil {
			return nil, err
		}
		if to.Kind == types.KindDate {
			return types.EncodeDate(floorDiv(ms, 86400000))
		}
		return types.EncodeTimestamp(ms), nil
	}
	return castNumber(from, to, v)
}

func castNumber(from, to *types.Type, v []byte) ([]byte, error) {
	switch to.Kind {
	case types.KindFloat, types.KindDouble:
		f, err := toFloat(from, v)
		if err != nil {
			return nil, err
		}
		if to.Kind == types.KindFloat {
			return types.EncodeFloat(float32(f)), nil
		}
		return types.EncodeDouble(f), nil
	case types.KindDecimal:
		if from.Kind == types.KindFloat || from.Kind == types.KindDouble {
			f, err := types.Float64(from, v)
			if err != nil {
				return nil, err
			}
			return types.ParseLiteral(types.Decimal, types.LitFloat, strconv.FormatFloat(f, 'g', -1, 64))
		}
		n, err := types.BigInt(from, v)
		if err != nil {
			return nil, err
		}
		return types.EncodeDecimal(n, 0), nil
	case types.KindVarint:
		n, err := toBig(from, v)
		if err != nil {
			return nil, err
		}
		return types.EncodeBigInt(n), nil
	}
	n, err := toBig(from, v)
	if err != nil {
		return nil, err
	}
	// Narrowing keeps the low bits, as Java's primitive conversions do.
	return types.EncodeInt(to, wrap(n, to))
}

func wrap(n *big.Int, to *types.Type) int64 {
	x := new(big.Int).And(n, new(big.Int).SetUint64(math.MaxUint64)).Uint64()
	switch to.Kind {
	case types.KindTinyint:
		return int64(int8(x))
	case types.KindSmallint:
		return int64(int16(x))
	case types.KindInt:
		return int64(int32(x))
	}
	return int64(x)
}

func toFloat(from *types.Type, v []byte) (float64, error) {
	switch from.Kind {
	case types.KindFloat, types.KindDouble:
		return types.Float64(from, v)
	case types.KindDecimal:
		unscaled, scale, err := types.DecodeDecimal(v)
		if err != nil {
			return 0, err
		}
		f, _ := new(big.Float).Quo(new(big.Float).SetInt(unscaled), new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))).Float64()
		return f, nil
	}
	n, err := types.BigInt(from, v)
	if err != nil {
		return 0, err
	}
	f, _ := new(big.Float).SetInt(n).Float64()
	return f, nil
}

func toBig(from *types.Type, v []byte) (*big.Int, error) {
	switch from.Kind {
	case types.KindFloat, types.KindDouble:
		f, err := types.Float64(from, v)
		if err != nil {
			return nil, err
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return big.NewInt(0), nil
		}
		n, _ := big.NewFloat(math.Trunc(f)).Int(nil)
		return n, nil
	case types.KindDecimal:
		unscaled, scale, err := types.DecodeDecimal(v)
		if err != nil {
			return nil, err
		}
		if scale <= 0 {
			return new(big.Int).Mul(unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-scale)), nil)), nil
		}
		return new(big.Int).Quo(unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)), nil
	}
	return types.BigInt(from, v)
}

// castText is Java's toString of the value (a double 1 is "1.0").
func castText(from *types.Type, v []byte) string {
	switch from.Kind {
	case types.KindFloat, types.KindDouble:
		f, err := types.Float64(from, v)
		if err != nil {
			return ""
		}
		return javaFloatString(f, from.Kind == types.KindFloat)
	case types.KindVarchar, types.KindAscii:
		return string(v)
	case types.KindTimestamp, types.KindDate:
		if s, ok := types.TemporalText(from, v); ok {
			return s
		}
	}
	s := types.Format(from, v)
	if from.Kind == types.KindBoolean {
		return strings.ToLower(s)
	}
	return s
}

func javaFloatString(f float64, single bool) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	bits := 64
	if single {
		bits = 32
	}
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-3 || abs >= 1e7) {
		s := strconv.FormatFloat(f, 'E', -1, bits)
		mant, exp, _ := strings.Cut(s, "E")
		if !strings.Contains(mant, ".") {
			mant += ".0"
		}
		return mant + "E" + strings.TrimPrefix(exp, "+")
	}
	s := strconv.FormatFloat(f, 'f', -1, bits)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
