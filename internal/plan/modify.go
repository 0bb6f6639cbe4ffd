package plan

import (
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/types"
)

// ModifyKind is INSERT, UPDATE or DELETE.
type ModifyKind uint8

const (
	Insert ModifyKind = iota
	Update
	Delete
)

func (k ModifyKind) String() string {
	return [...]string{"INSERT", "UPDATE", "DELETE"}[k]
}

// OpKind is what an operation does to a column.
type OpKind uint8

const (
	OpSet           OpKind = iota // c = v (INSERT values too)
	OpSetElement                  // c[k] = v
	OpSetField                    // c.f = v
	OpAdd                         // c = c + v: append, set union, map put, counter increment
	OpPrepend                     // c = v + c
	OpSubtract                    // c = c - v: list/set removal, map key removal, counter decrement
	OpDelete                      // DELETE c
	OpDeleteElement               // DELETE c[k]
	OpDeleteField                 // DELETE c.f
)

// Operation is one column change of a modification statement.
type Operation struct {
	Kind   OpKind
	Column *catalog.Column
	Key    *Term
	Field  int
	Value  *Term
}

// Modify is a planned INSERT, UPDATE or DELETE.
type Modify struct {
	Kind  ModifyKind
	Table *catalog.Table
	Vars  []BindVar
	// PartitionKey holds each partition key column's EQ or IN values.
	PartitionKey [][]*Term
	// Clustering restricts the rows (EQ/IN on a prefix, then, for DELETE,
	// possibly a slice); for INSERT every clustering column has one EQ.
	Clustering []*Restriction
	Operations []Operation
	TTL        *Term
	Timestamp  *Term
	// RowMarker: INSERT writes the row's liveness.
	RowMarker bool
	// StaticOnly: only static columns are written (no clustering needed).
	StaticOnly bool
	// DeleteRows: a DELETE without columns removes rows (or the partition
	// when Clustering is empty).
	DeleteRows  bool
	IfNotExists bool
	IfExists    bool
	Conditions  []Condition
	// JSON is INSERT JSON's value (text); its columns are known only when
	// it is evaluated. JSONDefaultUnset leaves absent columns untouched
	// instead of nulling them.
	JSON             *Term
	JSONDefaultUnset bool
	// Views are the base table's materialized views, kept in step by
	// every write (catalog.ViewDef).
	Views []*catalog.Table
}

// NeedsRead reports whether executing m reads the current data first: a
// lightweight transaction, a counter update, or a list operation by index
// or by value.
func (m *Modify) NeedsRead() bool {
	if m.IsConditional() || m.Table.IsCounter {
		return true
	}
	for _, op := range m.Operations {
		if op.Column.Type.Kind == types.KindList && op.Column.Type.IsMultiCell() &&
			(op.Kind == OpSetElement || op.Kind == OpDeleteElement || op.Kind == OpSubtract) {
			return true
		}
	}
	return false
}

// IsConditional reports whether m has an IF clause.
func (m *Modify) IsConditional() bool {
	return m.IfExists || m.IfNotExists || len(m.Conditions) > 0
}

// Condition is one IF condition of a lightweight transaction.
type Condition struct {
	Column *catalog.Column
	Key    *Term
	Field  int
	Op     ast.Operator
	Value  *Term
	Values []*Term // IN
}

func (p *planner) planUsing(t *catalog.Table, u ast.UsingClause, m *Modify) error {
	var err error
	if u.TTL != nil {
		if m.TTL, err = p.binder.prepareTerm(u.TTL, receiver{t.Keyspace, t.Name, "[ttl]", types.Int}); err != nil {
			return err
		}
	}
	if u.Timestamp != nil {
		if m.Timestamp, err = p.binder.prepareTerm(u.Timestamp, receiver{t.Keyspace, t.Name, "[timestamp]", types.Bigint}); err != nil {
			return err
		}
	}
	return nil
}

