package types

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/netip"
	"strconv"
	"strings"

	"github.com/partita-db/partita/internal/cqlerr"
)

// LiteralKind is the lexical kind of a CQL constant (cql3/Constants.Type).
type LiteralKind uint8

// Literal kinds.
const (
	LitString LiteralKind = iota
	LitInteger
	LitFloat
	LitUUID
	LitBoolean
	LitHex
	LitDuration
)

var literalKindNames = [...]string{"STRING", "INTEGER", "FLOAT", "UUID", "BOOLEAN", "HEX", "DURATION"}

// String returns the kind as Cassandra names it in error messages.
func (k LiteralKind) String() string {
	if int(k) < len(literalKindNames) {
		return literalKindNames[k]
	}
	return "LiteralKind(" + strconv.Itoa(int(k)) + ")"
}

// Assignment is how well a literal fits a type
// (AssignmentTestable.TestResult); function overload resolution prefers
// exact matches.
type Assignment uint8

// Assignment results.
const (
	NotAssignable Assignment = iota
	WeaklyAssignable
	ExactMatch
)

// LiteralAssignment is Constants.Literal.testAssignment: whether a literal
// of the given kind and text may be assigned to t.
func LiteralAssignment(t *Type, kind LiteralKind, text string) Assignment {
	switch {
	case t.IsCollection() || t.Kind == KindUDT:
		return NotAssignable
	case t.Kind == KindCustom || t.Kind == KindTuple:
		// Cassandra skips validation for the types that are not native
		// (custom types and tuples): the value is read at preparation.
		return WeaklyAssignable
	}
	if p := PreferredType(kind, text); p != nil && p.Kind == t.Kind {
		return ExactMatch
	}
	if literalAccepts[kind][t.Kind] {
		return WeaklyAssignable
	}
	return NotAssignable
}

// literalAccepts lists, per literal kind, the types it can be assigned to
// besides its preferred type (Constants.Literal.testAssignment). A quoted
// string is not accepted for blob, uuid, numbers or duration.
var literalAccepts = map[LiteralKind]map[Kind]bool{
	LitString: {KindAscii: true, KindVarchar: true, KindInet: true, KindDate: true,
		KindTime: true, KindTimestamp: true},
	LitInteger: {KindBigint: true, KindCounter: true, KindDate: true, KindDecimal: true,
		KindDouble: true, KindDuration: true, KindFloat: true, KindInt: true, KindSmallint: true,
		KindTime: true, KindTimestamp: true, KindTinyint: true, KindVarint: true},
	LitUUID:     {KindUUID: true, KindTimeuuid: true},
	LitFloat:    {KindDecimal: true, KindDouble: true, KindFloat: true},
	LitBoolean:  {KindBoolean: true},
	LitHex:      {KindBlob: true},
	LitDuration: {KindDuration: true},
}

// PreferredType is Constants.Type.getPreferedTypeFor: the type a literal
// has on its own (used to pick function overloads), or nil.
func PreferredType(kind LiteralKind, text string) *Type {
	switch kind {
	case LitString:
		for i := 0; i < len(text); i++ {
			if text[i] >= 0x80 {
				return Text
			}
		}
		return Ascii
	case LitInteger:
		b, ok := new(big.Int).SetString(text, 10)
		switch {
		case !ok:
			return nil
		case b.IsInt64() && b.Int64() == int64(int32(b.Int64())):
			return Int
		case b.IsInt64():
			return Bigint
		}
		return Varint
	case LitUUID:
		if len(text) > 14 && text[14] == '1' {
			return Timeuuid
		}
		return UUID
	case LitFloat:
		return preferredFloatType(text)
	case LitBoolean:
		return Boolean
	case LitHex:
		return Tinyint // sic: Cassandra returns ByteType for hex literals
	case LitDuration:
		return Duration
	}
	return nil
}

func preferredFloatType(text string) *Type {
	switch text {
	case "NaN", "-NaN", "Infinity", "-Infinity":
		return Double
	}
	unscaled, scale, ok := parseJavaBigDecimal(text)
	if !ok {
		return nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return Decimal
	}
	// Double when the literal equals BigDecimal.valueOf of its double, the
	// decimal of Double.toString: 0.7 is a double, though no double holds
	// 0.7 exactly, while 0.1000000000000000000001 is a decimal.
	if shortest, err := DecimalFromJavaDouble(f); err == nil {
		if compareDecimalParts(mustParts(EncodeDecimal(unscaled, scale)), mustParts(shortest.Encode())) == 0 {
			return Double
		}
	}
	return Decimal
}

