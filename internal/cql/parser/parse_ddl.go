package parser

import "github.com/partita-db/partita/internal/cql/ast"

// parseCreate dispatches CREATE statements on the keyword after CREATE.
func (p *parser) parseCreate() ast.Statement {
	next, after := p.peek(1), p.peek(2)
	switch {
	case isKw(next, kwKeyspace), isKw(next, kwSchema):
		return p.parseCreateKeyspace()
	case isKw(next, kwTable):
		return p.parseCreateTable()
	case isKw(next, kwIndex), isKw(next, kwCustom):
		return p.parseCreateIndex()
	case isKw(next, kwType):
		return p.parseCreateType()
	case isKw(next, kwFunction), isKw(next, kwOr) && isKw(p.peek(3), kwFunction):
		return p.parseUnsupported("CREATE FUNCTION")
	case isKw(next, kwAggregate), isKw(next, kwOr) && isKw(p.peek(3), kwAggregate):
		return p.parseCreateAggregate()
	case isKw(next, kwMaterialized) && isKw(after, kwView):
		return p.parseCreateView()
	case isKw(next, kwRole):
		return p.parseCreateRole()
	case isKw(next, kwUser):
		return p.parseCreateUser()
	case isKw(next, kwTrigger):
		return p.parseUnsupported("CREATE TRIGGER")
	}
	p.next()
	p.noViable()
	return nil
}

// parseDrop dispatches DROP statements.
func (p *parser) parseDrop() ast.Statement {
	next := p.peek(1)
	switch {
	case isKw(next, kwKeyspace), isKw(next, kwSchema):
		start := p.next()
		p.next()
		s := &ast.DropKeyspace{Pos: start.pos, IfExists: p.acceptIfExists()}
		s.Name = p.parseKeyspaceName()
		return s
	case isKw(next, kwTable):
		start := p.next()
		p.next()
		s := &ast.DropTable{Pos: start.pos, IfExists: p.acceptIfExists()}
		s.Name = p.parseTableName()
		return s
	case isKw(next, kwIndex):
		start := p.next()
		p.next()
		s := &ast.DropIndex{Pos: start.pos, IfExists: p.acceptIfExists()}
		s.Name = p.parseQualifiedName("index")
		return s
	case isKw(next, kwType):
		start := p.next()
		p.next()
		s := &ast.DropType{Pos: start.pos, IfExists: p.acceptIfExists()}
		s.Name = p.parseUserTypeName()
		return s
	case isKw(next, kwMaterialized) && isKw(p.peek(2), kwView):
		return p.parseDropView()
	case isKw(next, kwFunction), isKw(next, kwAggregate):
		return p.parseDropFunction()
	case isKw(next, kwRole):
		return p.parseDropRole(false)
	case isKw(next, kwUser):
		return p.parseDropRole(true)
	case isKw(next, kwTrigger), isKw(next, kwIdentity):
		return p.parseUnsupported("DROP " + upper(keywords[next.kw].name))
	}
	p.next()
	p.noViable()
	return nil
}

// parseAlter dispatches ALTER statements.
func (p *parser) parseAlter() ast.Statement {
	next := p.peek(1)
	switch {
	case isKw(next, kwKeyspace), isKw(next, kwSchema):
		return p.parseAlterKeyspace()
	case isKw(next, kwTable):
		return p.parseAlterTable()
	case isKw(next, kwType):
		return p.parseAlterType()
	case isKw(next, kwMaterialized) && isKw(p.peek(2), kwView):
		return p.parseAlterView()
	case isKw(next, kwRole):
		return p.parseAlterRole()
	case isKw(next, kwUser):
		return p.parseAlterUser()
	}
	p.next()
	p.noViable()
	return nil
}

// parseCreateKeyspace implements
//
//	createKeyspaceStatement: K_CREATE K_KEYSPACE (K_IF K_NOT K_EXISTS)? keyspaceName
//	    K_WITH properties
func (p *parser) parseCreateKeyspace() *ast.CreateKeyspace {
	start := p.next()
	p.next()
	s := &ast.CreateKeyspace{Pos: start.pos, IfNotExists: p.acceptIfNotExists()}
	s.Name = p.parseKeyspaceName()
	p.expectKw(kwWith)
	p.parseProperties(&s.Options)
	return s
}

// parseAlterKeyspace implements
//
//	alterKeyspaceStatement: K_ALTER K_KEYSPACE (K_IF K_EXISTS)? keyspaceName
//	    K_WITH properties
func (p *parser) parseAlterKeyspace() *ast.AlterKeyspace {
	start := p.next()
	p.next()
	s := &ast.AlterKeyspace{Pos: start.pos, IfExists: p.acceptIfExists()}
	s.Name = p.parseKeyspaceName()
	p.expectKw(kwWith)
	p.parseProperties(&s.Options)
	return s
}