// checkCounterAttributes refuses USING TIMESTAMP or TTL on a counter
// update; Cassandra checks it last, once the statement is prepared
// (ModificationStatement.validate).
func checkCounterAttributes(m *Modify) error {
	if !m.Table.IsCounter {
		return nil
	}
	if m.Timestamp != nil {
		return cqlerr.Invalidf("Cannot provide custom timestamp for counter updates")
	}
	if m.TTL != nil {
		return cqlerr.Invalidf("Cannot provide custom TTL for counter updates")
	}
	return nil
}

func (p *planner) planInsert(stmt *ast.Insert) (*Modify, error) {
	t, err := p.table(stmt.Table)
	if err != nil {
		return nil, err
	}
	if t.Virtual || catalog.IsSystemKeyspace(t.Keyspace) {
		return nil, cqlerr.New(cqlerr.Unauthorized, "%s keyspace is not user-modifiable.", t.Keyspace)
	}
	if t.IsCounter {
		return nil, cqlerr.Invalidf("INSERT statements are not allowed on counter tables, use UPDATE instead")
	}
	if stmt.Json != nil {
		return p.planInsertJSON(t, stmt)
	}
	if len(stmt.Columns) != len(stmt.Values) {
		return nil, cqlerr.Invalidf("Unmatched column names/values")
	}
	m := &Modify{Kind: Insert, Table: t, RowMarker: true, IfNotExists: stmt.IfNotExists}
	if err := p.planUsing(t, stmt.Using, m); err != nil {
		return nil, err
	}
	if m.IfNotExists && m.Timestamp != nil {
		return nil, cqlerr.Invalidf("Cannot provide custom timestamp for conditional updates")
	}
	seen := map[*catalog.Column]bool{}
	keyValues := map[*catalog.Column]*Term{}
	for i, id := range stmt.Columns {
		c, err := column(t, id.Name)
		if err != nil {
			return nil, err
		}
		if seen[c] {
			return nil, cqlerr.Invalidf("Multiple definitions found for column %s", c.Name)
		}
		seen[c] = true
		v, err := p.binder.prepareTerm(stmt.Values[i], columnReceiver(t, c))
		if err != nil {
			return nil, err
		}
		if c.IsPrimaryKey() {
			keyValues[c] = v
			continue
		}
		m.Operations = append(m.Operations, Operation{Kind: OpSet, Column: c, Value: v})
	}
	var missing []string
	for _, c := range t.PartitionKey {
		if keyValues[c] == nil {
			missing = append(missing, c.Name)
		}
		m.PartitionKey = append(m.PartitionKey, []*Term{keyValues[c]})
	}
	if len(missing) > 0 {
		return nil, cqlerr.Invalidf("Some partition key parts are missing: %s", joinNames(missing))
	}
	m.StaticOnly = onlyStatic(m.Operations) && len(t.Clustering) > 0
	for _, c := range t.Clustering {
		v := keyValues[c]
		if v == nil {
			missing = append(missing, c.Name)
			continue
		}
		m.Clustering = append(m.Clustering, &Restriction{Kind: RestrictEQ, Columns: []*catalog.Column{c}, Value: v})
	}
	if len(missing) > 0 && !(m.StaticOnly && len(m.Clustering) == 0) {
		return nil, cqlerr.Invalidf("Some clustering keys are missing: %s", joinNames(missing))
	}
	if m.StaticOnly && len(m.Clustering) == 0 {
		m.RowMarker = false
	}
	m.Vars = p.binder.vars
	return m, nil
}

func onlyStatic(ops []Operation) bool {
	if len(ops) == 0 {
		return false
	}
	for _, op := range ops {
		if op.Column.Kind != catalog.Static {
			return false
		}
	}
	return true
}