func mustParts(v []byte) decimalParts {
	p, _ := parseDecimalParts(v)
	return p
}

// NotAssignableError reports a literal that cannot be assigned to a type.
// The caller knows the column and words the client error with ForColumn.
type NotAssignableError struct {
	Kind LiteralKind
	Text string
	Type *Type
}

func (e *NotAssignableError) Error() string {
	return fmt.Sprintf("Invalid %s constant (%s) for type %s", e.Kind, e.Text, e.Type)
}

// ForColumn returns Cassandra's Invalid error for the receiver column.
func (e *NotAssignableError) ForColumn(column string) *cqlerr.Error {
	return cqlerr.Invalidf("Invalid %s constant (%s) for \"%s\" of type %s", e.Kind, e.Text, column, e.Type)
}

// LiteralErrorFor turns a NotAssignableError from ParseLiteral into the
// client error for column; other errors are returned as they are.
func LiteralErrorFor(err error, column string) error {
	var na *NotAssignableError
	if errors.As(err, &na) {
		return na.ForColumn(column)
	}
	return err
}

// ParseLiteral converts a literal token's text (for strings, without the
// quotes and with ” already unescaped) to a value of type t, as
// Constants.Literal.prepare does. An unassignable literal returns a
// *NotAssignableError; a malformed one a cqlerr Invalid error in
// Cassandra's words.
func ParseLiteral(t *Type, kind LiteralKind, text string) ([]byte, error) {
	if LiteralAssignment(t, kind, text) == NotAssignable {
		return nil, &NotAssignableError{Kind: kind, Text: text, Type: t}
	}
	if kind == LitHex {
		v, err := parseHexLiteral(text)
		if err == nil {
			err = Validate(t, v)
		}
		return v, err
	}
	if t.Kind == KindTuple {
		// A scalar constant is weakly assignable to a tuple and read as
		// its string form (Constants.Literal.parsedValue).
		return TupleFromString(t, text)
	}
	return parseNative(t, kind, text)
}

// parseNative reads a literal's text for a native type.
func parseNative(t *Type, kind LiteralKind, text string) ([]byte, error) {
	switch t.Kind {
	case KindAscii:
		return asciiFromString(text)
	case KindVarchar:
		// Query text reaches Cassandra decoded as UTF-8, malformed bytes
		// replaced; do the same so a literal is always valid text.
		return []byte(strings.ToValidUTF8(text, "\uFFFD")), nil
	case KindInet:
		return inetFromString(text)
	case KindTimestamp:
		if text == "" {
			return []byte{}, nil
		}
		ms, err := parseTimestamp(text)
		return EncodeTimestamp(ms), err
	case KindDate:
		d, err := parseDate(text)
		return binary.BigEndian.AppendUint32(nil, d), err
	case KindTime:
		n, err := parseTime(text)
		return binary.BigEndian.AppendUint64(nil, uint64(n)), err
	case KindDuration:
		return parseDuration(text)
	case KindUUID, KindTimeuuid:
		return uuidFromString(t, text)
	case KindBoolean:
		return booleanFromString(text)
	case KindCustom:
		return nil, cqlerr.Invalidf("Invalid %s constant (%s) for custom type %s: only blob literals are supported", kind, text, t)
	}
	return numberFromString(t, text)
}

// FromString converts a quoted string literal (already unquoted).
func FromString(t *Type, s string) ([]byte, error) { return ParseLiteral(t, LitString, s) }

// FromInteger converts an integer literal such as -42.
func FromInteger(t *Type, text string) ([]byte, error) { return ParseLiteral(t, LitInteger, text) }

// FromFloat converts a floating-point literal, including NaN, Infinity and
// -Infinity.
func FromFloat(t *Type, text string) ([]byte, error) { return ParseLiteral(t, LitFloat, text) }

// FromBool converts true or false (any case).
func FromBool(t *Type, text string) ([]byte, error) { return ParseLiteral(t, LitBoolean, text) }

// FromUUID converts an unquoted uuid literal.
func FromUUID(t *Type, text string) ([]byte, error) { return ParseLiteral(t, LitUUID, text) }

