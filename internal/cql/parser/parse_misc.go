package parser

import "github.com/partita-db/partita/internal/cql/ast"

// parseUse implements
//
//	useStatement: K_USE keyspaceName
func (p *parser) parseUse() *ast.Use {
	start := p.expectKw(kwUse)
	return &ast.Use{Pos: start.pos, Keyspace: p.parseKeyspaceName()}
}

// parseTruncate implements
//
//	truncateStatement: K_TRUNCATE K_COLUMNFAMILY? columnFamilyName
func (p *parser) parseTruncate() *ast.Truncate {
	start := p.expectKw(kwTruncate)
	p.acceptKw(kwTable)
	return &ast.Truncate{Pos: start.pos, Name: p.parseTableName()}
}

// describeKeywordKinds are the DESCRIBE forms chosen by one keyword alone;
// Parser.g gives them syntactic predicates, so they win over a generic
// DESCRIBE of an object with that name.
var describeKeywordKinds = map[keyword]ast.DescribeKind{
	kwCluster: ast.DescribeCluster, kwSchema: ast.DescribeSchema, kwKeyspaces: ast.DescribeKeyspaces,
	kwTables: ast.DescribeTables, kwTypes: ast.DescribeTypes, kwFunctions: ast.DescribeFunctions,
	kwAggregates: ast.DescribeAggregates,
}

// parseDescribe implements
//
//	describeStatement: (K_DESCRIBE | K_DESC)
//	    ( K_CLUSTER | K_FULL? K_SCHEMA | K_KEYSPACES | K_ONLY? K_KEYSPACE keyspaceName?
//	    | K_TABLES | K_COLUMNFAMILY columnFamilyName | K_INDEX columnFamilyName
//	    | K_MATERIALIZED K_VIEW columnFamilyName | K_TYPES | K_TYPE userTypeName
//	    | K_FUNCTIONS | K_FUNCTION functionName | K_AGGREGATES | K_AGGREGATE functionName
//	    | ((IDENT | QUOTED_NAME | unreserved_keyword) '.')? (IDENT | QUOTED_NAME | unreserved_keyword) )
//	    (K_WITH K_INTERNALS)?
//
// (src/java/org/apache/cassandra/cql3/statements/DescribeStatement.java).
func (p *parser) parseDescribe() *ast.Describe {
	start := p.next()
	d := &ast.Describe{Pos: start.pos}
	t := p.cur()
	kind, simple := describeKeywordKinds[t.kw]
	switch {
	case t.kind == tkIdent && simple:
		p.next()
		d.Kind = kind
	case isKw(t, kwFull):
		p.next()
		p.expectKw(kwSchema)
		d.Kind = ast.DescribeFullSchema
	case isKw(t, kwKeyspace), isKw(t, kwOnly) && p.peekKw(1, kwKeyspace):
		d.Only = p.acceptKw(kwOnly)
		p.next()
		d.Kind = ast.DescribeKeyspace
		if isObjectNameStart(p.cur()) {
			d.Keyspace = p.parseKeyspaceName()
		}
	case isKw(t, kwTable), isKw(t, kwIndex):
		p.next()
		what := "table"
		d.Kind = ast.DescribeTable
		if t.kw == kwIndex {
			d.Kind, what = ast.DescribeIndex, "index"
		}
		q := p.parseQualifiedName(what)
		d.Keyspace, d.Name = q.Keyspace, q.Name
	case isKw(t, kwMaterialized):
		p.next()
		p.expectKw(kwView)
		d.Kind = ast.DescribeMaterializedView
		q := p.parseTableName()
		d.Keyspace, d.Name = q.Keyspace, q.Name
	case isKw(t, kwType) && isIdent(p.peek(1)):
		p.next()
		d.Kind = ast.DescribeType
		q := p.parseUserTypeName()
		d.Keyspace, d.Name = q.Keyspace, q.Name
	case (isKw(t, kwFunction) || isKw(t, kwAggregate)) &&
		(isObjectNameStart(p.peek(1)) || isFunctionName(p.peek(1))):
		p.next()
		d.Kind = ast.DescribeFunction
		if t.kw == kwAggregate {
			d.Kind = ast.DescribeAggregate
		}
		d.Keyspace, d.Name = p.parseFunctionName()
	case isIdent(t):
		d.Kind = ast.DescribeGeneric
		name := p.parseIdent().Name
		if p.accept(tkDot) {
			d.Keyspace, name = name, p.parseIdent().Name
		}
		d.Name = name
	default:
		p.noViable()
	}
	if p.acceptKw(kwWith) {
		p.expectKw(kwInternals)
		d.WithInternals = true
	}
	return d
}

// parseUnsupported consumes a statement of the CQL grammar that Partita
// does not implement, up to the next ';' or the end, and returns it as
// ast.Unsupported so that the engine can reject it with a clear message.
func (p *parser) parseUnsupported(keyword string) *ast.Unsupported {
	start := p.cur()
	end := start.end
	for !p.is(tkSemi) && !p.is(tkEOF) {
		if p.is(tkIllegal) {
			p.noViable()
		}
		end = p.next().end
	}
	return &ast.Unsupported{Pos: start.pos, Keyword: keyword, Text: p.src[start.pos.Offset:end]}
}
