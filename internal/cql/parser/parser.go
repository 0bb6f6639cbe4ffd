package parser

import (
	"strconv"

	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
)

// Parse parses one CQL statement. Trailing semicolons are allowed; anything
// else after the statement is a syntax error (Cql.g: query: cqlStatement
// ';'* EOF). Errors are *cqlerr.Error with code SyntaxError.
func Parse(text string) (ast.Statement, error) {
	p := newParser(text)
	var stmt ast.Statement
	err := p.run(func() {
		stmt = p.parseStatement()
		for p.accept(tkSemi) {
		}
		if !p.is(tkEOF) {
			p.mismatch("EOF")
		}
	})
	if err != nil {
		return nil, err
	}
	return stmt, nil
}

// ParseAll parses a script: statements separated by semicolons, which may
// also be repeated or trail. Semicolons inside strings, comments and BATCH
// bodies do not split. Each statement numbers its bind markers from 0;
// positions are relative to the whole script.
func ParseAll(text string) ([]ast.Statement, error) {
	var stmts []ast.Statement
	err := parseScript(text, func(stmt ast.Statement, _ string) { stmts = append(stmts, stmt) })
	if err != nil {
		return nil, err
	}
	return stmts, nil
}

// Split parses a script like ParseAll and returns the text of each
// statement as written, without the separating semicolons, for tools that
// send statements one by one.
func Split(text string) ([]string, error) {
	var texts []string
	err := parseScript(text, func(_ ast.Statement, src string) { texts = append(texts, src) })
	if err != nil {
		return nil, err
	}
	return texts, nil
}

func parseScript(text string, each func(stmt ast.Statement, src string)) error {
	p := newParser(text)
	return p.run(func() {
		for {
			for p.accept(tkSemi) {
			}
			if p.is(tkEOF) {
				return
			}
			p.markers = 0
			start := p.cur().pos.Offset
			stmt := p.parseStatement()
			end := p.toks[p.pos-1].end
			if !p.is(tkEOF) && !p.is(tkSemi) {
				p.mismatch("';'")
			}
			each(stmt, text[start:end])
		}
	})
}

// parser is a recursive-descent parser over the token slice. Parse
// functions are named after the Parser.g rule they implement and quote it
// in their comment. On the first syntax error the parser records it and
// unwinds with a bailout panic that never leaves this package.
type parser struct {
	src     string
	toks    []token
	pos     int // index of the current token
	markers int // bind markers seen so far in the statement
	depth   int // current nesting of recursive rules
	err     *cqlerr.Error
	soft    *cqlerr.Error // first recognition error (see recognitionError)
	// lookedPast is the offset of a token the parser declined after
	// looking at the tokens after it up to offset lookedPastEnd, as
	// ANTLR's prediction does; an error there shows up to two of them
	// (see snippet).
	lookedPast, lookedPastEnd int
}

func newParser(text string) *parser {
	return &parser{src: text, toks: lexAll(text)}
}

// run calls f and turns a bailout into the error it recorded. A
// recognition error reported before the failure takes precedence, as the
// first error Cassandra collects is the one it throws. Any other panic is a
// bug in the parser; it becomes a Server error rather than taking the
// server down (the fuzz test fails on it).
func (p *parser) run(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				err = cqlerr.Serverf("internal error parsing statement: %v", r)
				return
			}
		}
		switch {
		case p.soft != nil:
			err = p.soft
		case p.err != nil:
			err = p.err
		}
	}()
	f()
	return nil
}

// speculate reports whether f parses from the current token without a
// syntax error, then restores the parser state: it implements Parser.g's
// syntactic predicates such as (K_JSON selectClause)=>.
func (p *parser) speculate(f func()) (ok bool) {
	saved := *p
	defer func() {
		if r := recover(); r != nil {
			if _, isBailout := r.(bailout); !isBailout {
				panic(r)
			}
			ok = false
		}
		*p = saved
	}()
	f()
	return true
}

func (p *parser) cur() *token { return &p.toks[p.pos] }