// parseCreateTable implements
//
//	createTableStatement: K_CREATE K_COLUMNFAMILY (K_IF K_NOT K_EXISTS)?
//	    columnFamilyName tableDefinition
//	tableDefinition: '(' tableColumns (',' tableColumns?)* ')'
//	    (K_WITH tableProperty (K_AND tableProperty)*)?
//	tableProperty: property | K_COMPACT K_STORAGE
//	    | K_CLUSTERING K_ORDER K_BY '(' tableClusteringOrder (',' tableClusteringOrder)* ')'
//	tableClusteringOrder: ident (K_ASC | K_DESC)
func (p *parser) parseCreateTable() *ast.CreateTable {
	start := p.next()
	p.next()
	s := &ast.CreateTable{Pos: start.pos, IfNotExists: p.acceptIfNotExists()}
	s.Name = p.parseTableName()
	p.expect(tkLParen)
	p.parseTableElement(s)
	for p.accept(tkComma) {
		if !p.is(tkComma) && !p.is(tkRParen) {
			p.parseTableElement(s)
		}
	}
	p.expect(tkRParen)
	if p.acceptKw(kwWith) {
		for {
			switch {
			case p.isKw(kwCompact) && p.peekKw(1, kwStorage):
				p.next()
				p.next()
				s.CompactStorage = true
			case p.isKw(kwClustering) && p.peekKw(1, kwOrder):
				p.parseClusteringOrder(s)
			default:
				p.parseProperty(&s.Options)
			}
			if !p.acceptKw(kwAnd) {
				break
			}
		}
	}
	s.PartitionKey, s.Clustering = declaredPrimaryKey(s)
	return s
}

// declaredPrimaryKey picks the primary key the planner validates: the first
// inline PRIMARY KEY column, else the first PRIMARY KEY clause.
func declaredPrimaryKey(s *ast.CreateTable) (partition, clustering []ast.Ident) {
	for _, c := range s.Columns {
		if c.PrimaryKey {
			return []ast.Ident{c.Name}, nil
		}
	}
	if len(s.PrimaryKeyClauses) > 0 {
		k := s.PrimaryKeyClauses[0]
		return k.PartitionKey, k.Clustering
	}
	return nil, nil
}

func (p *parser) parseClusteringOrder(s *ast.CreateTable) {
	p.next()
	p.next()
	p.expectKw(kwBy)
	p.expect(tkLParen)
	for {
		col := p.parseIdent()
		o := ast.OrderItem{Pos: col.Pos, Column: col}
		if !p.acceptKw(kwAsc) {
			if !p.isKw(kwDesc) {
				p.noViable()
			}
			p.next()
			o.Desc = true
		}
		s.ClusteringOrder = append(s.ClusteringOrder, o)
		if !p.accept(tkComma) {
			break
		}
	}
	p.expect(tkRParen)
}

// parseTableElement implements
//
//	tableColumns: ident comparatorType K_STATIC? columnMask? (K_PRIMARY K_KEY)?
//	    | K_PRIMARY K_KEY '(' tablePartitionKey (',' ident)* ')'
//	tablePartitionKey: ident | '(' ident (',' ident)* ')'
func (p *parser) parseTableElement(s *ast.CreateTable) {
	if p.isKw(kwPrimary) {
		start := p.next()
		p.expectKw(kwKey)
		p.expect(tkLParen)
		k := ast.PrimaryKeyClause{Pos: start.pos}
		if p.accept(tkLParen) {
			k.PartitionKey = []ast.Ident{p.parseIdent()}
			for p.accept(tkComma) {
				k.PartitionKey = append(k.PartitionKey, p.parseIdent())
			}
			p.expect(tkRParen)
		} else {
			k.PartitionKey = []ast.Ident{p.parseIdent()}
		}
		for p.accept(tkComma) {
			k.Clustering = append(k.Clustering, p.parseIdent())
		}
		p.expect(tkRParen)
		s.PrimaryKeyClauses = append(s.PrimaryKeyClauses, k)
		return
	}
	c := p.parseColumnDef()
	if p.acceptKw(kwPrimary) {
		p.expectKw(kwKey)
		c.PrimaryKey = true
	}
	s.Columns = append(s.Columns, c)
}

