package parser

import (
	"strings"

	"github.com/partita-db/partita/internal/cql/ast"
)

// parseRoleName implements
//
//	userOrRoleName: IDENT | STRING_LITERAL | QUOTED_NAME | unreserved_keyword
//
// An unquoted name is lower-cased; a string or quoted name keeps its case.
func (p *parser) parseRoleName() string {
	t := p.cur()
	if t.kind == tkString {
		p.next()
		return t.text
	}
	return p.parseIdent().Name
}

// parseUserName implements
//
//	username: IDENT | STRING_LITERAL | QUOTED_NAME
//
// where a quoted name is refused, as Parser.g does.
func (p *parser) parseUserName() string {
	t := p.cur()
	if t.kind == tkQuotedName {
		p.recognitionError("Quoted strings are are not supported for user names and USER is deprecated, please use ROLE")
	}
	return p.parseRoleName()
}

// parseCreateRole implements
//
//	createRoleStatement: K_CREATE K_ROLE (K_IF K_NOT K_EXISTS)? userOrRoleName
//	    (K_WITH roleOptions)?
func (p *parser) parseCreateRole() *ast.CreateRole {
	start := p.next()
	p.next()
	s := &ast.CreateRole{Pos: start.pos, IfNotExists: p.acceptIfNotExists()}
	s.Name = p.parseRoleName()
	if p.acceptKw(kwWith) {
		p.parseRoleOptions(&s.Options)
	}
	return s
}

// parseAlterRole implements
//
//	alterRoleStatement: K_ALTER K_ROLE (K_IF K_EXISTS)? userOrRoleName
//	    (K_WITH roleOptions)?
func (p *parser) parseAlterRole() *ast.AlterRole {
	start := p.next()
	p.next()
	s := &ast.AlterRole{Pos: start.pos, IfExists: p.acceptIfExists()}
	s.Name = p.parseRoleName()
	if p.acceptKw(kwWith) {
		p.parseRoleOptions(&s.Options)
	}
	return s
}

// parseDropRole implements
//
//	dropRoleStatement: K_DROP K_ROLE (K_IF K_EXISTS)? userOrRoleName
//	dropUserStatement: K_DROP K_USER (K_IF K_EXISTS)? username
func (p *parser) parseDropRole(user bool) *ast.DropRole {
	start := p.next()
	p.next()
	s := &ast.DropRole{Pos: start.pos, IfExists: p.acceptIfExists(), User: user}
	if user {
		s.Name = p.parseUserName()
	} else {
		s.Name = p.parseRoleName()
	}
	return s
}

// parseCreateUser implements
//
//	createUserStatement: K_CREATE K_USER (K_IF K_NOT K_EXISTS)? username
//	    (K_WITH userPassword)? (K_SUPERUSER | K_NOSUPERUSER)?
//
// A user may always log in.
func (p *parser) parseCreateUser() *ast.CreateRole {
	start := p.next()
	p.next()
	s := &ast.CreateRole{Pos: start.pos, IfNotExists: p.acceptIfNotExists(), User: true}
	s.Name = p.parseUserName()
	login := true
	s.Options.Login = &login
	p.parseUserOptions(&s.Options)
	return s
}

// parseAlterUser implements
//
//	alterUserStatement: K_ALTER K_USER (K_IF K_EXISTS)? username
//	    (K_WITH userPassword)? (K_SUPERUSER | K_NOSUPERUSER)?
func (p *parser) parseAlterUser() *ast.AlterRole {
	start := p.next()
	p.next()
	s := &ast.AlterRole{Pos: start.pos, IfExists: p.acceptIfExists(), User: true}
	s.Name = p.parseUserName()
	p.parseUserOptions(&s.Options)
	return s
}

// parseUserOptions implements
//
//	(K_WITH userPassword)? (K_SUPERUSER | K_NOSUPERUSER)?
//	userPassword: K_PASSWORD STRING_LITERAL | K_HASHED K_PASSWORD STRING_LITERAL
func (p *parser) parseUserOptions(o *ast.RoleOptions) {
	if p.acceptKw(kwWith) {
		hashed := p.acceptKw(kwHashed)
		p.expectKw(kwPassword)
		v := p.expect(tkString).text
		if hashed {
			o.HashedPassword = &v
		} else {
			o.Password = &v
		}
	}
	switch {
	case p.acceptKw(kwSuperuser):
		super := true
		o.Super = &super
	case p.acceptKw(kwNosuperuser):
		super := false
		o.Super = &super
	}
}

// parseRoleOptions implements
//
//	roleOptions: roleOption (K_AND roleOption)*
//
// and RoleOptions.setOption's refusal of an option given twice.
func (p *parser) parseRoleOptions(o *ast.RoleOptions) {
	p.parseRoleOption(o)
	for p.acceptKw(kwAnd) {
		p.parseRoleOption(o)
	}
	if o.Password != nil && o.HashedPassword != nil {
		p.recognitionError("Options 'password' and 'hashed password' are mutually exclusive")
	}
}

