package parser

import (
	"strings"

	"github.com/partita-db/partita/internal/cql/ast"
)

// lexer splits CQL text into tokens following src/antlr/Lexer.g. Where the
// ANTLR lexer would pick among rules, this one takes the longest match and,
// on a tie, the rule Lexer.g defines first.
type lexer struct {
	src        string
	off        int // byte offset of the next character
	line, col  int // position of the next character (col counts characters)
	keepHidden bool
}

func newLexer(src string, keepHidden bool) *lexer {
	return &lexer{src: src, line: 1, keepHidden: keepHidden}
}

// lexAll returns the significant tokens of src, ending with tkEOF, or with
// tkIllegal at the first lexical error.
func lexAll(src string) []token {
	l := newLexer(src, false)
	// Most statements have a few dozen tokens; a large blob literal is one
	// token, so the capacity must not follow the byte length.
	toks := make([]token, 0, min(len(src)/4+2, 64))
	for {
		t := l.next()
		toks = append(toks, t)
		if t.kind == tkEOF || t.kind == tkIllegal {
			return toks
		}
	}
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isHex(c byte) bool    { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
func isIdentChar(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_'
}

// advanceTo moves the lexer to byte offset end, counting lines and
// characters (UTF-8 continuation bytes do not start a character).
func (l *lexer) advanceTo(end int) {
	for i := l.off; i < end; i++ {
		switch c := l.src[i]; {
		case c == '\n':
			l.line++
			l.col = 0
		case c&0xC0 != 0x80:
			l.col++
		}
	}
	l.off = end
}

func (l *lexer) here() ast.Pos { return ast.Pos{Line: l.line, Col: l.col, Offset: l.off} }

// emit makes the token spanning from the current position to end.
func (l *lexer) emit(kind tokKind, end int, text string) token {
	t := token{kind: kind, pos: l.here(), end: end, text: text}
	l.advanceTo(end)
	return t
}

// illegal reports a lexical error at byte offset at; msg follows ANTLR's
// lexer messages ("no viable alternative at character 'x'").
func (l *lexer) illegal(at int, msg string) token {
	l.advanceTo(at)
	t := token{kind: tkIllegal, pos: l.here(), end: at, text: msg}
	l.off = len(l.src)
	return t
}

// charDisplay quotes the character at offset i as ANTLR's
// getCharErrorDisplay does.
func (l *lexer) charDisplay(i int) string {
	if i >= len(l.src) {
		return "'<EOF>'"
	}
	switch c := l.src[i]; c {
	case '\n':
		return `'\n'`
	case '\t':
		return `'\t'`
	case '\r':
		return `'\r'`
	}
	r := []rune(l.src[i:min(i+4, len(l.src))])
	return "'" + string(r[0]) + "'"
}

// next returns the next token, skipping whitespace and comments unless the
// lexer keeps hidden tokens. After the end it keeps returning tkEOF.
func (l *lexer) next() token {
	for {
		t := l.scan()
		if (t.kind == tkWS || t.kind == tkComment) && !l.keepHidden {
			continue
		}
		return t
	}
}

func (l *lexer) scan() token {
	s, i := l.src, l.off
	if i >= len(s) {
		return token{kind: tkEOF, pos: l.here(), end: i}
	}
	c := s[i]
	switch {
	case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		j := i + 1
		for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r') {
			j++
		}
		return l.emit(tkWS, j, "")
	case isDigit(c):
		return l.scanNumber(i)
	case isLetter(c):
		return l.scanWord(i)
	case c == '\'':
		return l.scanString(i)
	case c == '"':
		return l.scanQuotedName(i)
	case c == '$':
		if i+1 < len(s) && s[i+1] == '$' {
			return l.scanDollarString(i)
		}
		return l.illegal(i, "no viable alternative at character "+l.charDisplay(i))
	case c == '-':
		return l.scanMinus(i)
	case c == '/':
		if i+1 < len(s) && s[i+1] == '/' {
			return l.scanLineComment(i)
		}
		if i+1 < len(s) && s[i+1] == '*' {
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return l.illegal(len(s), "mismatched character '<EOF>' expecting '*'")
			}
			return l.emit(tkComment, i+2+end+2, "")
		}
		return l.emit(tkSlash, i+1, "")
	}
	return l.scanPunct(i)
}

