package types

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
)

// Cassandra reads JSON with Jackson (2.19 in 5.0.6), and its errors reach
// the client in Jackson's words: the exception's class, its message and
// the location "line: L, column: C" counted in UTF-16 units. jsonParser
// reads JSON as Jackson's ReaderBasedJsonParser does with the default
// features (no comments, no NaN, no leading plus, no single quotes, no
// trailing commas) and StreamReadConstraints (nesting depth 1000, number
// length 1000), failing where it fails with its message and location.
// Like ObjectMapper.readValue, it reads one value and ignores what
// follows, except that a root-level number must be followed by white
// space or the end.

// jacksonError is a Jackson exception: toString() is "class: message" and
// the message ends with the location, when it has one.
type jacksonError struct {
	class string
	msg   string
	line  int
	col   int // 0: the location has no column; -1: no location at all
}

const (
	jacksonParse       = "com.fasterxml.jackson.core.JsonParseException"
	jacksonEOF         = "com.fasterxml.jackson.core.io.JsonEOFException"
	jacksonMismatch    = "com.fasterxml.jackson.databind.exc.MismatchedInputException"
	jacksonFormat      = "com.fasterxml.jackson.databind.exc.InvalidFormatException"
	jacksonConstraints = "com.fasterxml.jackson.core.exc.StreamConstraintsException"

	jacksonSource      = "REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled)"
	jacksonValidValues = "(JSON String, Number, Array, Object or token 'null', 'true' or 'false')"
	jacksonMaxDepth    = 1000
	jacksonMaxNumber   = 1000
	jacksonMaxToken    = 256
)

// Message is getMessage(): the message and its location.
func (e *jacksonError) Message() string {
	switch {
	case e.col < 0:
		return e.msg
	case e.col == 0:
		return fmt.Sprintf("%s\n at [Source: %s; line: %d]", e.msg, jacksonSource, e.line)
	}
	return fmt.Sprintf("%s\n at %s", e.msg, jacksonLocation(e.line, e.col))
}

// Error is the exception's toString().
func (e *jacksonError) Error() string { return e.class + ": " + e.Message() }

func jacksonLocation(line, col int) string {
	return fmt.Sprintf("[Source: %s; line: %d, column: %d]", jacksonSource, line, col)
}

// jsonParser holds the text as Java holds it (UTF-16 units) and the line
// each position is on.
type jsonParser struct {
	text      []uint16
	pos       int
	line      int
	lineStart int
	depth     int
}

func newJSONParser(text string) *jsonParser {
	return &jsonParser{text: utf16.Encode([]rune(text)), line: 1}
}

func (p *jsonParser) eof() bool { return p.pos >= len(p.text) }

// errAt is an error located at the character at index i.
func (p *jsonParser) errAt(class string, i int, format string, args ...any) error {
	return &jacksonError{class: class, msg: fmt.Sprintf(format, args...), line: p.line, col: i - p.lineStart + 1}
}

// errEOF is an error located at the end of the input.
func (p *jsonParser) errEOF(class, format string, args ...any) error {
	return p.errAt(class, len(p.text), format, args...)
}

// charDesc is Jackson's _getCharDesc.
func charDesc(c uint16) string {
	r := rune(c)
	switch {
	case r < 0x20 || r >= 0x7f && r <= 0x9f:
		return fmt.Sprintf("(CTRL-CHAR, code %d)", r)
	case r > 255:
		return fmt.Sprintf("'%c' (code %d / 0x%x)", r, r, r)
	}
	return fmt.Sprintf("'%c' (code %d)", r, r)
}

func (p *jsonParser) unexpected(i int, why string) error {
	return p.errAt(jacksonParse, i, "Unexpected character (%s): %s", charDesc(p.text[i]), why)
}

// skipSpace moves past white space and returns whether a character
// follows; a comment or another control character is an error.
func (p *jsonParser) skipSpace() (bool, error) {
	for ; p.pos < len(p.text); p.pos++ {
		switch c := p.text[p.pos]; c {
		case ' ', '\t':
		case '\n':
			p.line, p.lineStart = p.line+1, p.pos+1
		case '\r':
			if p.pos+1 < len(p.text) && p.text[p.pos+1] == '\n' {
				p.pos++
			}
			p.line, p.lineStart = p.line+1, p.pos+1
		case '/':
			return false, p.unexpected(p.pos, "maybe a (non-standard) comment? (not recognized as one since Feature 'ALLOW_COMMENTS' not enabled for parser)")
		default:
			if c < 0x20 {
				// Jackson locates this one a character further on.
				return false, p.errAt(jacksonParse, p.pos+1, "Illegal character (%s): only regular white space (\\r, \\n, \\t) is allowed between tokens", charDesc(c))
			}
			return true, nil
		}
	}
	return false, nil
}

