package parser

import "github.com/partita-db/partita/internal/cql/ast"

// parseSelect implements
//
//	selectStatement: K_SELECT ((K_JSON selectClause)=> K_JSON)? selectClause
//	    K_FROM columnFamilyName
//	    (K_WHERE whereClause)?
//	    (K_GROUP K_BY groupByClause (',' groupByClause)*)?
//	    (K_ORDER K_BY orderByClause (',' orderByClause)*)?
//	    (K_PER K_PARTITION K_LIMIT intValue)?
//	    (K_LIMIT intValue)?
//	    (K_ALLOW K_FILTERING)?
//	groupByClause: unaliasedSelector
func (p *parser) parseSelect() *ast.Select {
	start := p.expectKw(kwSelect)
	s := &ast.Select{Pos: start.pos}
	// json is also a column name: it is the keyword only when a select
	// clause follows it.
	if p.isKw(kwJSON) && p.speculate(func() { p.next(); p.parseSelectClause(&ast.Select{}) }) {
		p.next()
		s.Json = true
	}
	p.parseSelectClause(s)
	p.expectKw(kwFrom)
	s.Table = p.parseTableName()
	if p.acceptKw(kwWhere) {
		s.Where = p.parseWhere()
	}
	if p.acceptKw(kwGroup) {
		p.expectKw(kwBy)
		s.GroupBy = p.parseExprList(p.parseUnaliasedSelector)
	}
	if p.acceptKw(kwOrder) {
		p.expectKw(kwBy)
		s.OrderBy = []ast.OrderItem{p.parseOrderItem()}
		for p.accept(tkComma) {
			s.OrderBy = append(s.OrderBy, p.parseOrderItem())
		}
	}
	if p.acceptKw(kwPer) {
		p.expectKw(kwPartition)
		p.expectKw(kwLimit)
		s.PerPartitionLimit = p.parseIntValue()
	}
	if p.acceptKw(kwLimit) {
		s.Limit = p.parseIntValue()
	}
	if p.acceptKw(kwAllow) {
		p.expectKw(kwFiltering)
		s.AllowFiltering = true
	}
	return s
}

// parseOrderItem implements
//
//	orderByClause: cident (K_ANN K_OF term)? (K_ASC | K_DESC)?
func (p *parser) parseOrderItem() ast.OrderItem {
	col := p.parseCident()
	o := ast.OrderItem{Pos: col.Pos, Column: col}
	if p.acceptKw(kwAnn) {
		p.expectKw(kwOf)
		o.Ann = p.parseTerm()
	}
	if !p.acceptKw(kwAsc) && p.acceptKw(kwDesc) {
		o.Desc = true
	}
	return o
}

// parseInsert implements
//
//	insertStatement: K_INSERT K_INTO columnFamilyName
//	    (normalInsertStatement | K_JSON jsonInsertStatement)
//	normalInsertStatement: '(' cident (',' cident)* ')' K_VALUES '(' term (',' term)* ')'
//	    (K_IF K_NOT K_EXISTS)? usingClause?
//	jsonInsertStatement: jsonValue (K_DEFAULT (K_NULL | K_UNSET))?
//	    (K_IF K_NOT K_EXISTS)? usingClause?
//	jsonValue: STRING_LITERAL | ':' noncol_ident | QMARK
func (p *parser) parseInsert() *ast.Insert {
	start := p.expectKw(kwInsert)
	p.expectKw(kwInto)
	s := &ast.Insert{Pos: start.pos, Table: p.parseTableName()}
	switch {
	case p.is(tkLParen):
		p.next()
		s.Columns = []ast.Ident{p.parseCident()}
		for p.accept(tkComma) {
			s.Columns = append(s.Columns, p.parseCident())
		}
		p.expect(tkRParen)
		p.expectKw(kwValues)
		p.expect(tkLParen)
		s.Values = p.parseExprList(p.parseTerm)
		p.expect(tkRParen)
	case p.acceptKw(kwJSON):
		switch {
		case p.is(tkString):
			s.Json = p.parseConstant()
		case isMarkerStart(p.cur()):
			s.Json = p.parseMarker()
		default:
			p.noViable()
		}
		if p.acceptKw(kwDefault) {
			if !p.acceptKw(kwNull) {
				p.expectKw(kwUnset)
				s.DefaultUnset = true
			}
		}
	default:
		p.noViable()
	}
	s.IfNotExists = p.acceptIfNotExists()
	if p.isKw(kwUsing) {
		s.Using = p.parseUsing()
	}
	return s
}