// planKeys analyses the WHERE clause of an UPDATE or DELETE.
func (p *planner) planKeys(m *Modify, rels []ast.Relation, stmt statementType) error {
	w, err := p.binder.analyseWhere(m.Table, rels, stmt, false)
	if err != nil {
		return err
	}
	if err := w.processPartitionKey(); err != nil {
		return err
	}
	if err := w.processClustering(m.StaticOnly); err != nil {
		return err
	}
	if err := w.processNonPrimaryKey(); err != nil {
		return err
	}
	for _, c := range m.Table.PartitionKey {
		r := w.pk[c.Name]
		if r.isEQ() {
			m.PartitionKey = append(m.PartitionKey, []*Term{r.Value})
		} else {
			m.PartitionKey = append(m.PartitionKey, r.Values)
		}
	}
	m.Clustering = w.clustering
	return nil
}

func (p *planner) modifiable(name ast.QualifiedName) (*catalog.Table, error) {
	t, err := p.table(name)
	if err != nil {
		return nil, err
	}
	if t.Virtual || catalog.IsSystemKeyspace(t.Keyspace) {
		return nil, cqlerr.New(cqlerr.Unauthorized, "%s keyspace is not user-modifiable.", t.Keyspace)
	}
	return t, nil
}

func (p *planner) planUpdate(stmt *ast.Update) (*Modify, error) {
	t, err := p.modifiable(stmt.Table)
	if err != nil {
		return nil, err
	}
	m := &Modify{Kind: Update, Table: t, IfExists: stmt.IfExists}
	if err := p.planUsing(t, stmt.Using, m); err != nil {
		return nil, err
	}
	// The IF clause is prepared before the rest, as Cassandra does.
	if err := p.planConditions(m, stmt.Conditions); err != nil {
		return nil, err
	}
	for _, a := range stmt.Assignments {
		op, err := p.planAssignment(t, a)
		if err != nil {
			return nil, err
		}
		m.Operations = append(m.Operations, op)
	}
	m.StaticOnly = appliesOnlyToStatic(m)
	if err := p.planKeys(m, stmt.Where, stmtUpdate); err != nil {
		return nil, err
	}
	if err := checkConditional(m); err != nil {
		return nil, err
	}
	if err := checkCounterAttributes(m); err != nil {
		return nil, err
	}
	m.Vars = p.binder.vars
	return m, nil
}

func (p *planner) planDelete(stmt *ast.Delete) (*Modify, error) {
	t, err := p.modifiable(stmt.Table)
	if err != nil {
		return nil, err
	}
	m := &Modify{Kind: Delete, Table: t, IfExists: stmt.IfExists}
	if stmt.Using.TTL != nil {
		return nil, cqlerr.Invalidf("TTL attribute is not allowed for deletes")
	}
	if err := p.planUsing(t, stmt.Using, m); err != nil {
		return nil, err
	}
	// The IF clause is prepared before the rest, as Cassandra does.
	if err := p.planConditions(m, stmt.Conditions); err != nil {
		return nil, err
	}
	for _, target := range stmt.Columns {
		op, err := p.planDeleteTarget(t, target)
		if err != nil {
			return nil, err
		}
		m.Operations = append(m.Operations, op)
	}
	m.DeleteRows = len(m.Operations) == 0
	m.StaticOnly = appliesOnlyToStatic(m)
	if err := p.planKeys(m, stmt.Where, stmtDelete); err != nil {
		return nil, err
	}
	if err := checkConditional(m); err != nil {
		return nil, err
	}
	if err := checkCounterAttributes(m); err != nil {
		return nil, err
	}
	// A range deletion of specific columns is refused at execution
	// (exec: refuseColumnRangeDeletion).
	m.Vars = p.binder.vars
	return m, nil
}

// fullClustering reports whether every clustering column has EQ or IN.
func fullClustering(m *Modify) bool {
	n := 0
	for _, r := range m.Clustering {
		if r.isSlice() {
			return false
		}
		n += len(r.Columns)
	}
	return n == len(m.Table.Clustering)
}

