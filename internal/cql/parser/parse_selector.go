package parser

import "github.com/partita-db/partita/internal/cql/ast"

// parseSelectClause implements
//
//	selectClause: (K_DISTINCT selectors)=> K_DISTINCT selectors | selectors
//	selectors: selector (',' selector)* | '*'
//
// distinct is also a column name, so DISTINCT is the keyword only when a
// selector list follows it.
func (p *parser) parseSelectClause(s *ast.Select) {
	if p.isKw(kwDistinct) && p.speculate(func() { p.next(); p.parseSelectors() }) {
		p.next()
		s.Distinct = true
	}
	s.Selectors = p.parseSelectors()
}

func (p *parser) parseSelectors() []ast.Selector {
	if p.accept(tkStar) {
		return nil
	}
	list := []ast.Selector{p.parseSelector()}
	for p.accept(tkComma) {
		list = append(list, p.parseSelector())
	}
	return list
}

// parseSelector implements
//
//	selector: unaliasedSelector (K_AS noncol_ident)?
func (p *parser) parseSelector() ast.Selector {
	start := p.cur().pos
	sel := ast.Selector{Pos: start, Expr: p.parseUnaliasedSelector()}
	if p.acceptKw(kwAs) {
		alias := p.parseIdent()
		sel.Alias = &alias
	}
	return sel
}

// parseUnaliasedSelector implements
//
//	unaliasedSelector: selectionAddition
//	selectionAddition: selectionMultiplication (('+' | '-') selectionMultiplication)*
//	selectionMultiplication: selectionGroup (('*' | '/' | '%') selectionGroup)*
func (p *parser) parseUnaliasedSelector() ast.Expr {
	depth := p.depth
	left := p.parseSelectionMultiplication()
	for p.is(tkPlus) || p.is(tkMinus) {
		op := p.next()
		p.enter()
		right := p.parseSelectionMultiplication()
		left = &ast.BinaryOp{Pos: left.Position(), Op: ast.ArithOp(p.src[op.pos.Offset]), Left: left, Right: right}
	}
	p.depth = depth
	return left
}

func (p *parser) parseSelectionMultiplication() ast.Expr {
	depth := p.depth
	left := p.parseSelectionGroup()
	for p.is(tkStar) || p.is(tkSlash) || p.is(tkPercent) {
		op := p.next()
		p.enter()
		right := p.parseSelectionGroup()
		left = &ast.BinaryOp{Pos: left.Position(), Op: ast.ArithOp(p.src[op.pos.Offset]), Left: left, Right: right}
	}
	p.depth = depth
	return left
}

// parseSelectionGroup implements
//
//	selectionGroup: selectionGroupWithoutField selectorModifier | '-' selectionGroup
func (p *parser) parseSelectionGroup() ast.Expr {
	if p.is(tkMinus) {
		minus := p.next()
		p.enter()
		operand := p.parseSelectionGroup()
		p.leave()
		return negate(minus.pos, operand)
	}
	return p.parseSelectorModifiers(p.parseSelectionGroupWithoutField())
}

// parseSelectorModifiers implements
//
//	selectorModifier: fieldSelectorModifier selectorModifier
//	    | '[' collectionSubSelection ']' selectorModifier | (nothing)
//	fieldSelectorModifier: '.' fident
//	collectionSubSelection: term (RANGE term?)? | RANGE term
func (p *parser) parseSelectorModifiers(e ast.Expr) ast.Expr {
	depth := p.depth
	for {
		switch {
		case p.is(tkDot):
			p.next()
			p.enter()
			e = &ast.FieldAccess{Pos: e.Position(), Expr: e, Field: p.parseIdent()}
		case p.is(tkLBracket) && p.subSelectionStartsAt(1):
			// A '[' that no term follows is not a modifier: ANTLR's
			// prediction leaves it to the enclosing rule, whose error
			// names it (SELECT m[k] FROM t: "mismatched input '['").
			p.next()
			p.enter()
			e = p.parseSubSelection(e)
			p.expect(tkRBracket)
		default:
			if p.is(tkLBracket) {
				p.declineLookahead()
			}
			p.depth = depth
			return e
		}
	}
}

// declineLookahead records how far ANTLR looks past a '[' before it
// declines it as a modifier, for the error's snippet: the token after it,
// one more after '..', and one more after a name (a function call needs
// '(').
func (p *parser) declineLookahead() {
	n := 1
	if p.peek(n).kind == tkRange {
		n++
	}
	if isIdent(p.peek(n)) {
		n++
	}
	p.lookedPast, p.lookedPastEnd = p.cur().pos.Offset, p.peek(n).pos.Offset
}

// subSelectionStartsAt reports whether a collectionSubSelection can start
// n tokens ahead.
func (p *parser) subSelectionStartsAt(n int) bool {
	if p.peek(n).kind == tkRange {
		return p.termGroupStartsAt(n + 1)
	}
	return p.termGroupStartsAt(n)
}

func (p *parser) parseSubSelection(e ast.Expr) ast.Expr {
	if p.accept(tkRange) {
		return &ast.SliceAccess{Pos: e.Position(), Expr: e, To: p.parseTerm()}
	}
	from := p.parseTerm()
	if !p.accept(tkRange) {
		return &ast.ElementAccess{Pos: e.Position(), Expr: e, Key: from}
	}
	s := &ast.SliceAccess{Pos: e.Position(), Expr: e, From: from}
	if !p.is(tkRBracket) {
		s.To = p.parseTerm()
	}
	return s
}