// parseRoot reads the root value of fromJson() and of nested JSON text.
func (p *jsonParser) parseRoot() (any, error) {
	more, err := p.skipSpace()
	if err != nil {
		return nil, err
	}
	if !more {
		return nil, &jacksonError{class: jacksonMismatch, msg: "No content to map due to end-of-input", line: p.line}
	}
	switch c := p.text[p.pos]; c {
	case '}', ']':
		what := map[uint16]string{'}': "Object", ']': "Array"}[c]
		return nil, p.errAt(jacksonParse, p.pos, "Unexpected close marker '%c': no open %s to close", rune(c), what)
	}
	return p.parseValue(true)
}

// parseValue reads the value starting at p.pos, a character that is not
// white space.
func (p *jsonParser) parseValue(root bool) (any, error) {
	start := p.pos
	switch c := p.text[p.pos]; {
	case c == '"':
		p.pos++
		return p.parseString("string value")
	case c == '[' || c == '{':
		if p.depth+1 > jacksonMaxDepth {
			return nil, &jacksonError{class: jacksonConstraints, col: -1, msg: fmt.Sprintf(
				"Document nesting depth (%d) exceeds the maximum allowed (%d, from `StreamReadConstraints.getMaxNestingDepth()`)", p.depth+1, jacksonMaxDepth)}
		}
		p.depth++
		defer func() { p.depth-- }()
		p.pos++
		if c == '[' {
			return p.parseArray(start)
		}
		_, vals, err := p.parseObject(start)
		if err != nil {
			return nil, err
		}
		return vals, nil
	case c == '-' || c >= '0' && c <= '9':
		return p.parseNumber(root)
	case c == 'n':
		return nil, p.matchWord("null")
	case c == 't':
		return true, p.matchWord("true")
	case c == 'f':
		return false, p.matchWord("false")
	}
	return nil, p.oddValue()
}

// matchWord reads the literal word at p.pos (whose first character is
// known to match).
func (p *jsonParser) matchWord(word string) error {
	start := p.pos
	for i := 1; i < len(word); i++ {
		if start+i >= len(p.text) || p.text[start+i] != uint16(word[i]) {
			return p.invalidToken(word[:i], start+i)
		}
	}
	p.pos = start + len(word)
	if !p.eof() && javaIdentifierPart(p.text[p.pos]) {
		return p.invalidToken(word, p.pos)
	}
	return nil
}

// invalidToken is _reportInvalidToken: the matched part and the
// identifier characters after it.
func (p *jsonParser) invalidToken(matched string, i int) error {
	var b strings.Builder
	b.WriteString(matched)
	n := len(utf16.Encode([]rune(matched)))
	for ; i < len(p.text) && javaIdentifierPart(p.text[i]); i++ {
		b.WriteString(string(utf16.Decode(p.text[i : i+1])))
		if n++; n >= jacksonMaxToken {
			b.WriteString("...")
			i++
			break
		}
	}
	return p.errAt(jacksonParse, i, "Unrecognized token '%s': was expecting %s", b.String(), jacksonValidValues)
}

// oddValue is _handleOddValue: what Jackson says of a value that starts
// with none of the characters a value starts with.
func (p *jsonParser) oddValue() error {
	start := p.pos
	switch c := p.text[start]; c {
	case 'N', 'I':
		word := map[uint16]string{'N': "NaN", 'I': "Infinity"}[c]
		if err := p.matchWord(word); err != nil {
			return err
		}
		return p.nonStandard(word)
	case '+':
		if start+1 >= len(p.text) {
			return p.errEOF(jacksonEOF, "Unexpected end-of-input in a Number value")
		}
		return p.errAt(jacksonParse, start+1, "Unexpected character ('+' (code 43)) in numeric value: JSON spec does not allow numbers to have plus signs: enable `JsonReadFeature.ALLOW_LEADING_PLUS_SIGN_FOR_NUMBERS` to allow")
	}
	if javaIdentifierStart(p.text[start]) {
		return p.invalidToken(string(utf16.Decode(p.text[start:start+1])), start+1)
	}
	return p.unexpected(start, "expected a valid value "+jacksonValidValues)
}

func (p *jsonParser) nonStandard(word string) error {
	return p.errAt(jacksonParse, p.pos, "Non-standard token '%s': enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to allow", word)
}