// parseColumnDef parses ident comparatorType K_STATIC? columnMask?.
func (p *parser) parseColumnDef() ast.ColumnDef {
	name := p.parseIdent()
	c := ast.ColumnDef{Pos: name.Pos, Name: name, Type: p.parseType()}
	c.Static = p.acceptKw(kwStatic)
	if p.isKw(kwMasked) {
		c.Mask = p.parseColumnMask()
	}
	return c
}

// parseColumnMask implements
//
//	columnMask: K_MASKED K_WITH functionName columnMaskArguments
//	    | K_MASKED K_WITH K_DEFAULT
//	columnMaskArguments: '(' ')' | '(' term (',' term)* ')'
func (p *parser) parseColumnMask() *ast.ColumnMask {
	start := p.expectKw(kwMasked)
	p.expectKw(kwWith)
	m := &ast.ColumnMask{Pos: start.pos}
	if p.isKw(kwDefault) && p.peek(1).kind != tkLParen {
		p.next()
		m.Default = true
		return m
	}
	m.Keyspace, m.Function = p.parseFunctionName()
	p.expect(tkLParen)
	if !p.is(tkRParen) {
		m.Args = p.parseExprList(p.parseTerm)
	}
	p.expect(tkRParen)
	return m
}

// parseAlterTable implements
//
//	alterTableStatement: K_ALTER K_COLUMNFAMILY (K_IF K_EXISTS)? columnFamilyName
//	    ( K_ALTER cident K_TYPE comparatorType
//	    | K_ALTER (K_IF K_EXISTS)? cident (columnMask | K_DROP K_MASKED)
//	    | K_ADD (K_IF K_NOT K_EXISTS)? (ident comparatorType isStaticColumn columnMask?
//	        | '(' ident comparatorType isStaticColumn columnMask? (',' ...)* ')')
//	    | K_DROP (K_IF K_EXISTS)? (ident | '(' ident (',' ident)* ')') (K_USING K_TIMESTAMP INTEGER)?
//	    | K_RENAME (K_IF K_EXISTS)? ident K_TO ident (K_AND ident K_TO ident)*
//	    | K_DROP K_COMPACT K_STORAGE
//	    | K_WITH properties )
func (p *parser) parseAlterTable() *ast.AlterTable {
	start := p.next()
	p.next()
	s := &ast.AlterTable{Pos: start.pos, IfExists: p.acceptIfExists()}
	s.Name = p.parseTableName()
	t := p.cur()
	switch {
	case isKw(t, kwAlter):
		s.Action = p.parseAlterColumn()
	case isKw(t, kwAdd):
		p.next()
		a := &ast.AddColumns{Pos: t.pos, IfNotExists: p.acceptIfNotExists()}
		if p.accept(tkLParen) {
			a.Columns = []ast.ColumnDef{p.parseColumnDef()}
			for p.accept(tkComma) {
				a.Columns = append(a.Columns, p.parseColumnDef())
			}
			p.expect(tkRParen)
		} else {
			a.Columns = []ast.ColumnDef{p.parseColumnDef()}
		}
		s.Action = a
	case isKw(t, kwDrop) && p.peekKw(1, kwCompact) && p.peekKw(2, kwStorage):
		p.next()
		p.next()
		p.next()
		s.Action = &ast.DropCompactStorage{Pos: t.pos}
	case isKw(t, kwDrop):
		s.Action = p.parseDropColumns()
	case isKw(t, kwRename):
		p.next()
		r := &ast.RenameColumns{Pos: t.pos, IfExists: p.acceptIfExists()}
		r.Renames = p.parseRenames(p.parseIdent)
		s.Action = r
	case isKw(t, kwWith):
		p.next()
		o := &ast.AlterTableOptions{Pos: t.pos}
		p.parseProperties(&o.Options)
		s.Action = o
	default:
		p.noViable()
	}
	return s
}

func (p *parser) parseAlterColumn() ast.AlterTableAction {
	start := p.next()
	if p.isKw(kwIf) {
		m := &ast.AlterColumnMask{Pos: start.pos, IfExists: p.acceptIfExists()}
		m.Column = p.parseCident()
		p.parseMaskChange(m)
		return m
	}
	col := p.parseCident()
	if p.acceptKw(kwType) {
		return &ast.AlterColumnType{Pos: start.pos, Column: col, Type: p.parseType()}
	}
	m := &ast.AlterColumnMask{Pos: start.pos, Column: col}
	p.parseMaskChange(m)
	return m
}

// parseMaskChange parses columnMask | K_DROP K_MASKED.
func (p *parser) parseMaskChange(m *ast.AlterColumnMask) {
	switch {
	case p.isKw(kwMasked):
		m.Mask = p.parseColumnMask()
	case p.acceptKw(kwDrop):
		p.expectKw(kwMasked)
	default:
		p.noViable()
	}
}

