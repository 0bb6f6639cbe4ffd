package plan

import (
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/types"
)

// The IF clause of an UPDATE or DELETE is checked in Cassandra's order
// (ModificationStatement.Parsed.prepare): the conditions are prepared
// first (planConditions), then the operations and the WHERE clause, whose
// static-only rule depends on the conditions (appliesOnlyToStatic); then
// come the checks that need the whole statement (checkConditional), and
// at execution, once the partition keys are built and validated, the
// refusal of IN on the keys (exec).

// planConditions prepares the column conditions of an UPDATE or DELETE
// (ModificationStatement.Parsed.prepareColumnConditions).
func (p *planner) planConditions(m *Modify, conds []ast.Condition) error {
	if len(conds) == 0 {
		return nil
	}
	if m.Timestamp != nil {
		return cqlerr.Invalidf("Cannot provide custom timestamp for conditional updates")
	}
	for _, c := range conds {
		cond, err := p.planCondition(m.Table, c)
		if err != nil {
			return err
		}
		m.Conditions = append(m.Conditions, cond)
	}
	return nil
}

// appliesOnlyToStatic reports whether an UPDATE or DELETE touches the
// static row alone: no operation or condition on a regular column (a
// DELETE of whole rows is one) and some on a static column
// (ModificationStatement.appliesOnlyToStaticColumns). Such a statement
// needs no clustering key and may not restrict one.
func appliesOnlyToStatic(m *Modify) bool {
	if m.Kind == Delete && len(m.Operations) == 0 {
		return false
	}
	static := false
	for _, op := range m.Operations {
		if op.Column.Kind != catalog.Static {
			return false
		}
		static = true
	}
	for _, c := range m.Conditions {
		if c.Column.Kind != catalog.Static {
			return false
		}
		static = true
	}
	return static
}

// hasRegularOperation reports whether m writes or deletes a regular column
// (Operations.appliesToRegularColumns: a DELETE of whole rows does).
func hasRegularOperation(m *Modify) bool {
	if m.Kind == Delete && len(m.Operations) == 0 {
		return true
	}
	for _, op := range m.Operations {
		if op.Column.Kind != catalog.Static {
			return true
		}
	}
	return false
}

// checkConditional applies the rules of a conditional UPDATE or DELETE
// that need the whole statement (the ModificationStatement constructor,
// then DeleteStatement.Parsed.prepareInternal).
func checkConditional(m *Modify) error {
	if !m.IsConditional() {
		return nil
	}
	t := m.Table
	if t.IsCounter {
		return cqlerr.Invalidf("Conditional updates are not supported on counter tables")
	}
	if m.Timestamp != nil {
		return cqlerr.Invalidf("Cannot provide custom timestamp for conditional updates")
	}
	if m.Kind != Delete || len(t.Clustering) == 0 || fullClustering(m) {
		return nil
	}
	if hasRegularOperation(m) {
		return cqlerr.Invalidf("DELETE statements must restrict all PRIMARY KEY columns with equality relations in order to delete non static columns")
	}
	for _, c := range m.Conditions {
		if c.Column.Kind != catalog.Static {
			return cqlerr.Invalidf("DELETE statements must restrict all PRIMARY KEY columns with equality relations in order to use IF condition on non static columns")
		}
	}
	return nil
}

func (p *planner) planCondition(t *catalog.Table, c ast.Condition) (Condition, error) {
	col, err := column(t, c.Column.Name)
	if err != nil {
		return Condition{}, err
	}
	if col.Type.IsCounter() {
		return Condition{}, cqlerr.Invalidf("Conditions on counters are not supported")
	}
	cond, err := p.prepareCondition(t, col, c)
	if err == nil && col.IsPrimaryKey() {
		// Checked once the condition is prepared
		// (ModificationStatement.Parsed.prepareColumnConditions).
		err = cqlerr.Invalidf("PRIMARY KEY column '%s' cannot have IF conditions", col.Name)
	}
	return cond, err
}