// parseArray reads the items after '[' at start.
func (p *jsonParser) parseArray(start int) ([]any, error) {
	startLine, startCol := p.line, start-p.lineStart+1
	items := []any{}
	for {
		more, err := p.skipSpace()
		if err != nil {
			return nil, err
		}
		if !more {
			return nil, p.errEOF(jacksonEOF, "Unexpected end-of-input: expected close marker for Array (start marker at %s)", jacksonLocation(startLine, startCol))
		}
		switch p.text[p.pos] {
		case ']':
			p.pos++
			return items, nil
		case '}':
			return nil, p.errAt(jacksonParse, p.pos, "Unexpected close marker '}': expected ']' (for Array starting at %s)", jacksonLocation(startLine, startCol))
		}
		if len(items) > 0 {
			if err := p.skipComma("Array"); err != nil {
				return nil, err
			}
		}
		v, err := p.parseValue(false)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
	}
}

// skipComma reads the comma between entries and the space after it.
func (p *jsonParser) skipComma(what string) error {
	if p.text[p.pos] != ',' {
		return p.unexpected(p.pos, "was expecting comma to separate "+what+" entries")
	}
	p.pos++
	more, err := p.skipSpace()
	if err != nil {
		return err
	}
	if !more {
		return p.errEOF(jacksonParse, "Unexpected end-of-input within/between %s entries", what)
	}
	return nil
}

// parseObject reads the entries after '{' at start, keeping the keys in
// order (a repeated key keeps its first place and its last value).
func (p *jsonParser) parseObject(start int) ([]string, map[string]any, error) {
	startLine, startCol := p.line, start-p.lineStart+1
	var keys []string
	vals := map[string]any{}
	for first := true; ; first = false {
		more, err := p.skipSpace()
		if err != nil {
			return nil, nil, err
		}
		if !more {
			return nil, nil, p.errEOF(jacksonEOF, "Unexpected end-of-input: expected close marker for Object (start marker at %s)", jacksonLocation(startLine, startCol))
		}
		switch p.text[p.pos] {
		case '}':
			p.pos++
			return keys, vals, nil
		case ']':
			return nil, nil, p.errAt(jacksonParse, p.pos, "Unexpected close marker ']': expected '}' (for Object starting at %s)", jacksonLocation(startLine, startCol))
		}
		if !first {
			if err := p.skipComma("Object"); err != nil {
				return nil, nil, err
			}
		}
		if p.text[p.pos] != '"' {
			return nil, nil, p.unexpected(p.pos, "was expecting double-quote to start field name")
		}
		p.pos++
		name, err := p.parseString("name")
		if err != nil {
			return nil, nil, err
		}
		if err := p.skipColon(); err != nil {
			return nil, nil, err
		}
		v, err := p.parseValue(false)
		if err != nil {
			return nil, nil, err
		}
		k := name.(string)
		if _, dup := vals[k]; !dup {
			keys = append(keys, k)
		}
		vals[k] = v
	}
}

// skipColon reads the colon after a field name and the space around it.
func (p *jsonParser) skipColon() error {
	eof := func() error { return p.errEOF(jacksonEOF, "Unexpected end-of-input within/between Object entries") }
	more, err := p.skipSpace()
	if err != nil {
		return err
	}
	if !more {
		return eof()
	}
	if p.text[p.pos] != ':' {
		return p.unexpected(p.pos, "was expecting a colon to separate field name and value")
	}
	p.pos++
	if more, err = p.skipSpace(); err != nil {
		return err
	}
	if !more {
		return eof()
	}
	return nil
}

// parseString reads a string after its opening quote; what is "string
// value" or "name", as Jackson words its errors.
func (p *jsonParser) parseString(what string) (any, error) {
	var out []uint16
	for {
		if p.eof() {
			if what == "name" {
				return nil, p.errEOF(jacksonEOF, "Unexpected end-of-input in field name")
			}
			return nil, p.errEOF(jacksonEOF, "Unexpected end-of-input: was expecting closing quote for a string value")
		}
		c := p.text[p.pos]
		switch {
		case c == '"':
			p.pos++
			return javaUTF8(out), nil
		case c == '\\':
			r, err := p.parseEscape()
			if err != nil {
				return nil, err
			}
			out = append(out, r)
			continue
		case c < 0x20:
			return nil, p.errAt(jacksonParse, p.pos, "Illegal unquoted character (%s): has to be escaped using backslash to be included in %s", charDesc(c), what)
		}
		out = append(out, c)
		p.pos++
	}
}