var punctKinds = [256]tokKind{
	';': tkSemi, '(': tkLParen, ')': tkRParen, ',': tkComma, '[': tkLBracket, ']': tkRBracket,
	'{': tkLBrace, '}': tkRBrace, ':': tkColon, '?': tkQMark, '*': tkStar, '%': tkPercent,
	'=': tkEq,
}

func (l *lexer) scanPunct(i int) token {
	s := l.src
	c := s[i]
	two := func(second byte) bool { return i+1 < len(s) && s[i+1] == second }
	switch c {
	case '.':
		if two('.') {
			return l.emit(tkRange, i+2, "")
		}
		return l.emit(tkDot, i+1, "")
	case '+':
		if two('=') {
			return l.emit(tkPlusEq, i+2, "")
		}
		return l.emit(tkPlus, i+1, "")
	case '<':
		if two('=') {
			return l.emit(tkLte, i+2, "")
		}
		return l.emit(tkLt, i+1, "")
	case '>':
		if two('=') {
			return l.emit(tkGte, i+2, "")
		}
		return l.emit(tkGt, i+1, "")
	case '!':
		if two('=') {
			return l.emit(tkNeq, i+2, "")
		}
		return l.illegal(i+1, "mismatched character "+l.charDisplay(i+1)+" expecting '='")
	}
	if k := punctKinds[c]; k != tkEOF {
		return l.emit(k, i+1, "")
	}
	return l.illegal(i, "no viable alternative at character "+l.charDisplay(i))
}

func (l *lexer) scanLineComment(i int) token {
	s := l.src
	j := i + 2
	for j < len(s) && s[j] != '\n' && s[j] != '\r' {
		j++
	}
	if j < len(s) {
		j++ // the comment takes its line end, as in Lexer.g
	}
	return l.emit(tkComment, j, "")
}

// scanMinus lexes what starts with '-': a comment, a negative number or
// duration, -NaN, -Infinity, '-=' or '-'.
func (l *lexer) scanMinus(i int) token {
	s := l.src
	if i+1 < len(s) {
		switch n := s[i+1]; {
		case n == '-':
			return l.scanLineComment(i)
		case isDigit(n):
			return l.scanNumber(i)
		case n == 'P':
			if d := isoDurationLen(s, i); d > 0 {
				return l.emit(tkDuration, i+d, s[i:i+d])
			}
		case n == '=':
			return l.emit(tkMinusEq, i+2, "")
		}
	}
	// After '-', an n or an i commits Cassandra's lexer to -NaN or
	// -Infinity (its prediction looks one character ahead): `-i` is not
	// minus i but a lexical error at the first character that does not
	// follow ("mismatched character ' ' expecting set null"); `- i` is.
	if i+1 < len(s) {
		switch s[i+1] {
		case 'n', 'N':
			return l.scanNegativeWord(i, "nan", tkNegNaN)
		case 'i', 'I':
			return l.scanNegativeWord(i, "infinity", tkNegInfinity)
		}
	}
	return l.emit(tkMinus, i+1, "")
}

// scanNegativeWord lexes '-' then word (case-insensitive) as kind.
func (l *lexer) scanNegativeWord(i int, word string, kind tokKind) token {
	s := l.src
	for k := 0; k < len(word); k++ {
		at := i + 1 + k
		if at >= len(s) || s[at]|0x20 != word[k] {
			return l.illegal(at, "mismatched character "+l.charDisplay(at)+" expecting set null")
		}
	}
	end := i + 1 + len(word)
	return l.emit(kind, end, s[i:end])
}

func hasPrefixFold(s, lowerPrefix string) bool {
	return len(s) >= len(lowerPrefix) && strings.EqualFold(s[:len(lowerPrefix)], lowerPrefix)
}

func scanDigits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// scanNumber lexes INTEGER, FLOAT, DURATION, HEXNUMBER or UUID starting at
// i (a digit, or '-' before a digit).
func (l *lexer) scanNumber(i int) token {
	s := l.src
	kind, end := numberEnd(s, i)
	if d := unitDurationLen(s, i); d > end-i {
		kind, end = tkDuration, i+d
	}
	if s[i] != '-' {
		if s[i] == '0' && i+1 < len(s) && (s[i+1] == 'x' || s[i+1] == 'X') {
			j := i + 2
			for j < len(s) && isHex(s[j]) {
				j++
			}
			if j > end {
				kind, end = tkHex, j
			}
		}
		if uuidLen(s, i) > end-i {
			kind, end = tkUUID, i+36
		}
	}
	return l.emit(kind, end, s[i:end])
}

