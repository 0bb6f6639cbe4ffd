package parser

import (
	"strconv"

	"github.com/partita-db/partita/internal/cql/ast"
)

// isConstant reports whether t starts a constant:
//
//	constant: STRING_LITERAL | INTEGER | FLOAT | BOOLEAN | DURATION | UUID
//	    | HEXNUMBER | K_POSITIVE_NAN | K_NEGATIVE_NAN | K_POSITIVE_INFINITY
//	    | K_NEGATIVE_INFINITY
func isConstant(t *token) bool {
	switch t.kind {
	case tkString, tkInteger, tkFloat, tkBoolean, tkDuration, tkUUID, tkHex, tkNegNaN, tkNegInfinity:
		return true
	case tkIdent:
		return t.kw == kwNaN || t.kw == kwInfinity
	}
	return false
}

var literalKinds = map[tokKind]ast.LiteralKind{
	tkString: ast.LitString, tkInteger: ast.LitInteger, tkFloat: ast.LitFloat,
	tkBoolean: ast.LitBoolean, tkDuration: ast.LitDuration, tkUUID: ast.LitUUID, tkHex: ast.LitHex,
}

// parseConstant implements constant (see isConstant).
func (p *parser) parseConstant() *ast.Literal {
	t := p.cur()
	lit := &ast.Literal{Pos: t.pos}
	switch {
	case t.kind == tkNegNaN || isKw(t, kwNaN):
		lit.Kind, lit.Text = ast.LitNaN, "NaN"
	case isKw(t, kwInfinity):
		lit.Kind, lit.Text = ast.LitInfinity, "Infinity"
	case t.kind == tkNegInfinity:
		lit.Kind, lit.Text = ast.LitInfinity, "-Infinity"
	default:
		kind, ok := literalKinds[t.kind]
		if !ok {
			p.noViable()
		}
		lit.Kind, lit.Text = kind, t.text
	}
	p.next()
	return lit
}

// parseMarker implements
//
//	marker: ':' noncol_ident | QMARK
func (p *parser) parseMarker() *ast.BindMarker {
	t := p.cur()
	m := &ast.BindMarker{Pos: t.pos}
	switch t.kind {
	case tkQMark:
		p.next()
	case tkColon:
		p.next()
		m.Name = p.parseIdent().Name
	default:
		p.noViable()
	}
	m.Index = p.markers
	p.markers++
	return m
}

func isMarkerStart(t *token) bool { return t.kind == tkQMark || t.kind == tkColon }

// parseIntValue implements
//
//	intValue: INTEGER | ':' noncol_ident | QMARK
func (p *parser) parseIntValue() ast.Expr {
	if p.is(tkInteger) {
		return p.parseConstant()
	}
	if isMarkerStart(p.cur()) {
		return p.parseMarker()
	}
	p.noViable()
	return nil
}

// parseTerm implements
//
//	term: termAddition
//	termAddition: termMultiplication (('+' | '-') termMultiplication)*
//
// The loop stops at a '+' that is not followed by a term: in
// `SET c = [1] + c` the '+' belongs to the prepend form.
func (p *parser) parseTerm() ast.Expr {
	depth := p.depth
	left := p.parseTermMultiplication()
	for (p.is(tkPlus) || p.is(tkMinus)) && p.termGroupStartsAt(1) {
		op := p.next()
		p.enter() // a long chain is a deep tree
		right := p.parseTermMultiplication()
		left = &ast.BinaryOp{Pos: left.Position(), Op: ast.ArithOp(p.src[op.pos.Offset]), Left: left, Right: right}
	}
	p.depth = depth
	return left
}

// parseTermMultiplication implements
//
//	termMultiplication: termGroup (('*' | '/' | '%') termGroup)*
func (p *parser) parseTermMultiplication() ast.Expr {
	depth := p.depth
	left := p.parseTermGroup()
	for p.is(tkStar) || p.is(tkSlash) || p.is(tkPercent) {
		op := p.next()
		p.enter()
		right := p.parseTermGroup()
		left = &ast.BinaryOp{Pos: left.Position(), Op: ast.ArithOp(p.src[op.pos.Offset]), Left: left, Right: right}
	}
	p.depth = depth
	return left
}