// parseRoleOption implements
//
//	roleOption: K_PASSWORD '=' STRING_LITERAL
//	    | K_HASHED K_PASSWORD '=' STRING_LITERAL
//	    | K_OPTIONS '=' fullMapLiteral
//	    | K_SUPERUSER '=' BOOLEAN
//	    | K_LOGIN '=' BOOLEAN
//	    | K_ACCESS K_TO K_ALL K_DATACENTERS
//	    | K_ACCESS K_TO K_DATACENTERS '{' dcPermission (',' dcPermission)* '}'
func (p *parser) parseRoleOption(o *ast.RoleOptions) {
	twice := func(name string, given bool) {
		if given {
			p.recognitionError("Multiple definition for property '" + name + "'")
		}
	}
	switch {
	case p.acceptKw(kwPassword):
		p.expect(tkEq)
		v := p.expect(tkString).text
		twice("PASSWORD", o.Password != nil)
		o.Password = &v
	case p.acceptKw(kwHashed):
		p.expectKw(kwPassword)
		p.expect(tkEq)
		v := p.expect(tkString).text
		twice("HASHED_PASSWORD", o.HashedPassword != nil)
		o.HashedPassword = &v
	case p.acceptKw(kwOptions):
		p.expect(tkEq)
		m := p.parsePropertyMap()
		twice("OPTIONS", o.HasOptions)
		o.HasOptions, o.Options = true, map[string]string{}
		for _, e := range m.Entries {
			k, kok := e.Key.(*ast.Literal)
			v, vok := e.Value.(*ast.Literal)
			if kok && vok {
				o.Options[k.Text] = v.Text
			}
		}
	case p.acceptKw(kwSuperuser):
		p.expect(tkEq)
		v := strings.EqualFold(p.expect(tkBoolean).text, "true")
		twice("SUPERUSER", o.Super != nil)
		o.Super = &v
	case p.acceptKw(kwLogin):
		p.expect(tkEq)
		v := strings.EqualFold(p.expect(tkBoolean).text, "true")
		twice("LOGIN", o.Login != nil)
		o.Login = &v
	case p.acceptKw(kwAccess):
		p.expectKw(kwTo)
		if p.acceptKw(kwAll) {
			p.expectKw(kwDatacenters)
			o.AllDatacenters = true
			return
		}
		p.expectKw(kwDatacenters)
		p.expect(tkLBrace)
		o.Datacenters = []string{}
		for {
			o.Datacenters = append(o.Datacenters, p.expect(tkString).text)
			if !p.accept(tkComma) {
				break
			}
		}
		p.expect(tkRBrace)
	default:
		p.noViable()
	}
}

// parseGrantRole implements
//
//	grantRoleStatement: K_GRANT userOrRoleName K_TO userOrRoleName
func (p *parser) parseGrantRole() *ast.GrantRole {
	start := p.next()
	s := &ast.GrantRole{Pos: start.pos, Role: p.parseRoleName()}
	p.expectKw(kwTo)
	s.Grantee = p.parseRoleName()
	return s
}

// parseRevokeRole implements
//
//	revokeRoleStatement: K_REVOKE userOrRoleName K_FROM userOrRoleName
func (p *parser) parseRevokeRole() *ast.RevokeRole {
	start := p.next()
	s := &ast.RevokeRole{Pos: start.pos, Role: p.parseRoleName()}
	p.expectKw(kwFrom)
	s.Revokee = p.parseRoleName()
	return s
}

// parseList implements
//
//	listRolesStatement: K_LIST K_ROLES (K_OF roleName)? K_NORECURSIVE?
//	listUsersStatement: K_LIST K_USERS
//
// and LIST of permissions (parseListPermissions).
func (p *parser) parseList() ast.Statement {
	switch {
	case p.peekKw(1, kwRoles):
		start := p.next()
		p.next()
		s := &ast.ListRoles{Pos: start.pos}
		if p.acceptKw(kwOf) {
			s.HasOf, s.Of = true, p.parseRoleName()
		}
		s.NoRecursive = p.acceptKw(kwNorecursive)
		return s
	case p.peekKw(1, kwUsers):
		start := p.next()
		p.next()
		return &ast.ListUsers{Pos: start.pos}
	}
	return p.parseListPermissions()
}

// isRoleGrant reports whether GRANT or REVOKE at the current token grants a
// role (a role name followed by TO or FROM) rather than permissions.
func (p *parser) isRoleGrant() bool {
	name := p.peek(1)
	if name.kind != tkString && !isIdent(name) {
		return false
	}
	return p.peekKw(2, kwTo) || p.peekKw(2, kwFrom)
}

// permissionKeywords are Parser.g's permission rule.
var permissionKeywords = []keyword{kwCreate, kwAlter, kwDrop, kwSelect, kwModify, kwAuthorize, kwDescribe,
	kwExecute, kwUnmask, kwSelectMasked}