// parseSelectionGroupWithoutField implements
//
//	selectionGroupWithoutField: simpleUnaliasedSelector
//	    | (selectionTypeHint)=> selectionTypeHint | selectionTupleOrNestedSelector
//	    | selectionList | selectionMapOrSet
//	selectionTypeHint: '(' comparatorType ')' selectionGroupWithoutField
//	selectionTupleOrNestedSelector: '(' unaliasedSelector (',' unaliasedSelector)* ')'
//	selectionList: '[' (unaliasedSelector (',' unaliasedSelector)*)? ']'
func (p *parser) parseSelectionGroupWithoutField() ast.Expr {
	switch t := p.cur(); t.kind {
	case tkLParen:
		if p.typeCastAhead(p.selectionGroupStartsAt) {
			return p.parseTypeCast(p.parseSelectionGroupWithoutField)
		}
		p.next()
		p.enter()
		tuple := &ast.TupleLiteral{Pos: t.pos, Elems: p.parseExprList(p.parseUnaliasedSelector)}
		p.expect(tkRParen)
		p.leave()
		return tuple
	case tkLBracket:
		return p.parseListLiteral(p.parseUnaliasedSelector)
	case tkLBrace:
		return p.parseSelectionMapOrSet()
	}
	return p.parseSimpleSelector()
}

// selectionGroupStartsAt reports whether a selectionGroupWithoutField can
// start n tokens ahead.
func (p *parser) selectionGroupStartsAt(n int) bool {
	t := p.peek(n)
	switch t.kind {
	case tkLParen, tkLBracket, tkLBrace, tkQMark, tkColon:
		return true
	}
	return isConstant(t) || isKw(t, kwNull) || isIdent(t) || p.functionCallStartsAt(n)
}

// parseSelectionMapOrSet implements
//
//	selectionMapOrSet: '{' unaliasedSelector (selectionMap | selectionSet) '}' | '{' '}'
//	selectionMap: ':' unaliasedSelector (',' unaliasedSelector ':' unaliasedSelector)*
//	selectionSet: (',' unaliasedSelector)*
//
// A map may turn out to be a UDT literal once types are known.
func (p *parser) parseSelectionMapOrSet() ast.Expr {
	open := p.expect(tkLBrace)
	p.enter()
	defer p.leave()
	if p.accept(tkRBrace) {
		return &ast.SetLiteral{Pos: open.pos}
	}
	first := p.parseUnaliasedSelector()
	if p.accept(tkColon) {
		m := &ast.MapLiteral{Pos: open.pos, Entries: []ast.MapEntry{{Key: first, Value: p.parseUnaliasedSelector()}}}
		for p.accept(tkComma) {
			k := p.parseUnaliasedSelector()
			p.expect(tkColon)
			m.Entries = append(m.Entries, ast.MapEntry{Key: k, Value: p.parseUnaliasedSelector()})
		}
		p.expect(tkRBrace)
		return m
	}
	s := &ast.SetLiteral{Pos: open.pos, Elems: []ast.Expr{first}}
	for p.accept(tkComma) {
		s.Elems = append(s.Elems, p.parseUnaliasedSelector())
	}
	p.expect(tkRBrace)
	return s
}

var metaKinds = map[keyword]ast.MetaKind{
	kwWritetime: ast.MetaWriteTime, kwMaxwritetime: ast.MetaMaxWriteTime, kwTTL: ast.MetaTTL,
}

// parseSimpleSelector implements
//
//	simpleUnaliasedSelector: sident | selectionLiteral | selectionFunction
//	selectionLiteral: constant | K_NULL | marker
//	selectionFunction: K_COUNT '(' '*' ')'
//	    | (K_WRITETIME | K_MAXWRITETIME | K_TTL) '(' sident selectorModifier ')'
//	    | K_CAST '(' unaliasedSelector K_AS native_type ')'
//	    | functionName selectionFunctionArgs
func (p *parser) parseSimpleSelector() ast.Expr {
	t := p.cur()
	paren := p.peek(1).kind == tkLParen
	switch {
	case isConstant(t):
		return p.parseConstant()
	case isKw(t, kwNull):
		p.next()
		return &ast.Null{Pos: t.pos}
	case isMarkerStart(t):
		return p.parseMarker()
	case isKw(t, kwCount) && paren && p.peek(2).kind == tkStar:
		p.next()
		p.next()
		p.next()
		p.expect(tkRParen)
		return &ast.CountRows{Pos: t.pos}
	case t.kind == tkIdent && paren && (t.kw == kwWritetime || t.kw == kwMaxwritetime || t.kw == kwTTL):
		p.next()
		p.next()
		col := p.parseIdent()
		arg := p.parseSelectorModifiers(&ast.ColumnRef{Pos: col.Pos, Name: col.Name})
		p.expect(tkRParen)
		return &ast.WriteTimeOrTTL{Pos: t.pos, Kind: metaKinds[t.kw], Column: arg}
	case isKw(t, kwCast) && paren:
		return p.parseCast(p.parseUnaliasedSelector)
	case p.functionCallStartsAt(0):
		return p.parseFunctionCall(p.parseUnaliasedSelector)
	case isIdent(t):
		p.next()
		return &ast.ColumnRef{Pos: t.pos, Name: t.text}
	}
	p.noViable()
	return nil
}
