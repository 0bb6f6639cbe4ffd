package types

import (
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"net/netip"
	"strconv"

	"github.com/partita-db/partita/internal/cqlerr"
)

// Go conversions for functions and aggregates. The empty value has no
// number; conversions return ErrEmptyValue for it, so callers can treat it
// as Cassandra does (mostly like null).

// ErrEmptyValue is returned when converting the empty value.
var ErrEmptyValue = errors.New("types: empty value")

// Int64 returns an integer value (tinyint, smallint, int, bigint, counter,
// varint, timestamp or time) as int64; a varint that does not fit is an
// error.
func Int64(t *Type, v []byte) (int64, error) {
	if len(v) == 0 {
		return 0, ErrEmptyValue
	}
	switch t.Kind {
	case KindTinyint, KindSmallint, KindInt, KindBigint, KindCounter, KindTimestamp, KindTime:
		if err := Validate(t, v); err != nil {
			return 0, err
		}
		n := int64(int8(v[0]))
		for _, b := range v[1:] {
			n = n<<8 | int64(b)
		}
		return n, nil
	case KindVarint:
		x := varintToBig(v)
		if !x.IsInt64() {
			return 0, cqlerr.Invalidf("Value %s is out of range for bigint", x)
		}
		return x.Int64(), nil
	}
	return 0, cqlerr.Invalidf("Cannot convert a value of type %s to an integer", t)
}

// Float64 returns a numeric value as float64 (decimals and large varints
// rounded to nearest).
func Float64(t *Type, v []byte) (float64, error) {
	if len(v) == 0 {
		return 0, ErrEmptyValue
	}
	switch t.Kind {
	case KindFloat:
		if len(v) != 4 {
			return 0, Validate(t, v)
		}
		return float64(math.Float32frombits(binary.BigEndian.Uint32(v))), nil
	case KindDouble:
		if len(v) != 8 {
			return 0, Validate(t, v)
		}
		return math.Float64frombits(binary.BigEndian.Uint64(v)), nil
	case KindVarint:
		f, _ := new(big.Float).SetInt(varintToBig(v)).Float64()
		return f, nil
	case KindDecimal:
		u, scale, err := DecodeDecimal(v)
		if err != nil {
			return 0, err
		}
		// Parsing the decimal text rounds correctly and copes with any
		// scale (a power of ten of 2^31 digits would not).
		f, err := strconv.ParseFloat(bigDecimalString(u, scale), 64)
		var numErr *strconv.NumError
		if err != nil && !(errors.As(err, &numErr) && numErr.Err == strconv.ErrRange) {
			return 0, err
		}
		return f, nil
	}
	n, err := Int64(t, v)
	return float64(n), err
}

// BigInt returns any integer value as a big.Int.
func BigInt(t *Type, v []byte) (*big.Int, error) {
	if t.Kind == KindVarint {
		if len(v) == 0 {
			return nil, ErrEmptyValue
		}
		return varintToBig(v), nil
	}
	n, err := Int64(t, v)
	if err != nil {
		return nil, err
	}
	return big.NewInt(n), nil
}

// DecodeDecimal splits a decimal into unscaled × 10^-scale.
func DecodeDecimal(v []byte) (unscaled *big.Int, scale int32, err error) {
	if len(v) == 0 {
		return nil, 0, ErrEmptyValue
	}
	if len(v) < 5 {
		return nil, 0, cqlerr.Invalidf("Expected 0 or at least 4 bytes (%d)", len(v))
	}
	return varintToBig(v[4:]), int32(binary.BigEndian.Uint32(v)), nil
}

// EncodeInt serializes n as the integer type t (tinyint, smallint, int,
// bigint, counter, varint, timestamp, time); out-of-range values are an
// error.
func EncodeInt(t *Type, n int64) ([]byte, error) {
	width := 0
	switch t.Kind {
	case KindTinyint:
		width = 1
	case KindSmallint:
		width = 2
	case KindInt:
		width = 4
	case KindBigint, KindCounter, KindTimestamp:
		width = 8
	case KindTime:
		return EncodeTime(n)
	case KindVarint:
		return EncodeBigInt(big.NewInt(n)), nil
	default:
		return nil, cqlerr.Invalidf("Cannot convert an integer to type %s", t)
	}
	if width < 8 {
		limit := int64(1) << (8*width - 1)
		if n < -limit || n >= limit {
			return nil, cqlerr.Invalidf("Value %d is out of range for %s", n, t)
		}
	}
	return encodeFixedInt(n, width), nil
}

// DecodeBoolean returns a boolean value (any non-zero byte is true).
func DecodeBoolean(v []byte) (bool, error) {
	if len(v) == 0 {
		return false, ErrEmptyValue
	}
	if len(v) != 1 {
		return false, cqlerr.Invalidf("Expected 1 or 0 byte value (%d)", len(v))
	}
	return v[0] != 0, nil
}

// DecodeInet returns an inet value as an address.
func DecodeInet(v []byte) (netip.Addr, error) {
	if len(v) == 0 {
		return netip.Addr{}, ErrEmptyValue
	}
	a, ok := netip.AddrFromSlice(v)
	if !ok {
		return netip.Addr{}, Validate(Inet, v)
	}
	return a, nil
}
