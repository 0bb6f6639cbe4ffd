package parser

import "github.com/partita-db/partita/internal/cql/ast"

var relationOps = map[tokKind]ast.Operator{
	tkEq: ast.OpEq, tkLt: ast.OpLt, tkLte: ast.OpLte, tkGt: ast.OpGt, tkGte: ast.OpGte, tkNeq: ast.OpNeq,
}

func isRelationType(t *token) bool {
	_, ok := relationOps[t.kind]
	return ok
}

// parseRelationType implements
//
//	relationType: '=' | '<' | '<=' | '>' | '>=' | '!='
func (p *parser) parseRelationType() ast.Operator {
	op, ok := relationOps[p.cur().kind]
	if !ok {
		p.noViable()
	}
	p.next()
	return op
}

// parseWhere implements
//
//	whereClause: relationOrExpression (K_AND relationOrExpression)*
//	relationOrExpression: relation | customIndexExpression
func (p *parser) parseWhere() []ast.Relation {
	where := []ast.Relation{p.parseRelation()}
	for p.acceptKw(kwAnd) {
		where = append(where, p.parseRelation())
	}
	return where
}

// parseRelation implements
//
//	relation: cident relationType term
//	    | cident K_LIKE term
//	    | cident K_IS K_NOT K_NULL
//	    | cident K_IN (inMarker | singleColumnInValues)
//	    | cident K_CONTAINS K_KEY? term
//	    | cident '[' term ']' relationType term
//	    | K_TOKEN tupleOfIdentifiers relationType term
//	    | tupleOfIdentifiers (K_IN multiColumnInValues | relationType (tupleLiteral | marker))
//	    | '(' relation ')'
//	customIndexExpression: 'expr(' idxName ',' term ')'
func (p *parser) parseRelation() ast.Relation {
	t := p.cur()
	switch {
	case isKw(t, kwToken):
		p.next()
		cols := p.parseTupleOfIdentifiers()
		op := p.parseRelationType()
		return &ast.TokenRelation{Pos: t.pos, Columns: cols, Op: op, Value: p.parseTerm()}
	case t.kind == tkLParen:
		if isCident(p.peek(1)) && (p.peek(2).kind == tkComma || p.peek(2).kind == tkRParen) {
			return p.parseMultiColumnRelation()
		}
		p.next()
		p.enter()
		r := p.parseRelation()
		p.expect(tkRParen)
		p.leave()
		return r
	case t.kind == tkIdent && p.src[t.pos.Offset:t.end] == "expr" &&
		p.peek(1).kind == tkLParen && p.peek(1).pos.Offset == t.end:
		// Lexer.g has the literal token 'expr(' without a space.
		p.next()
		p.next()
		r := &ast.CustomIndexRelation{Pos: t.pos, Index: p.parseQualifiedName("index")}
		p.expect(tkComma)
		r.Value = p.parseTerm()
		p.expect(tkRParen)
		return r
	case isCident(t):
		return p.parseColumnRelation()
	}
	p.noViable()
	return nil
}

func (p *parser) parseColumnRelation() ast.Relation {
	col := p.parseCident()
	r := &ast.SingleColumnRelation{Pos: col.Pos, Column: col}
	t := p.cur()
	switch {
	case isRelationType(t):
		r.Op = p.parseRelationType()
		r.Value = p.parseTerm()
	case isKw(t, kwLike):
		p.next()
		r.Op, r.Value = ast.OpLike, p.parseTerm()
	case isKw(t, kwIs):
		p.next()
		p.expectKw(kwNot)
		null := p.expectKw(kwNull)
		r.Op, r.Value = ast.OpIsNot, &ast.Null{Pos: null.pos}
	case isKw(t, kwIn):
		p.next()
		r.Op, r.Value = ast.OpIn, p.parseInValues()
	case isKw(t, kwContains):
		r.Op = p.parseContainsOperator()
		r.Value = p.parseTerm()
	case t.kind == tkLBracket:
		p.next()
		key := p.parseTerm()
		p.expect(tkRBracket)
		op := p.parseRelationType()
		return &ast.MapElementRelation{Pos: col.Pos, Column: col, Key: key, Op: op, Value: p.parseTerm()}
	default:
		p.noViable()
	}
	return r
}