func (p *parser) parseDropColumns() *ast.DropColumns {
	start := p.next()
	d := &ast.DropColumns{Pos: start.pos, IfExists: p.acceptIfExists()}
	if p.accept(tkLParen) {
		d.Columns = []ast.Ident{p.parseIdent()}
		for p.accept(tkComma) {
			d.Columns = append(d.Columns, p.parseIdent())
		}
		p.expect(tkRParen)
	} else {
		d.Columns = []ast.Ident{p.parseIdent()}
	}
	if p.acceptKw(kwUsing) {
		p.expectKw(kwTimestamp)
		if !p.is(tkInteger) {
			p.mismatch(tokNames[tkInteger])
		}
		d.Timestamp = p.parseConstant()
	}
	return d
}

// parseRenames parses name K_TO name (K_AND name K_TO name)*.
func (p *parser) parseRenames(name func() ast.Ident) []ast.Rename {
	var renames []ast.Rename
	for {
		from := name()
		p.expectKw(kwTo)
		renames = append(renames, ast.Rename{From: from, To: name()})
		if !p.acceptKw(kwAnd) {
			return renames
		}
	}
}

// parseCreateType implements
//
//	createTypeStatement: K_CREATE K_TYPE (K_IF K_NOT K_EXISTS)? userTypeName
//	    '(' typeColumns (',' typeColumns?)* ')'
//	typeColumns: fident comparatorType
func (p *parser) parseCreateType() *ast.CreateType {
	start := p.next()
	p.next()
	s := &ast.CreateType{Pos: start.pos, IfNotExists: p.acceptIfNotExists()}
	s.Name = p.parseUserTypeName()
	p.expect(tkLParen)
	s.Fields = []ast.FieldDef{p.parseFieldDef()}
	for p.accept(tkComma) {
		if !p.is(tkComma) && !p.is(tkRParen) {
			s.Fields = append(s.Fields, p.parseFieldDef())
		}
	}
	p.expect(tkRParen)
	return s
}

func (p *parser) parseFieldDef() ast.FieldDef {
	name := p.parseIdent()
	return ast.FieldDef{Pos: name.Pos, Name: name, Type: p.parseType()}
}

// parseAlterType implements
//
//	alterTypeStatement: K_ALTER K_TYPE (K_IF K_EXISTS)? userTypeName
//	    ( K_ALTER fident K_TYPE comparatorType
//	    | K_ADD (K_IF K_NOT K_EXISTS)? fident comparatorType
//	    | K_RENAME (K_IF K_EXISTS)? fident K_TO fident (K_AND fident K_TO fident)* )
func (p *parser) parseAlterType() *ast.AlterType {
	start := p.next()
	p.next()
	s := &ast.AlterType{Pos: start.pos, IfExists: p.acceptIfExists()}
	s.Name = p.parseUserTypeName()
	t := p.cur()
	switch {
	case isKw(t, kwAlter):
		p.next()
		field := p.parseIdent()
		p.expectKw(kwType)
		s.Action = &ast.AlterFieldType{Pos: t.pos, Field: field, Type: p.parseType()}
	case isKw(t, kwAdd):
		p.next()
		a := &ast.AddField{Pos: t.pos, IfNotExists: p.acceptIfNotExists()}
		a.Field = p.parseFieldDef()
		s.Action = a
	case isKw(t, kwRename):
		p.next()
		r := &ast.RenameFields{Pos: t.pos, IfExists: p.acceptIfExists()}
		r.Renames = p.parseRenames(p.parseIdent)
		s.Action = r
	default:
		p.noViable()
	}
	return s
}

var indexTargetKinds = map[keyword]ast.IndexTargetKind{
	kwValues: ast.IndexValues, kwKeys: ast.IndexKeys, kwEntries: ast.IndexEntries, kwFull: ast.IndexFull,
}

