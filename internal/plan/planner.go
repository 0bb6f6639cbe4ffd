package plan

import (
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
)

// Statement is a planned statement: *Select, *Modify, *Batch, *Use, or one
// of the schema statements.
type Statement interface{}

// planner plans one statement.
type planner struct {
	schema   *catalog.Schema
	keyspace string // the session's current keyspace
	binder
}

// Plan plans stmt against schema for a session whose current keyspace is
// keyspace ("" for none).
func Plan(stmt ast.Statement, schema *catalog.Schema, keyspace string) (Statement, error) {
	p := &planner{schema: schema, keyspace: keyspace}
	switch s := stmt.(type) {
	case *ast.Select:
		return p.planSelect(s)
	case *ast.Insert:
		return p.withViews(p.planInsert(s))
	case *ast.Update:
		return p.withViews(p.planUpdate(s))
	case *ast.Delete:
		return p.withViews(p.planDelete(s))
	case *ast.Batch:
		return p.planBatch(s)
	case *ast.Use:
		return &Use{Keyspace: s.Keyspace}, nil
	case *ast.Describe:
		return &Describe{Stmt: s, Keyspace: keyspace}, nil
	case *ast.Explain:
		sel, ok := s.Statement.(*ast.Select)
		if !ok {
			return nil, cqlerr.Invalidf("EXPLAIN supports SELECT statements only")
		}
		inner, err := p.planSelect(sel)
		if err != nil {
			return nil, err
		}
		return &Explain{Select: inner}, nil
	}
	return p.planSchema(stmt)
}

// Explain is EXPLAIN SELECT ...: the select's plan, described rather than
// run. Its bind variables are the select's.
type Explain struct {
	Select *Select
}

// Describe is a DESCRIBE statement; package describe renders it.
type Describe struct {
	Stmt     *ast.Describe
	Keyspace string // the session's keyspace
}

// Use is USE keyspace.
type Use struct {
	Keyspace string
}

// keyspaceOf resolves the keyspace of a (possibly unqualified) name.
func (p *planner) keyspaceOf(name ast.QualifiedName) (string, error) {
	if name.Keyspace != "" {
		return name.Keyspace, nil
	}
	if p.keyspace == "" {
		return "", cqlerr.Invalidf("No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename")
	}
	return p.keyspace, nil
}

// table resolves a table for a data statement (Schema.validateTable).
func (p *planner) table(name ast.QualifiedName) (*catalog.Table, error) {
	ksName, err := p.keyspaceOf(name)
	if err != nil {
		return nil, err
	}
	ks := p.schema.Keyspace(ksName)
	if ks == nil {
		return nil, cqlerr.Invalidf("keyspace %s does not exist", ksName)
	}
	t := ks.Table(name.Name)
	if t == nil {
		return nil, cqlerr.Invalidf("table %s does not exist", name.Name)
	}
	return t, nil
}