func (p *planner) planDeleteTarget(t *catalog.Table, target ast.DeleteTarget) (Operation, error) {
	c, err := column(t, target.Column.Name)
	if err != nil {
		return Operation{}, err
	}
	if c.IsPrimaryKey() {
		return Operation{}, cqlerr.Invalidf("Invalid identifier %s for deletion (should not be a PRIMARY KEY part)", c.Name)
	}
	switch {
	case target.Key != nil:
		return p.elementOperation(t, c, target.Key, nil, OpDeleteElement)
	case target.Field != nil:
		return fieldOperation(c, target.Field.Name, nil, OpDeleteField)
	}
	return Operation{Kind: OpDelete, Column: c}, nil
}

func fieldOperation(c *catalog.Column, field string, v *Term, kind OpKind) (Operation, error) {
	if c.Type.Kind != types.KindUDT {
		return Operation{}, cqlerr.Invalidf("Invalid field deletion operation for non-UDT column %s", c.Name)
	}
	if !c.Type.IsMultiCell() {
		return Operation{}, cqlerr.Invalidf("Frozen UDT column %s does not support field deletion", c.Name)
	}
	i := c.Type.FieldIndex(field)
	if i < 0 {
		return Operation{}, cqlerr.Invalidf("UDT column %s does not have a field named %s", c.Name, field)
	}
	return Operation{Kind: kind, Column: c, Field: i, Value: v}, nil
}

// elementOperation builds c[k] = v or DELETE c[k].
func (p *planner) elementOperation(t *catalog.Table, c *catalog.Column, key ast.Expr, value ast.Expr, kind OpKind) (Operation, error) {
	// Operation.SetElement and ElementDeletion print the operation as
	// "c[k] = v"; a deletion names no operation.
	text := c.Name + "[" + key.String() + "]"
	if value != nil {
		text += " = " + value.String()
	}
	isCollection := c.Type.Kind == types.KindList || c.Type.Kind == types.KindMap || c.Type.Kind == types.KindSet
	switch {
	case !isCollection && kind == OpDeleteElement:
		return Operation{}, cqlerr.Invalidf("Invalid deletion operation for non collection column %s", c.Name)
	case !isCollection:
		return Operation{}, cqlerr.Invalidf("Invalid operation (%s) for non collection column %s", text, c.Name)
	case !c.Type.IsMultiCell() && kind == OpDeleteElement:
		return Operation{}, cqlerr.Invalidf("Invalid deletion operation for frozen collection column %s", c.Name)
	case !c.Type.IsMultiCell():
		return Operation{}, cqlerr.Invalidf("Invalid operation (%s) for frozen collection column %s", text, c.Name)
	}
	op := Operation{Kind: kind, Column: c}
	var keyType, valueType *types.Type
	keyName := "idx(" + c.Name + ")"
	switch c.Type.Kind {
	case types.KindList:
		keyType, valueType = types.Int, c.Type.Elems[0]
	case types.KindMap:
		keyType, valueType, keyName = c.Type.Elems[0], c.Type.Elems[1], "key("+c.Name+")"
	case types.KindSet:
		if kind == OpSetElement {
			return Operation{}, cqlerr.Invalidf("Invalid operation (%s) for set column %s", text, c.Name)
		}
		keyType, keyName = c.Type.Elems[0], "value("+c.Name+")"
	}
	var err error
	if op.Key, err = p.binder.prepareTerm(key, receiver{t.Keyspace, t.Name, keyName, keyType}); err != nil {
		return Operation{}, err
	}
	if value != nil {
		if op.Value, err = p.binder.prepareTerm(value, receiver{t.Keyspace, t.Name, "value(" + c.Name + ")", valueType}); err != nil {
			return Operation{}, err
		}
	}
	return op, nil
}