// prepareCondition types one condition on col (ColumnCondition.Raw.prepare).
func (p *planner) prepareCondition(t *catalog.Table, col *catalog.Column, c ast.Condition) (Condition, error) {
	var err error
	cond := Condition{Column: col, Op: c.Op, Field: -1}
	recv := columnReceiver(t, col)
	switch {
	case c.Key != nil:
		var keyType *types.Type
		switch col.Type.Kind {
		case types.KindList:
			keyType, recv.Type = types.Int, col.Type.Elems[0]
		case types.KindMap:
			keyType, recv.Type = col.Type.Elems[0], col.Type.Elems[1]
		case types.KindSet:
			return Condition{}, cqlerr.Invalidf("Invalid element access syntax for set column %s", col.Name)
		default:
			return Condition{}, cqlerr.Invalidf("Invalid element access syntax for non-collection column %s", col.Name)
		}
		if cond.Key, err = p.binder.prepareTerm(c.Key, receiver{t.Keyspace, t.Name, "key(" + col.Name + ")", keyType}); err != nil {
			return Condition{}, err
		}
		recv.Name = "value(" + col.Name + ")"
	case c.Field != nil:
		if col.Type.Kind != types.KindUDT {
			return Condition{}, cqlerr.Invalidf("Invalid field selection: %s of type %s is not a user type", col.Name, col.Type)
		}
		cond.Field = col.Type.FieldIndex(c.Field.Name)
		if cond.Field < 0 {
			return Condition{}, cqlerr.Invalidf("Unknown field %s for column %s", c.Field.Name, col.Name)
		}
		recv.Type, recv.Name = col.Type.Elems[cond.Field], col.Name+"."+c.Field.Name
	}
	if err := checkDurationSlice(c.Op, recv.Type); err != nil {
		return Condition{}, err
	}
	switch c.Op {
	case ast.OpIn:
		cond.Values, err = p.binder.prepareInValues(c.Value, recv)
	case ast.OpContains, ast.OpContainsKey:
		if c.Op == ast.OpContainsKey && recv.Type.Kind != types.KindMap {
			return Condition{}, cqlerr.Invalidf("Cannot use %s on non-map column %s", c.Op, col.Name)
		}
		if !recv.Type.IsCollection() {
			return Condition{}, cqlerr.Invalidf("Cannot use %s on non-collection column %s", c.Op, col.Name)
		}
		elem := recv.Type.Elems[len(recv.Type.Elems)-1]
		if c.Op == ast.OpContainsKey {
			elem = recv.Type.Elems[0]
		}
		cond.Value, err = p.binder.prepareTerm(c.Value, receiver{t.Keyspace, t.Name, "value(" + col.Name + ")", elem})
	case ast.OpEq, ast.OpNeq, ast.OpLt, ast.OpLte, ast.OpGt, ast.OpGte:
		cond.Value, err = p.binder.prepareTerm(c.Value, recv)
	default:
		return Condition{}, cqlerr.Invalidf("Unsupported operator %s in IF condition", c.Op)
	}
	return cond, err
}

// checkDurationSlice refuses an ordering condition on a value that is or
// holds a duration, which has no order
// (ColumnCondition.Raw.validateOperationOnDurations).
func checkDurationSlice(op ast.Operator, t *types.Type) error {
	switch op {
	case ast.OpLt, ast.OpLte, ast.OpGt, ast.OpGte:
	default:
		return nil
	}
	switch {
	case !t.ReferencesDuration():
		return nil
	case t.IsCollection():
		return cqlerr.Invalidf("Slice conditions are not supported on collections containing durations")
	case t.IsTuple():
		return cqlerr.Invalidf("Slice conditions are not supported on tuples containing durations")
	case t.IsUDT():
		return cqlerr.Invalidf("Slice conditions are not supported on UDTs containing durations")
	}
	return cqlerr.Invalidf("Slice conditions ( %s ) are not supported on durations", op)
}