// parsePermissionOrAll implements
//
//	permissionOrAll: K_ALL K_PERMISSIONS? | permission K_PERMISSION?
//
// and returns nil for ALL.
func (p *parser) parsePermissionOrAll() []string {
	if p.acceptKw(kwAll) {
		p.acceptKw(kwPermissions)
		return nil
	}
	t := p.cur()
	for _, kw := range permissionKeywords {
		if isKw(t, kw) {
			p.next()
			p.acceptKw(kwPermission)
			return []string{upper(keywords[kw].name)}
		}
	}
	p.noViable()
	return nil
}

// parsePermissionResource implements
//
//	resource: dataResource | roleResource | functionResource
//	dataResource: K_ALL K_KEYSPACES | K_KEYSPACE keyspaceName
//	    | K_ALL K_TABLES K_IN K_KEYSPACE keyspaceName | K_TABLE? columnFamilyName
//	roleResource: K_ALL K_ROLES | K_ROLE userOrRoleName
//	functionResource: K_ALL K_FUNCTIONS (K_IN K_KEYSPACE keyspaceName)?
//	    | K_FUNCTION functionName '(' (comparatorType (',' comparatorType)*)? ')'
func (p *parser) parsePermissionResource() ast.PermissionResource {
	switch {
	case p.isKw(kwAll) && p.peekKw(1, kwKeyspaces):
		p.next()
		p.next()
		return ast.PermissionResource{Kind: ast.ResourceAllKeyspaces}
	case p.isKw(kwAll) && p.peekKw(1, kwRoles):
		p.next()
		p.next()
		return ast.PermissionResource{Kind: ast.ResourceAllRoles}
	case p.isKw(kwAll) && p.peekKw(1, kwTables):
		p.next()
		p.next()
		p.expectKw(kwIn)
		p.expectKw(kwKeyspace)
		return ast.PermissionResource{Kind: ast.ResourceAllTablesIn, Keyspace: p.parseKeyspaceName()}
	case p.isKw(kwAll) && p.peekKw(1, kwFunctions):
		p.next()
		p.next()
		if p.acceptKw(kwIn) {
			p.expectKw(kwKeyspace)
			return ast.PermissionResource{Kind: ast.ResourceAllFunctionsIn, Keyspace: p.parseKeyspaceName()}
		}
		return ast.PermissionResource{Kind: ast.ResourceAllFunctions}
	case p.isKw(kwKeyspace):
		p.next()
		return ast.PermissionResource{Kind: ast.ResourceKeyspace, Keyspace: p.parseKeyspaceName()}
	case p.isKw(kwRole):
		p.next()
		return ast.PermissionResource{Kind: ast.ResourceRole, Name: p.parseRoleName()}
	case p.isKw(kwFunction):
		p.next()
		r := ast.PermissionResource{Kind: ast.ResourceFunction}
		r.Keyspace, r.Name = p.parseFunctionName()
		p.expect(tkLParen)
		for !p.is(tkRParen) {
			if len(r.ArgTypes) > 0 {
				p.expect(tkComma)
			}
			r.ArgTypes = append(r.ArgTypes, p.parseType())
		}
		p.next()
		return r
	}
	p.acceptKw(kwTable)
	name := p.parseTableName()
	return ast.PermissionResource{Kind: ast.ResourceTable, Keyspace: name.Keyspace, Name: name.Name}
}

// parseGrantPermissions implements
//
//	grantPermissionsStatement: K_GRANT permissionOrAll K_ON resource K_TO userOrRoleName
//	revokePermissionsStatement: K_REVOKE permissionOrAll K_ON resource K_FROM userOrRoleName
func (p *parser) parseGrantPermissions(revoke bool) *ast.GrantPermissions {
	start := p.next()
	s := &ast.GrantPermissions{Pos: start.pos, Revoke: revoke, Permissions: p.parsePermissionOrAll()}
	p.expectKw(kwOn)
	s.Resource = p.parsePermissionResource()
	if revoke {
		p.expectKw(kwFrom)
	} else {
		p.expectKw(kwTo)
	}
	s.Role = p.parseRoleName()
	return s
}

// parseListPermissions implements
//
//	listPermissionsStatement: K_LIST permissionOrAll (K_ON resource)?
//	    (K_OF roleName)? K_NORECURSIVE?
func (p *parser) parseListPermissions() *ast.ListPermissions {
	start := p.next()
	s := &ast.ListPermissions{Pos: start.pos, Permissions: p.parsePermissionOrAll()}
	if p.acceptKw(kwOn) {
		r := p.parsePermissionResource()
		s.Resource = &r
	}
	if p.acceptKw(kwOf) {
		s.HasOf, s.Of = true, p.parseRoleName()
	}
	s.NoRecursive = p.acceptKw(kwNorecursive)
	return s
}
