package plan

import (
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/types"
)

// Batch is a planned BATCH.
type Batch struct {
	Type       ast.BatchType
	Statements []*Modify
	Timestamp  *Term
	Vars       []BindVar
}

func (p *planner) planBatch(s *ast.Batch) (*Batch, error) {
	b := &Batch{Type: s.Type}
	if s.Using.TTL != nil {
		return nil, cqlerr.Invalidf("Global TTL on the BATCH statement is not supported.")
	}
	if s.Using.Timestamp != nil {
		t, err := p.binder.prepareTerm(s.Using.Timestamp, receiver{Name: "[timestamp]", Type: types.Bigint})
		if err != nil {
			return nil, err
		}
		b.Timestamp = t
	}
	for _, st := range s.Statements {
		var m *Modify
		var err error
		switch st := st.(type) {
		case *ast.Insert:
			m, err = p.planInsert(st)
		case *ast.Update:
			m, err = p.planUpdate(st)
		case *ast.Delete:
			m, err = p.planDelete(st)
		default:
			return nil, cqlerr.Invalidf("Only INSERT, UPDATE and DELETE are allowed in a BATCH")
		}
		if err != nil {
			return nil, err
		}
		if err := CheckBatchStatement(b, m); err != nil {
			return nil, err
		}
		b.Statements = append(b.Statements, m)
	}
	b.Vars = p.binder.vars
	return b, nil
}

// CheckBatchStatement applies BatchStatement.verifyBatchType and the
// timestamp rules to one statement.
func CheckBatchStatement(b *Batch, m *Modify) error {
	if b.Timestamp != nil && m.Timestamp != nil {
		return cqlerr.Invalidf("Timestamp must be set either on BATCH or individual statements")
	}
	switch {
	case b.Type == ast.BatchCounter && !m.Table.IsCounter:
		return cqlerr.Invalidf("Cannot include non-counter statement in a counter batch")
	case b.Type == ast.BatchLogged && m.Table.IsCounter:
		return cqlerr.Invalidf("Cannot include a counter statement in a logged batch")
	case b.Type == ast.BatchUnlogged && m.Table.IsCounter:
		for _, other := range b.Statements {
			if !other.Table.IsCounter {
				return cqlerr.Invalidf("Counter and non-counter mutations cannot exist in the same batch")
			}
		}
	case b.Type == ast.BatchUnlogged:
		for _, other := range b.Statements {
			if other.Table.IsCounter {
				return cqlerr.Invalidf("Counter and non-counter mutations cannot exist in the same batch")
			}
		}
	}
	if b.Type == ast.BatchCounter && b.Timestamp != nil {
		return cqlerr.Invalidf("Cannot provide custom timestamp for counter BATCH")
	}
	return nil
}