// parseTermGroup implements
//
//	termGroup: simpleTerm | '-' simpleTerm
func (p *parser) parseTermGroup() ast.Expr {
	if p.is(tkMinus) {
		minus := p.next()
		return negate(minus.pos, p.parseSimpleTerm())
	}
	return p.parseSimpleTerm()
}

// negate applies a unary minus. It is a Negation even of a numeric literal:
// Cassandra's grammar negates `- 1` as a call of _negate on the literal 1
// (FunctionCall.Raw.newNegation, Selectable.WithFunction.Raw.newNegation),
// which is typed differently from the literal -1 (`- 2147483648` is a
// bigint, and alone in a selection only the negation has a type).
func negate(pos ast.Pos, e ast.Expr) ast.Expr {
	return &ast.Negation{Pos: pos, Operand: e}
}

// termGroupStartsAt reports whether a termGroup can start n tokens ahead.
func (p *parser) termGroupStartsAt(n int) bool {
	if p.peek(n).kind == tkMinus {
		n++
	}
	return p.simpleTermStartsAt(n)
}

// simpleTermStartsAt reports whether a simpleTerm can start n tokens ahead.
func (p *parser) simpleTermStartsAt(n int) bool {
	t := p.peek(n)
	switch t.kind {
	case tkLBracket, tkLBrace, tkLParen, tkQMark, tkColon:
		return true
	}
	if isConstant(t) || isKw(t, kwNull) {
		return true
	}
	if isKw(t, kwCast) && p.peek(n+1).kind == tkLParen {
		return true
	}
	return p.functionCallStartsAt(n)
}

// functionCallStartsAt reports whether allowedFunctionName '(' or
// keyspaceName '.' allowedFunctionName '(' starts n tokens ahead.
func (p *parser) functionCallStartsAt(n int) bool {
	t := p.peek(n)
	if isFunctionName(t) && p.peek(n+1).kind == tkLParen {
		return true
	}
	return isObjectNameStart(t) && p.peek(n+1).kind == tkDot &&
		isFunctionName(p.peek(n+2)) && p.peek(n+3).kind == tkLParen
}

// parseSimpleTerm implements
//
//	simpleTerm: value | function | '(' comparatorType ')' simpleTerm
//	    | K_CAST '(' simpleTerm K_AS native_type ')'
//	value: constant | collectionLiteral | usertypeLiteral | tupleLiteral
//	    | K_NULL | marker
func (p *parser) parseSimpleTerm() ast.Expr {
	t := p.cur()
	switch {
	case isConstant(t):
		return p.parseConstant()
	case t.kind == tkLBracket:
		return p.parseListLiteral(p.parseTerm)
	case t.kind == tkLBrace:
		return p.parseBraceLiteral()
	case t.kind == tkLParen:
		if p.typeCastAhead(p.simpleTermStartsAt) {
			return p.parseTypeCast(p.parseSimpleTerm)
		}
		return p.parseTupleLiteral()
	case isKw(t, kwNull):
		p.next()
		return &ast.Null{Pos: t.pos}
	case isMarkerStart(t):
		return p.parseMarker()
	case isKw(t, kwCast) && p.peek(1).kind == tkLParen:
		return p.parseCast(p.parseSimpleTerm)
	case p.functionCallStartsAt(0):
		return p.parseFunctionCall(p.parseTerm)
	}
	p.noViable()
	return nil
}

// typeCastAhead decides Parser.g's choice between a type hint
// `(type) operand` and a parenthesised tuple: it is a hint when
// '(' comparatorType ')' parses and an operand can start after it.
func (p *parser) typeCastAhead(operandStartsAt func(n int) bool) bool {
	return p.speculate(func() {
		p.next()
		p.parseType()
		p.expect(tkRParen)
		if !operandStartsAt(0) {
			p.noViable()
		}
	})
}

// parseTypeCast implements '(' comparatorType ')' operand.
func (p *parser) parseTypeCast(operand func() ast.Expr) ast.Expr {
	open := p.expect(tkLParen)
	p.enter()
	typ := p.parseType()
	p.expect(tkRParen)
	e := operand()
	p.leave()
	return &ast.TypeCast{Pos: open.pos, Type: typ, Expr: e}
}