// parseUsing implements
//
//	usingClause: K_USING usingClauseObjective (K_AND usingClauseObjective)*
//	usingClauseObjective: K_TIMESTAMP intValue | K_TTL intValue
//
// Cassandra keeps the last of repeated options; a repeated option that
// would drop a bind marker is an error here, since the marker would be
// numbered but never bound.
func (p *parser) parseUsing() ast.UsingClause {
	start := p.expectKw(kwUsing)
	u := ast.UsingClause{Pos: start.pos}
	for {
		t := p.cur()
		var slot *ast.Expr
		switch {
		case isKw(t, kwTimestamp):
			slot = &u.Timestamp
		case isKw(t, kwTTL):
			slot = &u.TTL
		default:
			p.noViable()
		}
		p.next()
		if _, ok := (*slot).(*ast.BindMarker); ok {
			p.recognitionError("USING " + t.kw.antlrName()[2:] + " is given more than once")
		}
		*slot = p.parseIntValue()
		if !p.acceptKw(kwAnd) {
			return u
		}
	}
}

// parseUpdate implements
//
//	updateStatement: K_UPDATE columnFamilyName usingClause?
//	    K_SET columnOperation (',' columnOperation)*
//	    K_WHERE whereClause (K_IF (K_EXISTS | updateConditions))?
func (p *parser) parseUpdate() *ast.Update {
	start := p.expectKw(kwUpdate)
	s := &ast.Update{Pos: start.pos, Table: p.parseTableName()}
	if p.isKw(kwUsing) {
		s.Using = p.parseUsing()
	}
	p.expectKw(kwSet)
	s.Assignments = []ast.Assignment{p.parseAssignment(nil)}
	for p.accept(tkComma) {
		s.Assignments = append(s.Assignments, p.parseAssignment(s.Assignments))
	}
	p.expectKw(kwWhere)
	s.Where = p.parseWhere()
	s.IfExists, s.Conditions = p.parseIfClause()
	return s
}

// parseAssignment implements
//
//	columnOperation: cident columnOperationDifferentiator
//	columnOperationDifferentiator: '=' normalColumnOperation
//	    | ('+=' | '-=') term
//	    | '[' term ']' '=' term
//	    | '.' fident '=' term
//	normalColumnOperation: term ('+' cident)?
//	    | cident ('+' | '-') term
//	    | cident INTEGER
//
// earlier are the assignments already parsed, for Cassandra's check of
// incompatible settings of one column.
func (p *parser) parseAssignment(earlier []ast.Assignment) ast.Assignment {
	col := p.parseCident()
	a := ast.Assignment{Pos: col.Pos, Column: col}
	switch {
	case p.is(tkPlusEq), p.is(tkMinusEq):
		a.Op = ast.AssignAdd
		if p.next().kind == tkMinusEq {
			a.Op = ast.AssignSub
		}
		a.Value = p.parseTerm()
	case p.accept(tkLBracket):
		a.Key = p.parseTerm()
		p.expect(tkRBracket)
		p.expect(tkEq)
		a.Value = p.parseTerm()
	case p.accept(tkDot):
		field := p.parseIdent()
		a.Field = &field
		p.expect(tkEq)
		a.Value = p.parseTerm()
	case p.accept(tkEq):
		p.parseNormalColumnOperation(&a)
	default:
		p.noViable()
	}
	for _, e := range earlier {
		if e.Column.Name == a.Column.Name && !compatible(e, a) {
			p.recognitionError("Multiple incompatible setting of column " + a.Column.Name)
		}
	}
	return a
}