// peek returns the token n places ahead (the last token, EOF or illegal,
// repeats past the end).
func (p *parser) peek(n int) *token {
	if p.pos+n >= len(p.toks) {
		return &p.toks[len(p.toks)-1]
	}
	return &p.toks[p.pos+n]
}

// next consumes the current token and returns it.
func (p *parser) next() *token {
	t := &p.toks[p.pos]
	if p.pos < len(p.toks)-1 {
		p.pos++
	}
	return t
}

func (p *parser) is(k tokKind) bool             { return p.toks[p.pos].kind == k }
func (p *parser) isKw(kw keyword) bool          { return isKw(p.cur(), kw) }
func isKw(t *token, kw keyword) bool            { return t.kind == tkIdent && t.kw == kw }
func (p *parser) peekKw(n int, kw keyword) bool { return isKw(p.peek(n), kw) }

func (p *parser) accept(k tokKind) bool {
	if p.is(k) {
		p.next()
		return true
	}
	return false
}

func (p *parser) acceptKw(kw keyword) bool {
	if p.isKw(kw) {
		p.next()
		return true
	}
	return false
}

func (p *parser) expect(k tokKind) *token {
	if !p.is(k) {
		p.mismatch(tokNames[k])
	}
	return p.next()
}

func (p *parser) expectKw(kw keyword) *token {
	if !p.isKw(kw) {
		p.mismatch(kw.antlrName())
	}
	return p.next()
}

// enter counts one level of a recursive rule and fails past maxDepth, so
// that deeply nested input cannot exhaust the stack.
func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		t := p.cur()
		p.fail(t, "too many nested levels (more than "+strconv.Itoa(maxDepth)+") at input "+p.tokenDisplay(t))
	}
}

func (p *parser) leave() { p.depth-- }

// acceptIfNotExists consumes IF NOT EXISTS if present.
func (p *parser) acceptIfNotExists() bool {
	if !p.isKw(kwIf) {
		return false
	}
	p.next()
	p.expectKw(kwNot)
	p.expectKw(kwExists)
	return true
}

// acceptIfExists consumes IF EXISTS if present.
func (p *parser) acceptIfExists() bool {
	if !p.isKw(kwIf) {
		return false
	}
	p.next()
	p.expectKw(kwExists)
	return true
}

// parseStatement implements
//
//	cqlStatement: selectStatement | insertStatement | updateStatement
//	    | batchStatement | deleteStatement | useStatement | truncateStatement
//	    | create... | drop... | alter... | describeStatement
//	    | (statements Partita does not implement, see parseUnsupported)
func (p *parser) parseStatement() ast.Statement {
	t := p.cur()
	if t.kind != tkIdent {
		p.noViable()
	}
	// EXPLAIN is not a CQL keyword: a statement that starts with the word
	// is Partita's extension.
	if t.kw == kwNone && t.text == "explain" && p.peek(1).kind == tkIdent {
		p.next()
		return &ast.Explain{Pos: t.pos, Statement: p.parseStatement()}
	}
	switch t.kw {
	case kwSelect:
		return p.parseSelect()
	case kwInsert:
		return p.parseInsert()
	case kwUpdate:
		return p.parseUpdate()
	case kwBegin:
		return p.parseBatch()
	case kwDelete:
		return p.parseDelete()
	case kwUse:
		return p.parseUse()
	case kwTruncate:
		return p.parseTruncate()
	case kwCreate:
		return p.parseCreate()
	case kwDrop:
		return p.parseDrop()
	case kwAlter:
		return p.parseAlter()
	case kwDescribe, kwDesc:
		return p.parseDescribe()
	case kwGrant:
		if p.isRoleGrant() {
			return p.parseGrantRole()
		}
		return p.parseGrantPermissions(false)
	case kwRevoke:
		if p.isRoleGrant() {
			return p.parseRevokeRole()
		}
		return p.parseGrantPermissions(true)
	case kwList:
		return p.parseList()
	case kwAdd:
		if p.peekKw(1, kwIdentity) {
			return p.parseUnsupported("ADD IDENTITY")
		}
	}
	p.noViable()
	return nil
}
