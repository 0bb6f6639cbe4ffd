package types

import (
	"encoding/binary"
	"math"

	"pgregory.net/rapid"
)

// Generators for rapid property tests: random types (nested frozen ones
// included) and random serialized values of them, including the empty
// value, non-canonical encodings (non-minimal varints, boolean bytes other
// than 0/1, NaN payloads) and, optionally, malformed values.

var scalarKinds = []*Type{
	Ascii, Bigint, Blob, Boolean, Counter, Decimal, Double, Float, Int, Timestamp,
	UUID, Text, Varint, Timeuuid, Inet, Date, Time, Smallint, Tinyint, Duration,
}

func genType(depth int) *rapid.Generator[*Type] {
	return rapid.Custom(func(t *rapid.T) *Type {
		if depth <= 0 || rapid.IntRange(0, 3).Draw(t, "scalar") > 0 {
			return rapid.SampledFrom(scalarKinds).Draw(t, "kind")
		}
		inner := genType(depth - 1)
		switch rapid.IntRange(0, 4).Draw(t, "composite") {
		case 0:
			return Frozen(ListOf(inner.Draw(t, "elem")))
		case 1:
			return Frozen(SetOf(inner.Draw(t, "elem")))
		case 2:
			return Frozen(MapOf(inner.Draw(t, "key"), inner.Draw(t, "value")))
		case 3:
			return TupleOf(rapid.SliceOfN(inner, 1, 3).Draw(t, "components")...)
		default:
			fields := rapid.SliceOfN(inner, 1, 3).Draw(t, "fields")
			names := make([]string, len(fields))
			for i := range names {
				names[i] = string(rune('a' + i))
			}
			return Frozen(UDTOf("ks", "u", names, fields))
		}
	})
}

// genValue draws a non-null value of t; malformed allows bytes t cannot
// parse.
func genValue(t *Type, malformed bool) *rapid.Generator[[]byte] {
	return rapid.Custom(func(rt *rapid.T) []byte {
		switch rapid.IntRange(0, 19).Draw(rt, "shape") {
		case 0:
			return []byte{}
		case 1:
			if malformed {
				return rapid.SliceOfN(rapid.Byte(), 1, 6).Draw(rt, "junk")
			}
		}
		return drawValue(rt, t, malformed)
	})
}

func drawValue(rt *rapid.T, t *Type, malformed bool) []byte {
	fixed := func(n int) []byte { return rapid.SliceOfN(rapid.Byte(), n, n).Draw(rt, "bytes") }
	switch t.Kind {
	case KindTinyint, KindBoolean:
		return fixed(1)
	case KindSmallint:
		return fixed(2)
	case KindInt, KindDate:
		return fixed(4)
	case KindBigint, KindCounter, KindTimestamp, KindTime:
		return fixed(8)
	case KindFloat:
		return binary.BigEndian.AppendUint32(nil, rapid.SampledFrom(specialFloat32s).Draw(rt, "f32"))
	case KindDouble:
		return binary.BigEndian.AppendUint64(nil, rapid.SampledFrom(specialFloat64s).Draw(rt, "f64"))
	case KindUUID:
		return fixed(16)
	case KindTimeuuid:
		u := fixed(16)
		u[6] = u[6]&0x0F | 0x10
		return u
	case KindVarint:
		return rapid.SliceOfN(rapid.SampledFrom([]byte{0, 1, 0x7f, 0x80, 0xff, 0x12}), 1, 5).Draw(rt, "varint")
	case KindDecimal:
		scale := rapid.SampledFrom([]int32{0, 1, 2, -1, -3, 7, math.MaxInt32, math.MinInt32}).Draw(rt, "scale")
		v := binary.BigEndian.AppendUint32(nil, uint32(scale))
		return append(v, rapid.SliceOfN(rapid.SampledFrom([]byte{0, 1, 10, 100, 0x80, 0xff}), 1, 4).Draw(rt, "unscaled")...)
	case KindInet:
		return fixed(rapid.SampledFrom([]int{4, 16}).Draw(rt, "inet"))
	case KindDuration:
		m := rapid.Int32Range(0, 1000).Draw(rt, "months")
		d := rapid.Int32Range(0, 1000).Draw(rt, "days")
		n := rapid.Int64Range(0, 1<<40).Draw(rt, "nanos")
		if rapid.Bool().Draw(rt, "neg") {
			m, d, n = -m, -d, -n
		}
		v, _ := EncodeDuration(m, d, n)
		return v
	case KindList, KindSet:
		elems := rapid.SliceOfN(genValue(t.Elem(), malformed), 0, 4).Draw(rt, "elems")
		return EncodeCollection(elems)
	case KindMap:
		keys := rapid.SliceOfN(genValue(t.Key(), malformed), 0, 3).Draw(rt, "keys")
		vals := make([][]byte, len(keys))
		for i := range vals {
			vals[i] = genValue(t.Value(), malformed).Draw(rt, "val")
		}
		return EncodeMap(keys, vals)
	case KindTuple, KindUDT:
		n := rapid.IntRange(1, len(t.Elems)).Draw(rt, "present")
		comps := make([][]byte, n)
		for i := range comps {
			if rapid.IntRange(0, 4).Draw(rt, "null") == 0 {
				continue
			}
			comps[i] = genValue(t.Elems[i], malformed).Draw(rt, "component")
		}
		return EncodeTuple(comps)
	}
	// text, ascii, blob: short strings over a small alphabet incl. 0x00/0xFF.
	return rapid.SliceOfN(rapid.SampledFrom([]byte{0, 1, 'a', 'b', 0x7f, 0xff}), 0, 5).Draw(rt, "bytes")
}

var specialFloat32s = []uint32{
	0, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000, 0x7fc00000,
	0x7f800001, 0xffc00000, 0xff800001, 0x00000001, 0x80000001, 0x7f7fffff, 0x40490fdb,
}

var specialFloat64s = []uint64{
	0, 0x8000000000000000, 0x3ff0000000000000, 0xbff0000000000000, 0x7ff0000000000000,
	0xfff0000000000000, 0x7ff8000000000000, 0x7ff0000000000001, 0xfff8000000000000,
	0x0000000000000001, 0x8000000000000001, 0x400921fb54442d18,
}
