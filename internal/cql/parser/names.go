package parser

import "github.com/partita-db/partita/internal/cql/ast"

// Identifier rules of Parser.g. They differ only in which keywords they
// accept as names: ident/noncol_ident/fident/sident take unreserved_keyword,
// cident also the empty quoted name, non_type_ident excludes native types,
// allowedFunctionName excludes TTL, WRITETIME, KEY, CAST, JSON, ...

// isIdent reports whether t can be an ident: IDENT | QUOTED_NAME |
// unreserved_keyword.
func isIdent(t *token) bool {
	switch t.kind {
	case tkQuotedName:
		return true
	case tkIdent:
		return t.kw == kwNone || keywords[t.kw].class != classReserved
	}
	return false
}

// isCident reports whether t can be a cident: EMPTY_QUOTED_NAME | ident.
func isCident(t *token) bool { return t.kind == tkEmptyQuotedName || isIdent(t) }

// isFunctionName reports whether t can be an allowedFunctionName: IDENT |
// QUOTED_NAME | unreserved_function_keyword | K_TOKEN | K_COUNT.
func isFunctionName(t *token) bool {
	if t.kind == tkQuotedName {
		return true
	}
	if t.kind != tkIdent {
		return false
	}
	if t.kw == kwNone || t.kw == kwToken || t.kw == kwCount {
		return true
	}
	c := keywords[t.kw].class
	return c == classBasic || c == classNativeType
}

// isNonTypeIdent reports whether t can be a non_type_ident: IDENT |
// QUOTED_NAME | basic_unreserved_keyword | K_KEY.
func isNonTypeIdent(t *token) bool {
	if t.kind == tkQuotedName {
		return true
	}
	return t.kind == tkIdent && (t.kw == kwNone || t.kw == kwKey || keywords[t.kw].class == classBasic)
}

// parseIdent implements
//
//	ident: IDENT | QUOTED_NAME | unreserved_keyword
//
// (and noncol_ident, fident and sident, which accept the same tokens).
func (p *parser) parseIdent() ast.Ident {
	t := p.cur()
	if !isIdent(t) {
		p.noViable()
	}
	p.next()
	return ast.Ident{Pos: t.pos, Name: t.text}
}

// parseCident implements
//
//	cident: EMPTY_QUOTED_NAME | ident
func (p *parser) parseCident() ast.Ident {
	t := p.cur()
	if t.kind == tkEmptyQuotedName {
		p.next()
		return ast.Ident{Pos: t.pos}
	}
	return p.parseIdent()
}

// parseObjectName implements ksName, cfName and idxName:
//
//	ksName: IDENT | QUOTED_NAME | unreserved_keyword | QMARK
//
// where a bind marker is reported as "Bind variables cannot be used for
// <what> names".
func (p *parser) parseObjectName(what string) string {
	if p.is(tkQMark) {
		p.next()
		p.recognitionError("Bind variables cannot be used for " + what + " names")
		return ""
	}
	return p.parseIdent().Name
}

// parseKeyspaceName implements
//
//	keyspaceName: ksName
func (p *parser) parseKeyspaceName() string { return p.parseObjectName("keyspace") }

// isObjectNameStart reports whether t can start a ksName.
func isObjectNameStart(t *token) bool { return isIdent(t) || t.kind == tkQMark }

// parseQualifiedName implements
//
//	columnFamilyName: (ksName '.')? cfName
//	indexName: (ksName '.')? idxName
func (p *parser) parseQualifiedName(what string) ast.QualifiedName {
	q := ast.QualifiedName{Pos: p.cur().pos}
	if isObjectNameStart(p.cur()) && p.peek(1).kind == tkDot {
		q.Keyspace = p.parseKeyspaceName()
		p.next()
	}
	q.Name = p.parseObjectName(what)
	return q
}

// parseTableName implements columnFamilyName.
func (p *parser) parseTableName() ast.QualifiedName { return p.parseQualifiedName("table") }

// parseUserTypeName implements
//
//	userTypeName: (noncol_ident '.')? non_type_ident
func (p *parser) parseUserTypeName() ast.QualifiedName {
	q := ast.QualifiedName{Pos: p.cur().pos}
	if isIdent(p.cur()) && p.peek(1).kind == tkDot {
		q.Keyspace = p.parseIdent().Name
		p.next()
	}
	t := p.cur()
	if !isNonTypeIdent(t) {
		p.noViable()
	}
	p.next()
	if t.kind == tkIdent && t.kw == kwNone && reservedTypeNames[t.text] {
		p.recognitionError("Invalid (reserved) user type name " + t.text)
	}
	q.Name = t.text
	return q
}

// reservedTypeNames are names Parser.g keeps from user types.
var reservedTypeNames = map[string]bool{
	"byte": true, "complex": true, "enum": true, "date": true,
	"interval": true, "macaddr": true, "bitstring": true,
}

// isFunctionCallStart reports whether a function call starts at the
// current token: allowedFunctionName '(' or keyspaceName '.'
// allowedFunctionName '('.
func (p *parser) isFunctionCallStart() bool {
	t := p.cur()
	if isFunctionName(t) && p.peek(1).kind == tkLParen {
		return true
	}
	return isIdent(t) && p.peek(1).kind == tkDot && isFunctionName(p.peek(2)) && p.peek(3).kind == tkLParen
}

// parseFunctionName implements
//
//	functionName: (keyspaceName '.')? allowedFunctionName
//	allowedFunctionName: IDENT | QUOTED_NAME | unreserved_function_keyword | K_TOKEN | K_COUNT
func (p *parser) parseFunctionName() (keyspace, name string) {
	if isObjectNameStart(p.cur()) && p.peek(1).kind == tkDot {
		keyspace = p.parseKeyspaceName()
		p.next()
	}
	t := p.cur()
	if !isFunctionName(t) {
		p.noViable()
	}
	p.next()
	return keyspace, t.text
}