// numberEnd returns the kind and end of the INTEGER or FLOAT at i. Lexer.g
// reads "1..2" as INTEGER RANGE INTEGER and "1..." as FLOAT("1.") RANGE.
func numberEnd(s string, i int) (tokKind, int) {
	j := i
	if s[j] == '-' {
		j++
	}
	j = scanDigits(s, j)
	kind := tkInteger
	if j < len(s) && s[j] == '.' {
		switch {
		case j+1 < len(s) && s[j+1] == '.':
			if j+2 < len(s) && s[j+2] == '.' {
				return tkFloat, j + 1
			}
			return tkInteger, j
		default:
			j = scanDigits(s, j+1)
			kind = tkFloat
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			return tkFloat, scanDigits(s, k)
		}
	}
	return kind, j
}

// durationUnits are Lexer.g's DURATION_UNIT alternatives, longest first
// (case-insensitive; "µs" is matched separately).
var durationUnits = []string{"mo", "ms", "us", "ns", "y", "w", "d", "h", "m", "s"}

// unitDurationLen returns the length of a duration such as 1h30m at i
// ('-'? (DIGIT+ DURATION_UNIT)+), or 0.
func unitDurationLen(s string, i int) int {
	j := i
	if s[j] == '-' {
		j++
	}
	matched := false
	for {
		d := scanDigits(s, j)
		if d == j {
			break
		}
		u := unitLen(s, d)
		if u == 0 {
			break
		}
		j = d + u
		matched = true
	}
	if !matched {
		return 0
	}
	return j - i
}

func unitLen(s string, i int) int {
	if strings.HasPrefix(s[i:], "µs") || strings.HasPrefix(s[i:], "µS") {
		return len("µs")
	}
	for _, u := range durationUnits {
		if hasPrefixFold(s[i:], u) {
			return len(u)
		}
	}
	return 0
}

// isoDurationLen returns the length of an ISO 8601 duration at i
// ('-'? P...: P1Y2M3D, PT1H30M, P2W, P0001-02-03T04:05:06), or 0. The
// designators are upper case only, as in Lexer.g.
func isoDurationLen(s string, i int) int {
	start := i
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i >= len(s) || s[i] != 'P' {
		return 0
	}
	i++
	if n := isoAlternativeLen(s, i); n > 0 {
		return i + n - start
	}
	if i < len(s) && s[i] == 'T' {
		n := designatorsLen(s, i+1, "HMS")
		if n == 0 {
			return 0
		}
		return i + 1 + n - start
	}
	if d := scanDigits(s, i); d > i && d < len(s) && s[d] == 'W' {
		return d + 1 - start
	}
	n := designatorsLen(s, i, "YMD")
	if n == 0 {
		return 0
	}
	i += n
	if i < len(s) && s[i] == 'T' {
		if t := designatorsLen(s, i+1, "HMS"); t > 0 {
			i += 1 + t
		}
	}
	return i - start
}

// designatorsLen matches (DIGIT+ X)+ with the designators X in the given
// order, each at most once.
func designatorsLen(s string, i int, order string) int {
	start := i
	for order != "" {
		d := scanDigits(s, i)
		if d == i || d >= len(s) {
			break
		}
		k := strings.IndexByte(order, s[d])
		if k < 0 {
			break
		}
		order = order[k+1:]
		i = d + 1
	}
	return i - start
}

// isoAlternativeLen matches the ISO 8601 alternative format
// YYYY-MM-DDThh:mm:ss after the P.
func isoAlternativeLen(s string, i int) int {
	const pattern = "dddd-dd-ddTdd:dd:dd"
	if len(s)-i < len(pattern) {
		return 0
	}
	for k := 0; k < len(pattern); k++ {
		c := s[i+k]
		if pattern[k] == 'd' && !isDigit(c) || pattern[k] != 'd' && c != pattern[k] {
			return 0
		}
	}
	return len(pattern)
}