func (p *planner) planAssignment(t *catalog.Table, a ast.Assignment) (Operation, error) {
	c, err := column(t, a.Column.Name)
	if err != nil {
		return Operation{}, err
	}
	if c.IsPrimaryKey() {
		return Operation{}, cqlerr.Invalidf("PRIMARY KEY part %s found in SET part", c.Name)
	}
	switch {
	case a.Key != nil:
		return p.elementOperation(t, c, a.Key, a.Value, OpSetElement)
	case a.Field != nil:
		if c.Type.Kind != types.KindUDT {
			return Operation{}, cqlerr.Invalidf("Invalid operation (%s.%s = %s) for non-UDT column %s", c.Name, a.Field.Name, a.Value, c.Name)
		}
		i := c.Type.FieldIndex(a.Field.Name)
		if i < 0 {
			return Operation{}, cqlerr.Invalidf("UDT column %s does not have a field named %s", c.Name, a.Field.Name)
		}
		if !c.Type.IsMultiCell() {
			return Operation{}, cqlerr.Invalidf("Invalid operation (%s.%s = %s) for frozen UDT column %s", c.Name, a.Field.Name, a.Value, c.Name)
		}
		v, err := p.binder.prepareTerm(a.Value, receiver{t.Keyspace, t.Name, c.Name + "." + a.Field.Name, c.Type.Elems[i]})
		return Operation{Kind: OpSetField, Column: c, Field: i, Value: v}, err
	}
	return p.planSetAssignment(t, c, a)
}

func (p *planner) planSetAssignment(t *catalog.Table, c *catalog.Column, a ast.Assignment) (Operation, error) {
	recv := columnReceiver(t, c)
	switch a.Op {
	case ast.AssignSet:
		if c.Type.IsCounter() {
			return Operation{}, cqlerr.Invalidf("Cannot set the value of counter column %s (counters can only be incremented/decremented, not set)", c.Name)
		}
		v, err := p.binder.prepareTerm(a.Value, recv)
		return Operation{Kind: OpSet, Column: c, Value: v}, err
	case ast.AssignAdd, ast.AssignSub, ast.AssignPrepend:
		kind := map[ast.AssignOp]OpKind{ast.AssignAdd: OpAdd, ast.AssignSub: OpSubtract, ast.AssignPrepend: OpPrepend}[a.Op]
		if kind == OpPrepend {
			return p.prependOperation(c, a, recv)
		}
		switch {
		case c.Type.IsCounter():
			// The column is the receiver (Operation.Addition.prepare): a
			// literal reads as a long, an operation must return a counter.
			v, err := p.binder.prepareTerm(a.Value, receiver{t.Keyspace, t.Name, c.Name, types.Counter})
			return Operation{Kind: kind, Column: c, Value: v}, err
		case c.Type.IsCollection() && c.Type.IsMultiCell():
			valueRecv := recv
			if kind == OpSubtract && c.Type.Kind == types.KindMap {
				valueRecv.Type = types.SetOf(c.Type.Elems[0])
			}
			v, err := p.binder.prepareTerm(a.Value, valueRecv)
			if err != nil && c.Type.Kind == types.KindMap && cqlerr.Is(err, cqlerr.Invalid) {
				// Operation.Addition and Substraction word any error of a
				// map operand as the operand's shape.
				if kind == OpSubtract {
					return Operation{}, cqlerr.Invalidf("Value for a map substraction has to be a set, but was: '%s'", a.Value)
				}
				return Operation{}, cqlerr.Invalidf("Value for a map addition has to be a map, but was: '%s'", a.Value)
			}
			return Operation{Kind: kind, Column: c, Value: v}, err
		case c.Type.IsCollection():
			return Operation{}, cqlerr.Invalidf("Invalid operation (%s) for frozen collection column %s", a, c.Name)
		}
		if kind == OpAdd && (c.Type.Kind == types.KindTuple || c.Type.Kind == types.KindUDT) {
			// A user type is a tuple type to Operation.Addition.prepare.
			return Operation{}, cqlerr.Invalidf("Invalid operation (%s) for tuple column %s", a, c.Name)
		}
		return Operation{}, cqlerr.Invalidf("Invalid operation (%s) for non counter column %s", a, c.Name)
	}
	return Operation{}, cqlerr.Invalidf("Invalid operation (%s)", a)
}