// FromHex converts a blob literal, 0x followed by hex digits.
func FromHex(t *Type, text string) ([]byte, error) { return ParseLiteral(t, LitHex, text) }

// FromDuration converts a duration literal (1h30m, P1Y2M, P1W, ...).
func FromDuration(t *Type, text string) ([]byte, error) { return ParseLiteral(t, LitDuration, text) }

func asciiFromString(s string) ([]byte, error) {
	for _, r := range s {
		if r >= 0x80 {
			n := 1
			if r > 0xFFFF {
				n = 2 // a UTF-16 surrogate pair
			}
			return nil, cqlerr.Invalidf("Invalid ASCII character in string literal: java.nio.charset.UnmappableCharacterException: Input length = %d", n)
		}
	}
	return []byte(s), nil
}

// inetFromString accepts IPv4 and IPv6 address text (no host name look-up,
// unlike InetAddress.getByName). IPv4-mapped IPv6 addresses become IPv4,
// as in Java.
func inetFromString(s string) ([]byte, error) {
	if s == "" {
		return []byte{}, nil
	}
	addr, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
	if err != nil {
		return nil, cqlerr.Invalidf("Unable to make inet address from '%s'", s)
	}
	addr = addr.WithZone("").Unmap()
	return addr.AsSlice(), nil
}

func booleanFromString(s string) ([]byte, error) {
	switch {
	case s == "" || strings.EqualFold(s, "false"):
		return []byte{0}, nil
	case strings.EqualFold(s, "true"):
		return []byte{1}, nil
	}
	return nil, cqlerr.Invalidf("Unable to make boolean from '%s'", s)
}

func parseHexLiteral(text string) ([]byte, error) {
	digits := text
	if len(text) >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X') {
		digits = text[2:]
	}
	v, err := hex.DecodeString(digits)
	if err != nil {
		return nil, cqlerr.Invalidf("cannot parse '%s' as hex bytes", digits)
	}
	return v, nil
}

// numberFromString handles the numeric receivers (AbstractType.fromString
// of each number type).
func numberFromString(t *Type, s string) ([]byte, error) {
	switch t.Kind {
	case KindTinyint, KindSmallint, KindInt, KindBigint, KindCounter:
		bitSize, what := intTypeInfo(t.Kind)
		n, err := strconv.ParseInt(s, 10, bitSize)
		if err != nil || !javaIntSyntax(s) {
			return nil, cqlerr.Invalidf("Unable to make %s from '%s'", what, s)
		}
		return encodeFixedInt(n, bitSize/8), nil
	case KindVarint:
		x, ok := new(big.Int).SetString(s, 10)
		if !ok || !javaIntSyntax(s) {
			return nil, cqlerr.Invalidf("unable to make int from '%s'", s)
		}
		return EncodeBigInt(x), nil
	case KindDecimal:
		unscaled, scale, ok := parseJavaBigDecimal(s)
		if !ok {
			return nil, cqlerr.Invalidf("unable to make BigDecimal from '%s'", s)
		}
		return EncodeDecimal(unscaled, scale), nil
	case KindFloat:
		f, ok := parseJavaFloat(s, 32)
		if !ok {
			return nil, cqlerr.Invalidf("Unable to make float from '%s'", s)
		}
		return EncodeFloat(float32(f)), nil
	case KindDouble:
		f, ok := parseJavaFloat(s, 64)
		if !ok {
			return nil, cqlerr.Invalidf("Unable to make double from '%s'", s)
		}
		return EncodeDouble(f), nil
	}
	return nil, cqlerr.Invalidf("Cannot convert a literal to type %s", t)
}

func intTypeInfo(k Kind) (bitSize int, javaName string) {
	switch k {
	case KindTinyint:
		return 8, "byte"
	case KindSmallint:
		return 16, "short"
	case KindInt:
		return 32, "int"
	}
	return 64, "long"
}

