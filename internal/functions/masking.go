package functions

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"hash"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/types"
)

// The masking functions (cql3/functions/masking): mask_null, mask_default,
// mask_replace, mask_inner, mask_outer and mask_hash, callable like any
// other function.
func registerMaskingFunctions() {
	registerFactory(&Factory{Name: "mask_null", Params: []Param{anyTypeParam()}, build: func(a []*types.Type) *Func {
		return &Func{Name: "mask_null", Args: a, Return: a[0], Deterministic: true, NullSafe: true,
			Impl: func([][]byte) ([]byte, error) { return nil, nil }}
	}})
	registerFactory(&Factory{Name: "mask_default", Params: []Param{anyTypeParam()}, build: func(a []*types.Type) *Func {
		masked := maskedValue(a[0])
		return &Func{Name: "mask_default", Args: a, Return: a[0], Deterministic: true, NullSafe: true,
			Impl: func([][]byte) ([]byte, error) { return masked, nil }}
	}})
	registerFactory(&Factory{Name: "mask_replace", Params: []Param{anyTypeParam(), sameAsFirstParam()}, build: func(a []*types.Type) *Func {
		return &Func{Name: "mask_replace", Args: a, Return: a[1], Deterministic: true, NullSafe: true,
			Impl: func(v [][]byte) ([]byte, error) { return v[1], nil }}
	}})
	for _, name := range []string{"mask_inner", "mask_outer"} {
		name := name
		registerFactory(&Factory{Name: name, Params: []Param{
			fixedParam("[text|varchar|ascii]", types.Text, types.Text, types.Ascii),
			fixedParam("int", types.Int), fixedParam("int", types.Int),
			optionalParam(fixedParam("text", types.Text)),
		}, build: func(a []*types.Type) *Func {
			args := []*types.Type{a[0], types.Int, types.Int}
			if len(a) == 4 {
				args = append(args, types.Text)
			}
			return &Func{Name: name, Args: args, Return: a[0], Deterministic: true, NullSafe: true,
				Impl: func(v [][]byte) ([]byte, error) { return partialMask(name, v) }}
		}})
	}
	registerFactory(&Factory{Name: "mask_hash", Params: []Param{anyTypeParam(), optionalParam(fixedParam("text", types.Text))},
		build: func(a []*types.Type) *Func {
			args := []*types.Type{a[0]}
			if len(a) == 2 {
				args = append(args, types.Text)
			}
			return &Func{Name: "mask_hash", Args: args, Return: types.Blob, Deterministic: true, NullSafe: true,
				Impl: func(v [][]byte) ([]byte, error) {
					algorithm := "SHA-256"
					if len(v) == 2 && v[1] != nil {
						algorithm = string(v[1])
					}
					h := messageDigest(algorithm)
					if h == nil {
						return nil, cqlerr.Invalidf("Hash algorithm not found: %s", algorithm)
					}
					if v[0] == nil {
						return nil, nil
					}
					h.Write(v[0])
					return h.Sum(nil), nil
				}}
		}})
}

// messageDigest is MessageDigest.getInstance for the algorithms and
// aliases the JDK's providers register (MD2 aside), case-insensitively.
func messageDigest(name string) hash.Hash {
	switch strings.ToUpper(name) {
	case "MD5":
		return md5.New()
	case "SHA-1", "SHA", "SHA1":
		return sha1.New()
	case "SHA-224", "SHA224":
		return sha256.New224()
	case "SHA-256", "SHA256":
		return sha256.New()
	case "SHA-384", "SHA384":
		return sha512.New384()
	case "SHA-512", "SHA512":
		return sha512.New()
	case "SHA-512/224", "SHA512/224":
		return sha512.New512_224()
	case "SHA-512/256", "SHA512/256":
		return sha512.New512_256()
	case "SHA3-224":
		return sha3.New224()
	case "SHA3-256":
		return sha3.New256()
	case "SHA3-384":
		return sha3.New384()
	case "SHA3-512":
		return sha3.New512()
	}
	return nil
}