var jsonEscapes = map[uint16]uint16{'b': '\b', 't': '\t', 'n': '\n', 'f': '\f', 'r': '\r', '"': '"', '/': '/', '\\': '\\'}

// parseEscape reads the escape sequence at p.pos (its backslash).
func (p *jsonParser) parseEscape() (uint16, error) {
	eof := func() error { return p.errEOF(jacksonEOF, "Unexpected end-of-input in character escape sequence") }
	p.pos++
	if p.eof() {
		return 0, eof()
	}
	c := p.text[p.pos]
	p.pos++
	if r, ok := jsonEscapes[c]; ok {
		return r, nil
	}
	if c != 'u' {
		return 0, p.errAt(jacksonParse, p.pos-1, "Unrecognized character escape %s", charDesc(c))
	}
	var r uint16
	for i := 0; i < 4; i++ {
		if p.eof() {
			return 0, eof()
		}
		d, err := strconv.ParseUint(string(rune(p.text[p.pos])), 16, 8)
		if err != nil || p.text[p.pos] > 0x7f {
			return 0, p.unexpected(p.pos, "expected a hex-digit for character escape sequence")
		}
		r = r<<4 | uint16(d)
		p.pos++
	}
	return r, nil
}

// javaUTF8 is the UTF-8 Java writes for a string: a lone surrogate
// becomes '?'.
func javaUTF8(units []uint16) string {
	var b strings.Builder
	for i := 0; i < len(units); i++ {
		u := rune(units[i])
		switch {
		case utf16.IsSurrogate(u) && u < 0xdc00 && i+1 < len(units) && units[i+1] >= 0xdc00 && units[i+1] <= 0xdfff:
			b.WriteRune(utf16.DecodeRune(u, rune(units[i+1])))
			i++
		case utf16.IsSurrogate(u):
			b.WriteByte('?')
		default:
			b.WriteRune(u)
		}
	}
	return b.String()
}

func isJSONDigit(c uint16) bool { return c >= '0' && c <= '9' }

// parseNumber reads a number as json.Number, with the errors of Jackson's
// _parsePosNumber, _parseNegNumber and _parseFloat (whose locations point
// at the first '.' or exponent of a number when its fraction or exponent
// has no digit).
func (p *jsonParser) parseNumber(root bool) (any, error) {
	start := p.pos
	if p.text[p.pos] == '-' {
		p.pos++
		if p.eof() {
			return nil, p.errEOF(jacksonEOF, "Unexpected end-of-inputNo digit following sign")
		}
		if c := p.text[p.pos]; !isJSONDigit(c) {
			return nil, p.negativeOdd()
		}
	}
	digitsStart := p.pos
	if p.text[p.pos] == '0' {
		if p.pos+1 < len(p.text) && isJSONDigit(p.text[p.pos+1]) {
			return nil, p.errAt(jacksonParse, p.pos+1, "Invalid numeric value: Leading zeroes not allowed")
		}
		p.pos++
	}
	for !p.eof() && isJSONDigit(p.text[p.pos]) {
		p.pos++
	}
	length := p.pos - digitsStart
	floatStart := p.pos
	if !p.eof() && p.text[p.pos] == '.' {
		p.pos++
		n := p.digits()
		if n == 0 {
			c := uint16('.')
			if !p.eof() {
				c = p.text[p.pos]
			}
			return nil, p.errAt(jacksonParse, floatStart, "Unexpected character (%s) in numeric value: Decimal point not followed by a digit", charDesc(c))
		}
		length += n
	}
	if !p.eof() && (p.text[p.pos] == 'e' || p.text[p.pos] == 'E') {
		p.pos++
		if !p.eof() && (p.text[p.pos] == '+' || p.text[p.pos] == '-') {
			p.pos++
		}
		n := p.digits()
		if n == 0 {
			if p.eof() {
				return nil, p.errEOF(jacksonEOF, "Unexpected end-of-inputexpected a digit for number exponent")
			}
			return nil, p.errAt(jacksonParse, floatStart, "Unexpected character (%s) in numeric value: Exponent indicator not followed by a digit", charDesc(p.text[p.pos]))
		}
		length += n
	}
	if length > jacksonMaxNumber {
		return nil, &jacksonError{class: jacksonConstraints, col: -1, msg: fmt.Sprintf(
			"Number value length (%d) exceeds the maximum allowed (%d, from `StreamReadConstraints.getMaxNumberLength()`)", length, jacksonMaxNumber)}
	}
	if root && !p.eof() {
		switch c := p.text[p.pos]; c {
		case ' ', '\t', '\n', '\r':
		default:
			return nil, p.unexpected(p.pos, "Expected space separating root-level values")
		}
	}
	return json.Number(string(utf16.Decode(p.text[start:p.pos]))), nil
}