// parseCast implements K_CAST '(' operand K_AS native_type ')'.
func (p *parser) parseCast(operand func() ast.Expr) ast.Expr {
	start := p.next()
	p.expect(tkLParen)
	p.enter()
	e := operand()
	p.expectKw(kwAs)
	typ := p.parseNativeType()
	p.expect(tkRParen)
	p.leave()
	return &ast.Cast{Pos: start.pos, Expr: e, Type: typ}
}

// parseFunctionCall implements
//
//	function: functionName '(' ')' | functionName '(' functionArgs ')'
//	functionArgs: term (',' term)*
//
// with arg parsing each argument (terms, or selectors in a selection).
func (p *parser) parseFunctionCall(arg func() ast.Expr) ast.Expr {
	start := p.cur().pos
	ks, name := p.parseFunctionName()
	p.expect(tkLParen)
	p.enter()
	f := &ast.FunctionCall{Pos: start, Keyspace: ks, Name: name}
	if !p.is(tkRParen) {
		f.Args = p.parseExprList(arg)
	}
	p.expect(tkRParen)
	p.leave()
	return f
}

// parseExprList parses item (',' item)*.
func (p *parser) parseExprList(item func() ast.Expr) []ast.Expr {
	list := []ast.Expr{item()}
	for p.accept(tkComma) {
		list = append(list, item())
	}
	return list
}

// parseListLiteral implements
//
//	listLiteral: '[' (term (',' term)*)? ']'
func (p *parser) parseListLiteral(elem func() ast.Expr) ast.Expr {
	open := p.expect(tkLBracket)
	p.enter()
	l := &ast.ListLiteral{Pos: open.pos}
	if !p.is(tkRBracket) {
		l.Elems = p.parseExprList(elem)
	}
	p.expect(tkRBracket)
	p.leave()
	return l
}

// parseTupleLiteral implements
//
//	tupleLiteral: '(' term (',' term)* ')'
func (p *parser) parseTupleLiteral() *ast.TupleLiteral {
	open := p.expect(tkLParen)
	p.enter()
	t := &ast.TupleLiteral{Pos: open.pos, Elems: p.parseExprList(p.parseTerm)}
	p.expect(tkRParen)
	p.leave()
	return t
}

// parseBraceLiteral implements
//
//	collectionLiteral: '{' term setOrMapLiteral '}' | '{' '}' | listLiteral
//	usertypeLiteral: '{' fident ':' term (',' fident ':' term)* '}'
//	mapLiteral: ':' term (',' term ':' term)*
//	setLiteral: (',' term)*
//
// A key that is an identifier makes a UDT literal, since an identifier is
// never a term; `{}` is kept as an empty set.
func (p *parser) parseBraceLiteral() ast.Expr {
	open := p.expect(tkLBrace)
	p.enter()
	defer p.leave()
	if p.accept(tkRBrace) {
		return &ast.SetLiteral{Pos: open.pos}
	}
	if isIdent(p.cur()) && p.peek(1).kind == tkColon {
		u := &ast.UDTLiteral{Pos: open.pos}
		for {
			name := p.parseIdent()
			p.expect(tkColon)
			u.Fields = append(u.Fields, ast.UDTField{Name: name, Value: p.parseTerm()})
			if !p.accept(tkComma) {
				break
			}
		}
		p.expect(tkRBrace)
		return u
	}
	first := p.parseTerm()
	if p.accept(tkColon) {
		m := &ast.MapLiteral{Pos: open.pos, Entries: []ast.MapEntry{{Key: first, Value: p.parseTerm()}}}
		for p.accept(tkComma) {
			k := p.parseTerm()
			p.expect(tkColon)
			m.Entries = append(m.Entries, ast.MapEntry{Key: k, Value: p.parseTerm()})
		}
		p.expect(tkRBrace)
		return m
	}
	s := &ast.SetLiteral{Pos: open.pos, Elems: []ast.Expr{first}}
	for p.accept(tkComma) {
		s.Elems = append(s.Elems, p.parseTerm())
	}
	p.expect(tkRBrace)
	return s
}