// parseContainsOperator implements
//
//	containsOperator: K_CONTAINS K_KEY?
func (p *parser) parseContainsOperator() ast.Operator {
	p.expectKw(kwContains)
	if p.acceptKw(kwKey) {
		return ast.OpContainsKey
	}
	return ast.OpContains
}

// parseTupleOfIdentifiers implements
//
//	tupleOfIdentifiers: '(' cident (',' cident)* ')'
func (p *parser) parseTupleOfIdentifiers() []ast.Ident {
	p.expect(tkLParen)
	ids := []ast.Ident{p.parseCident()}
	for p.accept(tkComma) {
		ids = append(ids, p.parseCident())
	}
	p.expect(tkRParen)
	return ids
}

// parseMultiColumnRelation implements the tupleOfIdentifiers forms:
//
//	multiColumnInValues: '(' ')' | inMarkerForTuple | tupleOfTupleLiterals
//	    | tupleOfMarkersForTuples
//	tupleOfTupleLiterals: '(' tupleLiteral (',' tupleLiteral)* ')'
//	tupleOfMarkersForTuples: '(' markerForTuple (',' markerForTuple)* ')'
func (p *parser) parseMultiColumnRelation() ast.Relation {
	start := p.cur().pos
	r := &ast.MultiColumnRelation{Pos: start, Columns: p.parseTupleOfIdentifiers()}
	if !p.acceptKw(kwIn) {
		r.Op = p.parseRelationType()
		switch {
		case p.is(tkLParen):
			r.Value = p.parseTupleLiteral()
		case isMarkerStart(p.cur()):
			r.Value = p.parseMarker()
		default:
			p.noViable()
		}
		return r
	}
	r.Op = ast.OpIn
	if isMarkerStart(p.cur()) {
		r.Value = p.parseMarker()
		return r
	}
	open := p.expect(tkLParen)
	list := &ast.InList{Pos: open.pos}
	r.Value = list
	switch next := p.cur(); {
	case next.kind == tkRParen:
	case next.kind == tkLParen:
		list.Elems = append(list.Elems, p.parseTupleLiteral())
		for p.accept(tkComma) {
			list.Elems = append(list.Elems, p.parseTupleLiteral())
		}
	case isMarkerStart(next):
		list.Elems = append(list.Elems, p.parseMarker())
		for p.accept(tkComma) {
			list.Elems = append(list.Elems, p.parseMarker())
		}
	default:
		p.noViable()
	}
	p.expect(tkRParen)
	return r
}

// parseIfClause implements the optional
//
//	K_IF (K_EXISTS | updateConditions)
//
// of UPDATE and DELETE. exists is also a column name, so EXISTS is the
// keyword unless a condition operator follows it.
func (p *parser) parseIfClause() (ifExists bool, conds []ast.Condition) {
	if !p.acceptKw(kwIf) {
		return false, nil
	}
	if p.isKw(kwExists) && !continuesCondition(p.peek(1)) {
		p.next()
		return true, nil
	}
	conds = []ast.Condition{p.parseCondition()}
	for p.acceptKw(kwAnd) {
		conds = append(conds, p.parseCondition())
	}
	return false, conds
}

func continuesCondition(t *token) bool {
	return isRelationType(t) || isKw(t, kwIn) || isKw(t, kwContains) ||
		t.kind == tkLBracket || t.kind == tkDot
}

// parseCondition implements
//
//	columnCondition: cident
//	    ( relationType term | containsOperator term | K_IN (singleColumnInValues | inMarker)
//	    | '[' term ']' (relationType term | K_IN (singleColumnInValues | inMarker))
//	    | '.' fident (relationType term | K_IN (singleColumnInValues | inMarker)) )
func (p *parser) parseCondition() ast.Condition {
	col := p.parseCident()
	c := ast.Condition{Pos: col.Pos, Column: col}
	switch {
	case p.is(tkLBracket):
		p.next()
		c.Key = p.parseTerm()
		p.expect(tkRBracket)
	case p.is(tkDot):
		p.next()
		field := p.parseIdent()
		c.Field = &field
	case p.isKw(kwContains):
		c.Op = p.parseContainsOperator()
		c.Value = p.parseTerm()
		return c
	}
	switch {
	case isRelationType(p.cur()):
		c.Op = p.parseRelationType()
		c.Value = p.parseTerm()
	case p.acceptKw(kwIn):
		c.Op, c.Value = ast.OpIn, p.parseInValues()
	default:
		p.noViable()
	}
	return c
}
