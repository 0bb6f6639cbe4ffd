package parser

import "github.com/partita-db/partita/internal/cql/ast"

// parseCreateView implements
//
//	createMaterializedViewStatement: K_CREATE K_MATERIALIZED K_VIEW
//	    (K_IF K_NOT K_EXISTS)? columnFamilyName K_AS
//	    K_SELECT selectors K_FROM columnFamilyName (K_WHERE whereClause)?
//	    viewPrimaryKey (K_WITH viewProperty (K_AND viewProperty)*)?
//	viewPrimaryKey: K_PRIMARY K_KEY '(' viewPartitionKey (',' ident)* ')'
//	viewPartitionKey: '(' ident (',' ident)* ')' | ident
//	viewProperty: property | K_COMPACT K_STORAGE
//	    | K_CLUSTERING K_ORDER K_BY '(' viewClusteringOrder (',' viewClusteringOrder)* ')'
func (p *parser) parseCreateView() *ast.CreateView {
	start := p.next()
	p.next()
	p.expectKw(kwView)
	s := &ast.CreateView{Pos: start.pos, IfNotExists: p.acceptIfNotExists()}
	s.Name = p.parseQualifiedName("table")
	p.expectKw(kwAs)
	p.expectKw(kwSelect)
	s.Selectors = p.parseSelectors()
	p.expectKw(kwFrom)
	s.Base = p.parseTableName()
	if p.acceptKw(kwWhere) {
		s.Where = p.parseWhere()
	}
	p.expectKw(kwPrimary)
	p.expectKw(kwKey)
	p.expect(tkLParen)
	if p.accept(tkLParen) {
		s.PartitionKey = []ast.Ident{p.parseIdent()}
		for p.accept(tkComma) {
			s.PartitionKey = append(s.PartitionKey, p.parseIdent())
		}
		p.expect(tkRParen)
	} else {
		s.PartitionKey = []ast.Ident{p.parseIdent()}
	}
	for p.accept(tkComma) {
		s.Clustering = append(s.Clustering, p.parseIdent())
	}
	p.expect(tkRParen)
	if p.acceptKw(kwWith) {
		p.parseViewProperty(s)
		for p.acceptKw(kwAnd) {
			p.parseViewProperty(s)
		}
	}
	return s
}

func (p *parser) parseViewProperty(s *ast.CreateView) {
	switch {
	case p.isKw(kwCompact) && p.peekKw(1, kwStorage):
		p.next()
		p.next()
		s.CompactStorage = true
	case p.isKw(kwClustering) && p.peekKw(1, kwOrder):
		t := &ast.CreateTable{}
		p.parseClusteringOrder(t)
		s.ClusteringOrder = append(s.ClusteringOrder, t.ClusteringOrder...)
	default:
		p.parseProperty(&s.Options)
	}
}

// parseAlterView implements
//
//	alterMaterializedViewStatement: K_ALTER K_MATERIALIZED K_VIEW
//	    (K_IF K_EXISTS)? columnFamilyName K_WITH properties
func (p *parser) parseAlterView() *ast.AlterView {
	start := p.next()
	p.next()
	p.expectKw(kwView)
	s := &ast.AlterView{Pos: start.pos, IfExists: p.acceptIfExists()}
	s.Name = p.parseTableName()
	p.expectKw(kwWith)
	p.parseProperties(&s.Options)
	return s
}

// parseDropView implements
//
//	dropMaterializedViewStatement: K_DROP K_MATERIALIZED K_VIEW
//	    (K_IF K_EXISTS)? columnFamilyName
func (p *parser) parseDropView() *ast.DropView {
	start := p.next()
	p.next()
	p.expectKw(kwView)
	s := &ast.DropView{Pos: start.pos, IfExists: p.acceptIfExists()}
	s.Name = p.parseTableName()
	return s
}

// parseCreateAggregate implements
//
//	createAggregateStatement: K_CREATE (K_OR K_REPLACE)? K_AGGREGATE
//	    (K_IF K_NOT K_EXISTS)? functionName
//	    '(' (comparatorType (',' comparatorType)*)? ')'
//	    K_SFUNC allowedFunctionName K_STYPE comparatorType
//	    (K_FINALFUNC allowedFunctionName)? (K_INITCOND term)?
func (p *parser) parseCreateAggregate() *ast.CreateAggregate {
	start := p.next()
	s := &ast.CreateAggregate{Pos: start.pos}
	if p.acceptKw(kwOr) {
		p.expectKw(kwReplace)
		s.OrReplace = true
	}
	p.expectKw(kwAggregate)
	s.IfNotExists = p.acceptIfNotExists()
	s.Name.Pos = p.cur().pos
	s.Name.Keyspace, s.Name.Name = p.parseFunctionName()
	s.Args = p.parseFunctionTypes()
	p.expectKw(kwSfunc)
	s.StateFunc.Pos = p.cur().pos
	s.StateFunc.Name = p.parseIdent().Name
	p.expectKw(kwStype)
	s.StateType = p.parseType()
	if p.acceptKw(kwFinalfunc) {
		s.FinalFunc = p.parseIdent().Name
	}
	if p.acceptKw(kwInitcond) {
		s.InitCond = p.parseTerm()
	}
	return s
}

// parseFunctionTypes parses '(' (comparatorType (',' comparatorType)*)? ')'.
func (p *parser) parseFunctionTypes() []ast.TypeRef {
	p.expect(tkLParen)
	var out []ast.TypeRef
	if !p.is(tkRParen) {
		out = append(out, p.parseType())
		for p.accept(tkComma) {
			out = append(out, p.parseType())
		}
	}
	p.expect(tkRParen)
	return out
}

// parseDropFunction implements
//
//	dropFunctionStatement: K_DROP K_FUNCTION (K_IF K_EXISTS)? functionName
//	    ('(' (comparatorType (',' comparatorType)*)? ')')?
//	dropAggregateStatement: K_DROP K_AGGREGATE (K_IF K_EXISTS)? functionName
//	    ('(' (comparatorType (',' comparatorType)*)? ')')?
func (p *parser) parseDropFunction() *ast.DropFunction {
	start := p.next()
	s := &ast.DropFunction{Pos: start.pos, Aggregate: p.next().kw == kwAggregate}
	s.IfExists = p.acceptIfExists()
	s.Name.Pos = p.cur().pos
	s.Name.Keyspace, s.Name.Name = p.parseFunctionName()
	if p.is(tkLParen) {
		s.HasArgs = true
		s.Args = p.parseFunctionTypes()
	}
	return s
}
