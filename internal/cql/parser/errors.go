package parser

import (
	"strconv"
	"strings"

	"github.com/partita-db/partita/internal/cqlerr"
)

// Syntax errors read like Cassandra's, which come from ANTLR 3 through
// src/java/org/apache/cassandra/cql3/ErrorCollector.java:
//
//	line 1:9 mismatched input 'zeppelin' expecting K_FROM (SELECT * [zeppelin]...)
//	line 0:-1 no viable alternative at input '<EOF>'
//
// The header is the offending token's line and 0-based column, or 0:-1 for
// the end of input (Cassandra's lexer ends with a position-less EOF token,
// which also suppresses the snippet). The snippet runs from ten tokens
// before the offending one, whitespace and comments included, to the
// offending token, which is bracketed; "..." marks text cut off at either
// end. Lexer errors carry no snippet.

const (
	snippetTokensBefore = 10 // ErrorCollector.FIRST_TOKEN_OFFSET
	snippetTokensAfter  = 2  // ErrorCollector.LAST_TOKEN_OFFSET
	maxDepth            = 64 // nesting limit for collections, tuples, functions, types, relations
)

// bailout unwinds the parser after an error; Parse and speculate recover it.
type bailout struct{}

// displayText is the token text ANTLR shows: strings and quoted names
// without their quotes, everything else as written.
func (p *parser) displayText(t *token) string {
	switch t.kind {
	case tkEOF:
		return "<EOF>"
	case tkString, tkQuotedName:
		return t.text
	}
	return p.src[t.pos.Offset:t.end]
}

// tokenDisplay quotes a token as ANTLR's getTokenErrorDisplay does.
func (p *parser) tokenDisplay(t *token) string {
	s := p.displayText(t)
	s = strings.ReplaceAll(s, "\n", `\n`)
	s = strings.ReplaceAll(s, "\r", `\r`)
	s = strings.ReplaceAll(s, "\t", `\t`)
	return "'" + s + "'"
}

// fail records a syntax error at t and unwinds. A lexical error at t wins,
// since Cassandra's lexer reports it before the parser sees the token.
func (p *parser) fail(t *token, msg string) {
	if t.kind == tkIllegal {
		p.err = cqlerr.Syntaxf("%s", header(t)+" "+t.text)
	} else if t.kind == tkEOF {
		p.err = cqlerr.Syntaxf("%s", "line 0:-1 "+msg)
	} else {
		p.err = cqlerr.Syntaxf("%s", header(t)+" "+msg+p.snippet(t))
	}
	panic(bailout{})
}

func header(t *token) string {
	return "line " + strconv.Itoa(t.pos.Line) + ":" + strconv.Itoa(t.pos.Col)
}

// noViable fails at the current token with ANTLR's NoViableAltException text.
func (p *parser) noViable() {
	t := p.cur()
	p.fail(t, "no viable alternative at input "+p.tokenDisplay(t))
}

// mismatch fails at the current token with ANTLR's MismatchedTokenException
// text; expecting is a token name such as K_FROM, ')' or EOF.
func (p *parser) mismatch(expecting string) {
	t := p.cur()
	p.fail(t, "mismatched input "+p.tokenDisplay(t)+" expecting "+expecting)
}

// recognitionError records a message that Cassandra's grammar actions
// report through addRecognitionError: parsing goes on, and the first such
// message becomes the error unless a syntax error came before it.
func (p *parser) recognitionError(msg string) {
	if p.soft == nil {
		p.soft = cqlerr.Syntaxf("%s", msg)
	}
}

// snippet renders the query around the offending token t as
// ErrorCollector.appendSnippet does.
func (p *parser) snippet(t *token) string {
	all := p.allTokensThrough(t.pos.Offset)
	if len(all) == 0 {
		return ""
	}
	from := all[max(0, len(all)-1-snippetTokensBefore)]
	to := all[len(all)-1]
	if p.lookedPast == t.pos.Offset && t.pos.Offset > 0 {
		// ErrorCollector.LAST_TOKEN_OFFSET: the snippet runs to two
		// tokens past the offending one when the parser read them.
		for _, a := range p.tokensAfter(t.pos.Offset, snippetTokensAfter) {
			if a.pos.Offset > p.lookedPastEnd || a.pos.Line != to.pos.Line {
				break
			}
			to = a
		}
	}
	lines := javaSplitLines(p.src)
	lineIndex := func(tk token) int { return tk.pos.Line - 1 }
	if lineIndex(to) >= len(lines) || lineIndex(from) >= len(lines) {
		return ""
	}
	lastCol := func(tk token) int { return tk.pos.Col + len([]rune(p.displayText(&tk))) }
	includeStart := from.pos.Line == 1 && from.pos.Col == 0
	last := lines[len(lines)-1]
	includeEnd := to.pos.Line == len(lines) && lastCol(to) == len(last)

	toLine := lines[lineIndex(to)]
	if end := lastCol(to); end < len(toLine) {
		lines[lineIndex(to)] = toLine[:end]
	}
	lines[lineIndex(to)] = highlight(lines[lineIndex(to)], t.pos.Col, t.pos.Col+len([]rune(p.displayText(t))))
	fromLine := lines[lineIndex(from)]
	lines[lineIndex(from)] = fromLine[min(from.pos.Col, len(fromLine)):]

	var b strings.Builder
	b.WriteString(" (")
	if !includeStart {
		b.WriteString("...")
	}
	for i := lineIndex(from); i <= lineIndex(to); i++ {
		b.WriteString(string(lines[i]))
	}
	if !includeEnd {
		b.WriteString("...")
	}
	b.WriteByte(')')
	return b.String()
}

// highlight brackets columns [start, end) of line.
func highlight(line []rune, start, end int) []rune {
	end = min(end, len(line))
	start = min(start, end)
	out := make([]rune, 0, len(line)+2)
	out = append(out, line[:start]...)
	out = append(out, '[')
	out = append(out, line[start:end]...)
	out = append(out, ']')
	return append(out, line[end:]...)
}

// javaSplitLines splits like Java's String.split("\n"): trailing empty
// lines are dropped.
func javaSplitLines(s string) [][]rune {
	parts := strings.Split(s, "\n")
	for len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	lines := make([][]rune, len(parts))
	for i, part := range parts {
		lines[i] = []rune(part)
	}
	return lines
}

// allTokensThrough re-lexes the query keeping whitespace and comments and
// returns every token up to and including the one at byte offset off. It
// runs only when building an error message.
func (p *parser) allTokensThrough(off int) []token {
	l := newLexer(p.src, true)
	var all []token
	for {
		t := l.next()
		if t.kind == tkEOF || t.kind == tkIllegal || t.pos.Offset > off {
			return nil
		}
		all = append(all, t)
		if t.pos.Offset == off {
			return all
		}
	}
}

// tokensAfter re-lexes the query keeping whitespace and comments and
// returns up to n tokens after the one at byte offset off.
func (p *parser) tokensAfter(off, n int) []token {
	l := newLexer(p.src, true)
	var after []token
	for len(after) < n {
		t := l.next()
		if t.kind == tkEOF || t.kind == tkIllegal {
			break
		}
		if t.pos.Offset > off {
			after = append(after, t)
		}
	}
	return after
}