func (p *jsonParser) digits() int {
	n := 0
	for ; !p.eof() && isJSONDigit(p.text[p.pos]); p.pos++ {
		n++
	}
	return n
}

// negativeOdd is what follows a minus sign that no digit follows
// (_handleInvalidNumberStart): "-Infinity" and "-INF" are non-standard
// tokens, anything else an error.
func (p *jsonParser) negativeOdd() error {
	i := p.pos
	if p.text[i] == 'I' {
		if i+1 >= len(p.text) {
			return p.errEOF(jacksonEOF, "Unexpected end-of-input in a Number value")
		}
		word := ""
		switch p.text[i+1] {
		case 'n':
			word = "-Infinity"
		case 'N':
			word = "-INF"
		}
		if word != "" {
			p.pos = i - 1
			if err := p.matchWord(word); err != nil {
				return err
			}
			return p.nonStandard(word)
		}
		i++
	}
	return p.errAt(jacksonParse, i, "Unexpected character (%s) in numeric value: expected digit (0-9) to follow minus sign, for valid numeric value", charDesc(p.text[i]))
}

// javaIdentifierPart is Character.isJavaIdentifierPart for one UTF-16
// unit.
func javaIdentifierPart(c uint16) bool {
	r := rune(c)
	switch {
	case r <= 8, r >= 0x0e && r <= 0x1b, r >= 0x7f && r <= 0x9f:
		return true // identifier-ignorable controls
	case r < 0x80:
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '$'
	}
	return javaIdentifierStart(c) || unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Cf)
}

// javaIdentifierStart is Character.isJavaIdentifierStart for one UTF-16
// unit.
func javaIdentifierStart(c uint16) bool {
	r := rune(c)
	return unicode.IsLetter(r) || unicode.In(r, unicode.Nl, unicode.Sc, unicode.Pc)
}

// parseRootObject reads INSERT JSON's value: an object (its keys in
// order), or null (nil keys and values, ok false). Any other root value
// fails as Jackson's Map deserializer fails on it, on its first token.
func (p *jsonParser) parseRootObject() (keys []string, vals map[string]any, ok bool, err error) {
	more, err := p.skipSpace()
	if err != nil {
		return nil, nil, false, err
	}
	if !more {
		return nil, nil, false, &jacksonError{class: jacksonMismatch, msg: "No content to map due to end-of-input", line: p.line}
	}
	start := p.pos
	mismatch := func(value, token string) error {
		return p.errAt(jacksonMismatch, start, "Cannot deserialize value of type `java.util.LinkedHashMap<java.lang.Object,java.lang.Object>` from %s value (token `JsonToken.%s`)", value, token)
	}
	switch c := p.text[start]; c {
	case '{':
		p.depth++
		p.pos++
		keys, vals, err := p.parseObject(start)
		return keys, vals, err == nil, err
	case '[':
		return nil, nil, false, mismatch("Array", "START_ARRAY")
	case '}', ']':
		_, err := p.parseRoot()
		return nil, nil, false, err
	}
	v, err := p.parseValue(true)
	if err != nil {
		return nil, nil, false, err
	}
	switch x := v.(type) {
	case nil:
		return nil, nil, false, nil
	case bool:
		if x {
			return nil, nil, false, mismatch("Boolean", "VALUE_TRUE")
		}
		return nil, nil, false, mismatch("Boolean", "VALUE_FALSE")
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return nil, nil, false, mismatch("Floating-point", "VALUE_NUMBER_FLOAT")
		}
		return nil, nil, false, mismatch("Integer", "VALUE_NUMBER_INT")
	case string:
		if strings.TrimLeft(x, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ") == "" {
			// A blank string (no character above U+0020) is coerced as
			// the empty one (StdDeserializer._isBlank).
			return nil, nil, false, p.errAt(jacksonFormat, start, "Cannot coerce empty String (\"\") to element of `java.util.LinkedHashMap` (but could if coercion was enabled using `CoercionConfig`)")
		}
		return nil, nil, false, p.errAt(jacksonMismatch, start, "Cannot construct instance of `java.util.LinkedHashMap` (although at least one Creator exists): no String-argument constructor/factory method to deserialize from String value ('%s')", x)
	}
	return nil, nil, false, nil
}