// prependOperation builds c = v + c (Operation.Prepend): the value is
// prepared against the column first, then the column must be a non-frozen
// list. Cassandra 5.0 prints the operation with '-' for '+' in its errors.
func (p *planner) prependOperation(c *catalog.Column, a ast.Assignment, recv receiver) (Operation, error) {
	text := c.Name + " = " + a.Value.String() + " - " + c.Name
	if !c.Type.IsCounter() {
		if _, err := p.binder.prepareTerm(a.Value, recv); err != nil {
			return Operation{}, err
		}
	}
	switch {
	case c.Type.Kind != types.KindList:
		return Operation{}, cqlerr.Invalidf("Invalid operation (%s) for non list column %s", text, c.Name)
	case !c.Type.IsMultiCell():
		return Operation{}, cqlerr.Invalidf("Invalid operation (%s) for frozen list column %s", text, c.Name)
	}
	v, err := p.binder.prepareTerm(a.Value, recv)
	return Operation{Kind: OpPrepend, Column: c, Value: v}, err
}

func (p *planner) planInsertJSON(t *catalog.Table, stmt *ast.Insert) (*Modify, error) {
	m := &Modify{Kind: Insert, Table: t, RowMarker: true, IfNotExists: stmt.IfNotExists, JSONDefaultUnset: stmt.DefaultUnset}
	if err := p.planUsing(t, stmt.Using, m); err != nil {
		return nil, err
	}
	if m.IfNotExists && m.Timestamp != nil {
		return nil, cqlerr.Invalidf("Cannot provide custom timestamp for conditional updates")
	}
	v, err := p.binder.prepareTerm(stmt.Json, receiver{t.Keyspace, t.Name, "[json]", types.Text})
	if err != nil {
		return nil, err
	}
	m.JSON = v
	m.Vars = p.binder.vars
	return m, nil
}

// ResolveJSON returns the plain INSERT that an INSERT JSON statement
// becomes once its JSON text is known (Json.java: every column absent from
// the object is set to null, or left alone with DEFAULT UNSET).
func (m *Modify) ResolveJSON(text []byte) (*Modify, error) {
	values, err := types.ParseJSONRow(string(text))
	if err != nil {
		return nil, err
	}
	t := m.Table
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	if err := types.CheckJSONRowColumns(values, names); err != nil {
		return nil, err
	}
	out := *m
	out.JSON, out.Operations, out.PartitionKey, out.Clustering = nil, nil, nil, nil
	constant := func(c *catalog.Column) (*Term, bool, error) {
		raw, ok := values[c.Name]
		if !ok {
			return &Term{Kind: TermConst, Type: c.Type}, false, nil
		}
		v, err := types.FromJSON(c.Type, raw)
		if err != nil {
			return nil, true, types.JSONColumnError(err, c.Name)
		}
		return &Term{Kind: TermConst, Type: c.Type, Value: v}, true, nil
	}
	for _, c := range t.Columns {
		v, present, err := constant(c)
		if err != nil {
			return nil, err
		}
		switch c.Kind {
		case catalog.PartitionKey:
			out.PartitionKey = append(out.PartitionKey, []*Term{v})
		case catalog.Clustering:
			out.Clustering = append(out.Clustering, &Restriction{Kind: RestrictEQ, Columns: []*catalog.Column{c}, Value: v})
		default:
			if present || !m.JSONDefaultUnset {
				out.Operations = append(out.Operations, Operation{Kind: OpSet, Column: c, Value: v})
			}
		}
	}
	return &out, nil
}