// parseInValues implements
//
//	singleColumnInValues: '(' (term (',' term)*)? ')' | inMarker
//	inMarker: QMARK | ':' noncol_ident
func (p *parser) parseInValues() ast.Expr {
	if isMarkerStart(p.cur()) {
		return p.parseMarker()
	}
	open := p.expect(tkLParen)
	l := &ast.InList{Pos: open.pos}
	if !p.is(tkRParen) {
		l.Elems = p.parseExprList(p.parseTerm)
	}
	p.expect(tkRParen)
	return l
}

// parseType implements
//
//	comparatorType: native_type | collection_type | tuple_type | vector_type
//	    | userTypeName | K_FROZEN '<' comparatorType '>' | STRING_LITERAL
//	collection_type: K_MAP '<' comparatorType ',' comparatorType '>'
//	    | K_LIST '<' comparatorType '>' | K_SET '<' comparatorType '>'
//	tuple_type: K_TUPLE '<' comparatorType (',' comparatorType)* '>'
//	vector_type: K_VECTOR '<' comparatorType ',' INTEGER '>'
func (p *parser) parseType() ast.TypeRef {
	p.enter()
	defer p.leave()
	t := p.cur()
	ref := ast.TypeRef{Pos: t.pos}
	angle := p.peek(1).kind == tkLt
	switch {
	case t.kind == tkString:
		p.next()
		ref.Kind, ref.Name = ast.TypeCustom, t.text
	case t.kind == tkIdent && t.kw.isNativeType() && p.peek(1).kind != tkDot:
		return p.parseNativeType()
	case isKw(t, kwMap) && angle:
		ref.Kind, ref.Args = ast.TypeMap, p.parseTypeArgs(2)
	case isKw(t, kwList) && angle:
		ref.Kind, ref.Args = ast.TypeList, p.parseTypeArgs(1)
	case isKw(t, kwSet) && angle:
		ref.Kind, ref.Args = ast.TypeSet, p.parseTypeArgs(1)
	case isKw(t, kwTuple) && angle:
		ref.Kind, ref.Args = ast.TypeTuple, p.parseTypeArgs(-1)
	case isKw(t, kwFrozen) && angle:
		ref.Kind, ref.Args = ast.TypeFrozen, p.parseTypeArgs(1)
		p.checkFreezable(ref.Args[0])
	case isKw(t, kwVector) && angle:
		p.parseVectorType(&ref)
	default:
		q := p.parseUserTypeName()
		ref.Kind, ref.Keyspace, ref.Name = ast.TypeUser, q.Keyspace, q.Name
	}
	return ref
}

// parseTypeArgs parses '<' comparatorType (',' comparatorType)* '>' after
// the constructor keyword: n types, or one or more when n < 0.
func (p *parser) parseTypeArgs(n int) []ast.TypeRef {
	p.next()
	p.expect(tkLt)
	args := []ast.TypeRef{p.parseType()}
	for n < 0 || len(args) < n {
		if n < 0 && !p.is(tkComma) {
			break
		}
		p.expect(tkComma)
		args = append(args, p.parseType())
	}
	p.expect(tkGt)
	return args
}

func (p *parser) parseVectorType(ref *ast.TypeRef) {
	p.next()
	p.expect(tkLt)
	ref.Kind = ast.TypeVector
	ref.Args = []ast.TypeRef{p.parseType()}
	p.expect(tkComma)
	dim := p.expect(tkInteger)
	n, err := strconv.Atoi(dim.text)
	if err != nil || int(int32(n)) != n {
		p.recognitionError("Invalid vector dimension " + dim.text)
	}
	ref.Dimension = n
	p.expect(tkGt)
}

// checkFreezable reports frozen<> around a type that cannot be frozen, as
// CQL3Type.Raw.freeze does while parsing.
func (p *parser) checkFreezable(inner ast.TypeRef) {
	switch inner.Kind {
	case ast.TypeNative, ast.TypeCustom:
		p.recognitionError("frozen<> is only allowed on collections, tuples, and user-defined types (got " + inner.String() + ")")
	}
}

// parseNativeType implements native_type.
func (p *parser) parseNativeType() ast.TypeRef {
	t := p.cur()
	if t.kind != tkIdent || !t.kw.isNativeType() {
		p.noViable()
	}
	p.next()
	return ast.TypeRef{Pos: t.pos, Kind: ast.TypeNative, Name: keywords[t.kw].name}
}