// parseNormalColumnOperation parses what follows '=' (see parseAssignment)
// and reports Cassandra's messages when the column on the right is not the
// one assigned.
func (p *parser) parseNormalColumnOperation(a *ast.Assignment) {
	t := p.cur()
	if isCident(t) && !p.functionCallStartsAt(0) {
		other := p.parseCident()
		sign := p.cur()
		switch sign.kind {
		case tkPlus, tkMinus:
			p.next()
			a.Op = ast.AssignAdd
			if sign.kind == tkMinus {
				a.Op = ast.AssignSub
			}
			if other.Name != a.Column.Name {
				p.recognitionError("Only expressions of the form X = X " + p.displayText(sign) + "<value> are supported.")
			}
			a.Value = p.parseTerm()
		case tkInteger:
			// X = X -3 lexes as [X, '=', X, INTEGER(-3)].
			if other.Name != a.Column.Name {
				s := "+"
				if sign.text[0] == '-' {
					s = "-"
				}
				p.recognitionError("Only expressions of the form X = X " + s + " <value> are supported.")
			}
			a.Op, a.Value = ast.AssignAdd, p.parseConstant()
		default:
			p.noViable()
		}
		return
	}
	a.Value = p.parseTerm()
	if p.accept(tkPlus) {
		other := p.parseCident()
		if other.Name != a.Column.Name {
			p.recognitionError("Only expressions of the form X = <value> + X are supported.")
		}
		a.Op = ast.AssignPrepend
	}
}

// compatible reports whether assignment b may follow a on the same column
// (Operation.RawUpdate.isCompatibleWith): setting a column twice is not,
// nor setting one field twice.
func compatible(a, b ast.Assignment) bool {
	bSetsValue := b.Op == ast.AssignSet && b.Key == nil && b.Field == nil
	switch {
	case a.Op == ast.AssignSet && a.Key == nil && a.Field == nil:
		return false
	case a.Field != nil && b.Field != nil:
		return a.Field.Name != b.Field.Name
	}
	return !bSetsValue
}

// parseDelete implements
//
//	deleteStatement: K_DELETE deleteSelection? K_FROM columnFamilyName
//	    usingClauseDelete? K_WHERE whereClause (K_IF (K_EXISTS | updateConditions))?
//	deleteSelection: deleteOp (',' deleteOp)*
//	deleteOp: cident | cident '[' term ']' | cident '.' fident
//	usingClauseDelete: K_USING K_TIMESTAMP intValue
func (p *parser) parseDelete() *ast.Delete {
	start := p.expectKw(kwDelete)
	s := &ast.Delete{Pos: start.pos}
	if !p.isKw(kwFrom) {
		s.Columns = []ast.DeleteTarget{p.parseDeleteTarget()}
		for p.accept(tkComma) {
			s.Columns = append(s.Columns, p.parseDeleteTarget())
		}
	}
	p.expectKw(kwFrom)
	s.Table = p.parseTableName()
	if using := p.cur(); p.acceptKw(kwUsing) {
		p.expectKw(kwTimestamp)
		s.Using = ast.UsingClause{Pos: using.pos, Timestamp: p.parseIntValue()}
	}
	p.expectKw(kwWhere)
	s.Where = p.parseWhere()
	s.IfExists, s.Conditions = p.parseIfClause()
	return s
}

func (p *parser) parseDeleteTarget() ast.DeleteTarget {
	col := p.parseCident()
	d := ast.DeleteTarget{Pos: col.Pos, Column: col}
	switch {
	case p.accept(tkLBracket):
		d.Key = p.parseTerm()
		p.expect(tkRBracket)
	case p.accept(tkDot):
		field := p.parseIdent()
		d.Field = &field
	}
	return d
}

// parseBatch implements
//
//	batchStatement: K_BEGIN (K_UNLOGGED | K_COUNTER)? K_BATCH usingClause?
//	    (batchStatementObjective ';'?)* K_APPLY K_BATCH
//	batchStatementObjective: insertStatement | updateStatement | deleteStatement
func (p *parser) parseBatch() *ast.Batch {
	start := p.expectKw(kwBegin)
	b := &ast.Batch{Pos: start.pos}
	switch {
	case p.acceptKw(kwUnlogged):
		b.Type = ast.BatchUnlogged
	case p.acceptKw(kwCounter):
		b.Type = ast.BatchCounter
	}
	p.expectKw(kwBatch)
	if p.isKw(kwUsing) {
		b.Using = p.parseUsing()
	}
	for {
		var st ast.Statement
		switch {
		case p.isKw(kwInsert):
			st = p.parseInsert()
		case p.isKw(kwUpdate):
			st = p.parseUpdate()
		case p.isKw(kwDelete):
			st = p.parseDelete()
		default:
			p.expectKw(kwApply)
			p.expectKw(kwBatch)
			return b
		}
		b.Statements = append(b.Statements, st)
		p.accept(tkSemi)
	}
}