// parseCreateIndex implements
//
//	createIndexStatement: K_CREATE K_CUSTOM? K_INDEX (K_IF K_NOT K_EXISTS)? idxName?
//	    K_ON columnFamilyName '(' (indexIdent (',' indexIdent)*)? ')'
//	    (K_USING STRING_LITERAL)? (K_WITH properties)?
//	indexIdent: cident | K_VALUES '(' cident ')' | K_KEYS '(' cident ')'
//	    | K_ENTRIES '(' cident ')' | K_FULL '(' cident ')'
func (p *parser) parseCreateIndex() *ast.CreateIndex {
	start := p.next()
	s := &ast.CreateIndex{Pos: start.pos, Custom: p.acceptKw(kwCustom)}
	p.expectKw(kwIndex)
	s.IfNotExists = p.acceptIfNotExists()
	if !p.isKw(kwOn) {
		s.Name = p.parseObjectName("index")
	}
	p.expectKw(kwOn)
	s.Table = p.parseTableName()
	p.expect(tkLParen)
	if !p.is(tkRParen) {
		s.Targets = []ast.IndexTarget{p.parseIndexTarget()}
		for p.accept(tkComma) {
			s.Targets = append(s.Targets, p.parseIndexTarget())
		}
	}
	p.expect(tkRParen)
	if p.acceptKw(kwUsing) {
		if !p.is(tkString) {
			p.mismatch(tokNames[tkString])
		}
		s.Using = p.parseConstant()
	}
	if p.acceptKw(kwWith) {
		p.parseProperties(&s.Options)
	}
	return s
}

func (p *parser) parseIndexTarget() ast.IndexTarget {
	t := p.cur()
	if kind, ok := indexTargetKinds[t.kw]; ok && t.kind == tkIdent && p.peek(1).kind == tkLParen {
		p.next()
		p.next()
		col := p.parseCident()
		p.expect(tkRParen)
		return ast.IndexTarget{Pos: t.pos, Column: col, Kind: kind}
	}
	col := p.parseCident()
	return ast.IndexTarget{Pos: col.Pos, Column: col}
}

// parseProperties implements
//
//	properties: property (K_AND property)*
func (p *parser) parseProperties(into *ast.Properties) {
	p.parseProperty(into)
	for p.acceptKw(kwAnd) {
		p.parseProperty(into)
	}
}

// parseProperty implements
//
//	property: noncol_ident '=' propertyValue | noncol_ident '=' fullMapLiteral
//	propertyValue: constant | unreserved_keyword
//	fullMapLiteral: '{' (term ':' term (',' term ':' term)*)? '}'
//
// and the checks Cassandra makes while parsing (PropertyDefinitions
// .addProperty, Parser.g convertPropertyMap).
func (p *parser) parseProperty(into *ast.Properties) {
	name := p.parseIdent()
	p.expect(tkEq)
	prop := ast.Property{Pos: name.Pos, Name: name.Name}
	t := p.cur()
	switch {
	case isConstant(t):
		prop.Value = p.parseConstant()
	case t.kind == tkIdent && t.kw != kwNone && keywords[t.kw].class != classReserved:
		p.next()
		// Parser.g keeps the keyword as written (propertyValue returns $k.text).
		prop.Value = &ast.Literal{Pos: t.pos, Kind: ast.LitString, Text: p.src[t.pos.Offset:t.end]}
	case t.kind == tkLBrace:
		prop.Value = p.parsePropertyMap()
	default:
		p.noViable()
	}
	if into.Get(prop.Name) != nil {
		p.recognitionError("Multiple definition for property " + prop.Name)
	}
	*into = append(*into, prop)
}

func (p *parser) parsePropertyMap() *ast.MapLiteral {
	open := p.expect(tkLBrace)
	m := &ast.MapLiteral{Pos: open.pos}
	if !p.is(tkRBrace) {
		for {
			k := p.parseTerm()
			p.expect(tkColon)
			m.Entries = append(m.Entries, ast.MapEntry{Key: k, Value: p.parseTerm()})
			if !p.accept(tkComma) {
				break
			}
		}
	}
	p.expect(tkRBrace)
	p.checkPropertyMap(m)
	return m
}

// checkPropertyMap reports what convertPropertyMap reports: keys and values
// must be constants, keys unique.
func (p *parser) checkPropertyMap(m *ast.MapLiteral) {
	seen := make(map[string]bool, len(m.Entries))
	for _, e := range m.Entries {
		key, ok := e.Key.(*ast.Literal)
		if !ok {
			p.recognitionError("Invalid property name: " + e.Key.String() + markerNote(e.Key))
			return
		}
		if _, ok := e.Value.(*ast.Literal); !ok {
			p.recognitionError("Invalid property value: " + e.Value.String() + " for property: " + e.Key.String() + markerNote(e.Value))
			return
		}
		if seen[key.Text] {
			p.recognitionError("Multiple definition for property " + key.Text)
		}
		seen[key.Text] = true
	}
}

func markerNote(e ast.Expr) string {
	if _, ok := e.(*ast.BindMarker); ok {
		return " (bind variables are not supported in DDL queries)"
	}
	return ""
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - ('a' - 'A')
		}
	}
	return string(b)
}
