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
			m, err = p.withViews(p.planInsert(st))
		case *ast.Update:
			m, err = p.withViews(p.planUpdate(st))
		case *ast.Delete:
			m, err = p.withViews(p.planDelete(st))
		default:
			return nil, cqlerr.Invalidf("Only INSERT, UPDATE and DELETE are allowed in a BATCH")
		}
		if err != nil {
			return nil, err
		}
		b.Statements = append(b.Statements, m)
	}
	// Every statement is prepared before the batch is validated as a whole
	// (BatchStatement.Parsed.prepare).
	if err := ValidateBatch(b); err != nil {
		return nil, err
	}
	b.Vars = p.binder.vars
	return b, nil
}

// ValidateBatch applies BatchStatement.validate() to a whole batch, in its
// order: the first rule broken decides the message.
func ValidateBatch(b *Batch) error {
	conditional := false
	for _, m := range b.Statements {
		conditional = conditional || m.IsConditional()
	}
	if b.Timestamp != nil {
		if conditional {
			return cqlerr.Invalidf("Cannot provide custom timestamp for conditional BATCH")
		}
		if b.Type == ast.BatchCounter {
			return cqlerr.Invalidf("Cannot provide custom timestamp for counter BATCH")
		}
	}
	counters, nonCounters := false, false
	for _, m := range b.Statements {
		if b.Timestamp != nil && m.Timestamp != nil {
			return cqlerr.Invalidf("Timestamp must be set either on BATCH or individual statements")
		}
		if m.Table.IsCounter {
			counters = true
		} else {
			nonCounters = true
		}
	}
	switch {
	case b.Timestamp != nil && counters:
		return cqlerr.Invalidf("Cannot provide custom timestamp for a BATCH containing counters")
	case b.Type == ast.BatchCounter && nonCounters:
		return cqlerr.Invalidf("Cannot include non-counter statement in a counter batch")
	case counters && nonCounters:
		return cqlerr.Invalidf("Counter and non-counter mutations cannot exist in the same batch")
	case b.Type == ast.BatchLogged && counters:
		return cqlerr.Invalidf("Cannot include a counter statement in a logged batch")
	}
	if conditional {
		for _, m := range b.Statements {
			if first := b.Statements[0].Table; m.Table.Keyspace != first.Keyspace || m.Table.Name != first.Name {
				return cqlerr.Invalidf("Batch with conditions cannot span multiple tables")
			}
		}
	}
	return nil
}

// CheckBatchStatement applies, as statement m joins b, the rules of
// ValidateBatch that the statements so far already decide: a non-counter
// statement in a COUNTER batch, or counter and non-counter statements
// together. The others depend on the whole batch; ValidateBatch checks them
// before the batch runs.
func CheckBatchStatement(b *Batch, m *Modify) error {
	if b.Timestamp != nil {
		return nil
	}
	if b.Type == ast.BatchCounter && !m.Table.IsCounter {
		return cqlerr.Invalidf("Cannot include non-counter statement in a counter batch")
	}
	for _, other := range b.Statements {
		if other.Table.IsCounter != m.Table.IsCounter {
			return cqlerr.Invalidf("Counter and non-counter mutations cannot exist in the same batch")
		}
	}
	return nil
}