// javaIntSyntax reports whether s is an optional sign and ASCII digits.
func javaIntSyntax(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func encodeFixedInt(n int64, width int) []byte {
	out := make([]byte, width)
	for i := width - 1; i >= 0; i-- {
		out[i] = byte(n)
		n >>= 8
	}
	return out
}

// parseJavaBigDecimal parses new BigDecimal(s): [sign] digits [. digits]
// [e [sign] digits], or [sign] . digits ..., with the scale fitting int32.
func parseJavaBigDecimal(s string) (*big.Int, int32, bool) {
	body := s
	neg := false
	if body != "" && (body[0] == '+' || body[0] == '-') {
		neg = body[0] == '-'
		body = body[1:]
	}
	mant, expText, hasExp := strings.Cut(strings.Replace(body, "E", "e", 1), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	if digits == "" || !allDigits(digits) {
		return nil, 0, false
	}
	exp := int64(0)
	if hasExp {
		if !javaIntSyntax(expText) {
			return nil, 0, false
		}
		e, err := strconv.ParseInt(expText, 10, 64)
		if err != nil {
			return nil, 0, false
		}
		exp = e
	}
	scale := int64(len(frac)) - exp
	if scale < math.MinInt32 || scale > math.MaxInt32 {
		return nil, 0, false
	}
	u, _ := new(big.Int).SetString(digits, 10)
	if neg {
		u.Neg(u)
	}
	return u, int32(scale), true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// parseJavaFloat parses Float.parseFloat/Double.parseDouble syntax: an
// optional sign, NaN, Infinity, or a decimal with optional exponent and
// f/F/d/D suffix. Overflow gives an infinity, as in Java.
func parseJavaFloat(s string, bitSize int) (float64, bool) {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 {
		return 0, false
	}
	neg := strings.HasPrefix(s, "-")
	switch body {
	case "NaN":
		return math.NaN(), true
	case "Infinity":
		if neg {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	if n := len(body); n > 0 && strings.IndexByte("fFdD", body[n-1]) >= 0 {
		body = body[:n-1]
	}
	if _, _, ok := parseJavaBigDecimal(body); !ok {
		if !bigExponentDecimal(body) {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(body, bitSize)
	var numErr *strconv.NumError
	if err != nil && !(errors.As(err, &numErr) && numErr.Err == strconv.ErrRange) {
		return 0, false
	}
	if neg {
		f = -f
	}
	return f, true
}

// bigExponentDecimal accepts decimal syntax whose exponent is too large for
// a BigDecimal but fine for a double (1e9999999999 is Infinity in Java).
func bigExponentDecimal(s string) bool {
	mant, exp, ok := strings.Cut(strings.ToLower(s), "e")
	if !ok || !javaIntSyntax(exp) {
		return false
	}
	i, f, _ := strings.Cut(mant, ".")
	return i+f != "" && allDigits(i+f)
}

// uuidFromString parses a uuid literal (UUIDType.parse) for uuid or
// timeuuid.
func uuidFromString(t *Type, s string) ([]byte, error) {
	u, ok := parseUUID(s)
	if !ok {
		if t.Kind == KindTimeuuid {
			return nil, cqlerr.Invalidf("Unknown timeuuid representation: %s", s)
		}
		return nil, cqlerr.Invalidf("Unable to make UUID from '%s'", s)
	}
	if t.Kind == KindTimeuuid && u[6]>>4 != 1 {
		return nil, cqlerr.Invalidf("TimeUUID supports only version 1 UUIDs")
	}
	return u, nil
}

// parseUUID parses 8-4-4-4-12 hex digits (any case).
func parseUUID(s string) ([]byte, bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return nil, false
	}
	clean := s[0:8] + s[9:13] + s[14:18] + s[19:23] + s[24:]
	u, err := hex.DecodeString(clean)
	return u, err == nil
}

// EncodeText serializes a string (text or ascii).
func EncodeText(s string) []byte { return []byte(s) }

// EncodeBoolean serializes a boolean.
func EncodeBoolean(b bool) []byte {
	if b {
		return []byte{1}
	}
	return []byte{0}
}

// EncodeDouble serializes a double.
func EncodeDouble(f float64) []byte { return binary.BigEndian.AppendUint64(nil, math.Float64bits(f)) }

// EncodeFloat serializes a float.
func EncodeFloat(f float32) []byte { return binary.BigEndian.AppendUint32(nil, math.Float32bits(f)) }

// EncodeDecimal serializes unscaled × 10^-scale.
func EncodeDecimal(unscaled *big.Int, scale int32) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(scale))
	return append(out, EncodeBigInt(unscaled)...)
}

// EncodeInet serializes an address (4 bytes for IPv4, 16 for IPv6).
func EncodeInet(a netip.Addr) []byte { return a.WithZone("").AsSlice() }