// uuidLen returns 36 if an unquoted UUID (8-4-4-4-12 hex digits) starts at i.
func uuidLen(s string, i int) int {
	if len(s)-i < 36 {
		return 0
	}
	for k := 0; k < 36; k++ {
		c := s[i+k]
		switch k {
		case 8, 13, 18, 23:
			if c != '-' {
				return 0
			}
		default:
			if !isHex(c) {
				return 0
			}
		}
	}
	return 36
}

// scanWord lexes an identifier, keyword or boolean, or the UUID or ISO
// duration that a letter can start.
func (l *lexer) scanWord(i int) token {
	s := l.src
	end := i + 1
	for end < len(s) && isIdentChar(s[end]) {
		end++
	}
	if s[i] == 'P' {
		if d := isoDurationLen(s, i); d >= end-i {
			return l.emit(tkDuration, i+d, s[i:i+d])
		}
	}
	if isHex(s[i]) && uuidLen(s, i) > end-i {
		return l.emit(tkUUID, i+36, s[i:i+36])
	}
	word := s[i:end]
	lower, kw := lowerWord(word)
	if kw != kwNone {
		t := l.emit(tkIdent, end, lower)
		t.kw = kw
		return t
	}
	if lower == "true" || lower == "false" {
		return l.emit(tkBoolean, end, lower)
	}
	return l.emit(tkIdent, end, lower)
}

// lowerWord lower-cases an ASCII word and looks it up as a keyword. Keywords
// and words already in lower case cost no allocation.
func lowerWord(word string) (string, keyword) {
	upper := false
	for i := 0; i < len(word); i++ {
		if word[i] >= 'A' && word[i] <= 'Z' {
			upper = true
			break
		}
	}
	if !upper {
		return word, keywordByName[word]
	}
	var buf [32]byte
	if len(word) <= len(buf) {
		b := buf[:len(word)]
		for i := 0; i < len(word); i++ {
			c := word[i]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			b[i] = c
		}
		if kw, ok := keywordByName[string(b)]; ok {
			return keywordSpelling(kw, b), kw
		}
	}
	return strings.ToLower(word), kwNone
}

// keywordSpelling returns the static lower-case spelling of kw that b spells.
func keywordSpelling(kw keyword, b []byte) string {
	if keywords[kw].name == string(b) {
		return keywords[kw].name
	}
	for name, k := range keywordSynonyms {
		if k == kw && name == string(b) {
			return name
		}
	}
	return string(b)
}

// scanString lexes '...' with ” standing for a quote.
func (l *lexer) scanString(i int) token {
	s := l.src
	j := i + 1
	escaped := false
	for {
		k := strings.IndexByte(s[j:], '\'')
		if k < 0 {
			return l.illegal(len(s), "mismatched character '<EOF>' expecting '''")
		}
		j += k
		if j+1 < len(s) && s[j+1] == '\'' {
			escaped = true
			j += 2
			continue
		}
		break
	}
	text := s[i+1 : j]
	if escaped {
		text = strings.ReplaceAll(text, "''", "'")
	}
	return l.emit(tkString, j+1, text)
}

// scanDollarString lexes a pg-style $$...$$ string (no escapes).
func (l *lexer) scanDollarString(i int) token {
	s := l.src
	k := strings.Index(s[i+2:], "$$")
	if k < 0 {
		return l.illegal(len(s), "mismatched character '<EOF>' expecting '$'")
	}
	return l.emit(tkString, i+2+k+2, s[i+2:i+2+k])
}

// scanQuotedName lexes "..." with "" standing for a quote, or the empty
// quoted name "".
func (l *lexer) scanQuotedName(i int) token {
	s := l.src
	if i+1 < len(s) && s[i+1] == '"' && (i+2 >= len(s) || s[i+2] != '"') {
		return l.emit(tkEmptyQuotedName, i+2, "")
	}
	j := i + 1
	escaped := false
	for {
		k := strings.IndexByte(s[j:], '"')
		if k < 0 {
			return l.illegal(len(s), `mismatched character '<EOF>' expecting '"'`)
		}
		j += k
		if j+1 < len(s) && s[j+1] == '"' {
			escaped = true
			j += 2
			continue
		}
		break
	}
	text := s[i+1 : j]
	if escaped {
		text = strings.ReplaceAll(text, `""`, `"`)
	}
	return l.emit(tkQuotedName, j+1, text)
}