// partialMask is PartialMaskingFunction: mask_inner pads all but the
// first begin and last end characters, mask_outer only those. Characters
// are Java's UTF-16 units.
func partialMask(name string, v [][]byte) ([]byte, error) {
	if v[0] == nil {
		return nil, nil
	}
	begin, end := 0, 0
	if v[1] != nil && len(v[1]) > 0 {
		n, err := types.Int64(types.Int, v[1])
		if err != nil {
			return nil, err
		}
		begin = int(n)
	}
	if v[2] != nil && len(v[2]) > 0 {
		n, err := types.Int64(types.Int, v[2])
		if err != nil {
			return nil, err
		}
		end = int(n)
	}
	padding := uint16('*')
	if len(v) == 4 && v[3] != nil {
		p := utf16.Encode([]rune(string(v[3])))
		if len(p) != 1 {
			return nil, cqlerr.Invalidf("The padding argument for function system.%s should be single-character, but '%s' has %d characters.", name, string(v[3]), len(p))
		}
		padding = p[0]
	}
	units := utf16.Encode([]rune(string(v[0])))
	endIndex := len(units) - 1 - end
	for i := range units {
		inner := i >= begin && i <= endIndex
		if inner == (name == "mask_inner") {
			units[i] = padding
		}
	}
	return javaUTF8(units), nil
}

// javaUTF8 encodes UTF-16 units as Java's String.getBytes(UTF_8) does: an
// unpaired surrogate becomes '?'.
func javaUTF8(units []uint16) []byte {
	var out []byte
	for i := 0; i < len(units); i++ {
		u := units[i]
		switch {
		case utf16.IsSurrogate(rune(u)) && u < 0xDC00 && i+1 < len(units) && units[i+1] >= 0xDC00 && units[i+1] <= 0xDFFF:
			out = utf8.AppendRune(out, utf16.DecodeRune(rune(u), rune(units[i+1])))
			i++
		case utf16.IsSurrogate(rune(u)):
			out = append(out, '?')
		default:
			out = utf8.AppendRune(out, rune(u))
		}
	}
	return out
}

// maskedValue is AbstractType.getMaskedValue: "****" for strings, false,
// zero, the epoch, the nil UUID, an empty collection, and per component
// for tuples and user types.
func maskedValue(t *types.Type) []byte {
	switch t.Kind {
	case types.KindAscii, types.KindVarchar:
		return []byte("****")
	case types.KindBoolean:
		return []byte{0}
	case types.KindTinyint:
		return []byte{0}
	case types.KindSmallint:
		return []byte{0, 0}
	case types.KindInt, types.KindFloat:
		return []byte{0, 0, 0, 0}
	case types.KindBigint, types.KindCounter, types.KindDouble, types.KindTimestamp, types.KindTime:
		return make([]byte, 8)
	case types.KindVarint:
		return []byte{0}
	case types.KindDecimal:
		return []byte{0, 0, 0, 0, 0}
	case types.KindDate:
		return []byte{0x80, 0, 0, 0}
	case types.KindUUID:
		return make([]byte, 16)
	case types.KindTimeuuid:
		// The smallest timeuuid of the epoch (TimeUUID.minAtUnixMillis(0)).
		return []byte{0x13, 0x81, 0x40, 0x00, 0x1d, 0xd2, 0x11, 0xb2, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80}
	case types.KindInet:
		return []byte{0, 0, 0, 0}
	case types.KindBlob:
		return []byte{}
	case types.KindDuration:
		return []byte{0, 0, 0}
	case types.KindList, types.KindSet, types.KindMap:
		return []byte{0, 0, 0, 0}
	case types.KindTuple, types.KindUDT:
		var elems [][]byte
		for _, e := range t.Elems {
			elems = append(elems, maskedValue(e))
		}
		return types.EncodeTuple(elems)
	}
	return nil
}
