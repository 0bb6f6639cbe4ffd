package plan

import (
	"strings"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/functions"
	"github.com/partita-db/partita/internal/types"
)

// column resolves a column name of t (TableMetadata.getExistingColumn).
func column(t *catalog.Table, name string) (*catalog.Column, error) {
	if c := t.Column(name); c != nil {
		return c, nil
	}
	return nil, cqlerr.Invalidf("Undefined column name %s in table %s", types.QuoteIdent(name), t.QualifiedName())
}

func columnReceiver(t *catalog.Table, c *catalog.Column) receiver {
	return receiver{Keyspace: t.Keyspace, Table: t.Name, Name: c.Name, Type: c.Type}
}

// toRestriction converts one relation (Relation.toRestriction).
func (b *binder) toRestriction(t *catalog.Table, rel ast.Relation) (*Restriction, error) {
	switch rel := rel.(type) {
	case *ast.SingleColumnRelation:
		return b.singleColumnRestriction(t, rel)
	case *ast.MultiColumnRelation:
		return b.multiColumnRestriction(t, rel)
	case *ast.TokenRelation:
		return b.tokenRestriction(t, rel)
	case *ast.MapElementRelation:
		return b.mapElementRestriction(t, rel)
	}
	return nil, cqlerr.Invalidf("Unsupported restriction: %s", rel)
}

func (b *binder) singleColumnRestriction(t *catalog.Table, rel *ast.SingleColumnRelation) (*Restriction, error) {
	c, err := column(t, rel.Column.Name)
	if err != nil {
		return nil, err
	}
	r := &Restriction{Columns: []*catalog.Column{c}, Text: rel.String()}
	recv := columnReceiver(t, c)
	switch rel.Op {
	case ast.OpLt, ast.OpLte, ast.OpGt, ast.OpGte:
		if err := checkSliceOnDuration(c.Type); err != nil {
			return nil, err
		}
	}
	switch rel.Op {
	case ast.OpEq, ast.OpIn, ast.OpLt, ast.OpLte, ast.OpGt, ast.OpGte, ast.OpLike:
		if err := validateRelationReceiver(c, rel.Op); err != nil {
			return nil, err
		}
	}
	switch rel.Op {
	case ast.OpEq:
		r.Kind = RestrictEQ
		r.Value, err = b.prepareTerm(rel.Value, recv)
	case ast.OpIn:
		// Cassandra 5.0 filters on IN over any column (4.1 refused it on
		// non-primary-key columns); an index looks up an IN only once it is
		// an EQ (one value).
		r.Kind = RestrictIN
		r.Values, err = b.prepareInValues(rel.Value, recv)
		inOfOne(r)
	case ast.OpLt, ast.OpLte, ast.OpGt, ast.OpGte:
		r.Kind = RestrictSlice
		var v *Term
		v, err = b.prepareTerm(rel.Value, recv)
		setSliceBound(r, rel.Op, v)
	case ast.OpContains:
		if !c.Type.IsCollection() {
			return nil, cqlerr.Invalidf("Cannot use CONTAINS on non-collection column %s", c.Name)
		}
		elem := c.Type.Elems[0]
		if c.Type.Kind == types.KindMap {
			elem = c.Type.Elems[1]
		}
		if err := validateRelationReceiver(c, rel.Op); err != nil {
			return nil, err
		}
		r.Kind = RestrictContains
		var v *Term
		v, err = b.prepareTerm(rel.Value, receiver{t.Keyspace, t.Name, "value(" + c.Name + ")", elem})
		r.Contains = []*Term{v}
	case ast.OpContainsKey:
		if c.Type.Kind != types.KindMap {
			return nil, cqlerr.Invalidf("Cannot use CONTAINS KEY on non-map column %s", c.Name)
		}
		if err := validateRelationReceiver(c, rel.Op); err != nil {
			return nil, err
		}
		r.Kind = RestrictContains
		var k *Term
		k, err = b.prepareTerm(rel.Value, receiver{t.Keyspace, t.Name, "key(" + c.Name + ")", c.Type.Elems[0]})
		r.ContainsKey = []*Term{k}
	case ast.OpNeq:
		return nil, cqlerr.Invalidf("Unsupported \"!=\" relation: %s", rel)
	case ast.OpLike:
		// The pattern is typed against the column before the missing index
		// is reported (SingleColumnRelation.newLikeRestriction).
		if _, err := b.prepareTerm(rel.Value, recv); err != nil {
			return nil, err
		}
		return nil, cqlerr.Invalidf("LIKE restriction is only supported on properly indexed columns. %s is not valid.", rel)
	default:
		return nil, cqlerr.Invalidf("Unsupported restriction: %s", rel)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// validateRelationReceiver refuses a relation on a whole non-frozen column
// (SingleColumnRelation.validateReceiver): a non-frozen UDT takes no
// relation at all, a non-frozen collection only CONTAINS (KEY) and map
// entry equality.
func validateRelationReceiver(c *catalog.Column, op ast.Operator) error {
	if !c.Type.IsMultiCell() {
		return nil
	}
	if c.Type.Kind == types.KindUDT {
		return cqlerr.Invalidf("Non-frozen UDT column '%s' (%s) cannot be restricted by any relation", c.Name, c.Type)
	}
	if op != ast.OpContains && op != ast.OpContainsKey {
		return cqlerr.Invalidf("Collection column '%s' (%s) cannot be restricted by a '%s' relation", c.Name, c.Type, operatorText(op))
	}
	return nil
}

// checkSliceOnDuration refuses a slice on a type that holds a duration,
// which has no order (SingleColumnRelation.newSliceRestriction).
func checkSliceOnDuration(t *types.Type) error {
	if !t.ReferencesDuration() {
		return nil
	}
	switch {
	case t.IsCollection():
		return cqlerr.Invalidf("Slice restrictions are not supported on collections containing durations")
	case t.IsTuple():
		return cqlerr.Invalidf("Slice restrictions are not supported on tuples containing durations")
	case t.IsUDT():
		return cqlerr.Invalidf("Slice restrictions are not supported on UDTs containing durations")
	}
	return cqlerr.Invalidf("Slice restrictions are not supported on duration columns")
}

// inOfOne turns an IN list of one value into the EQ it is
// (SingleColumnRelation and MultiColumnRelation newINRestriction); IN ?
// stays an IN, whatever the list bound to it.
func inOfOne(r *Restriction) {
	if r.Kind == RestrictIN && len(r.Values) == 1 && r.Values[0].Kind != TermBindList {
		r.Kind, r.Value, r.Values = RestrictEQ, r.Values[0], nil
	}
}

func setSliceBound(r *Restriction, op ast.Operator, v *Term) {
	n := len(r.Columns)
	switch op {
	case ast.OpGt:
		r.Start = Bound{Value: v, Size: n}
	case ast.OpGte:
		r.Start = Bound{Value: v, Inclusive: true, Size: n}
	case ast.OpLt:
		r.End = Bound{Value: v, Size: n}
	case ast.OpLte:
		r.End = Bound{Value: v, Inclusive: true, Size: n}
	}
}

// prepareInValues prepares the right side of IN: a list of terms, or one
// marker bound to a whole list (named in(c) as Cassandra names it).
func (b *binder) prepareInValues(e ast.Expr, recv receiver) ([]*Term, error) {
	switch e := e.(type) {
	case *ast.BindMarker:
		listRecv := receiver{recv.Keyspace, recv.Table, "in(" + recv.Name + ")", types.ListOf(recv.Type)}
		idx := b.add(e, listRecv)
		return []*Term{{Kind: TermBindList, Type: recv.Type, Bind: idx, Text: e.String()}}, nil
	case *ast.InList:
		out := make([]*Term, 0, len(e.Elems))
		for _, el := range e.Elems {
			v, err := b.prepareTerm(el, recv)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	return nil, cqlerr.Invalidf("Invalid IN value %s for %s", e, recv.Name)
}

func (b *binder) multiColumnRestriction(t *catalog.Table, rel *ast.MultiColumnRelation) (*Restriction, error) {
	cols := make([]*catalog.Column, 0, len(rel.Columns))
	seen := map[*catalog.Column]bool{}
	for _, id := range rel.Columns {
		c, err := column(t, id.Name)
		if err != nil {
			return nil, err
		}
		if c.Kind != catalog.Clustering {
			return nil, cqlerr.Invalidf("Multi-column relations can only be applied to clustering columns but was applied to: %s", c.Name)
		}
		if seen[c] {
			return nil, cqlerr.Invalidf("Column \"%s\" appeared twice in a relation: %s", c.Name, rel)
		}
		seen[c] = true
		cols = append(cols, c)
	}
	for i, c := range cols {
		if c.Position != cols[0].Position+i {
			return nil, cqlerr.Invalidf("Clustering columns must appear in the PRIMARY KEY order in multi-column relations: %s", rel)
		}
	}
	r := &Restriction{Columns: cols, Multi: true, Text: rel.String()}
	tt := tupleType(cols)
	recv := receiver{Keyspace: t.Keyspace, Table: t.Name, Name: "(" + r.columnNames() + ")", Type: tt}
	prepareTuple := func(e ast.Expr, recv receiver) (*Term, error) {
		if tl, ok := e.(*ast.TupleLiteral); ok && len(tl.Elems) != len(cols) {
			return nil, cqlerr.Invalidf("Expected %d elements in value tuple, but got %d: %s", len(cols), len(tl.Elems), e)
		} else if ok {
			// Each element is typed against its own column
			// (Tuples.Literal.prepare with the columns as receivers).
			out := &Term{Kind: TermTuple, Type: recv.Type, Text: e.String()}
			for i, el := range tl.Elems {
				v, err := b.prepareTerm(el, columnReceiver(t, cols[i]))
				if err != nil {
					return nil, err
				}
				out.Args = append(out.Args, v)
			}
			return out, nil
		}
		return b.prepareTerm(e, recv)
	}
	var err error
	switch rel.Op {
	case ast.OpEq:
		r.Kind = RestrictEQ
		r.Value, err = prepareTuple(rel.Value, recv)
	case ast.OpIn:
		r.Kind = RestrictIN
		if m, ok := rel.Value.(*ast.BindMarker); ok {
			idx := b.add(m, receiver{t.Keyspace, t.Name, "in(" + recv.Name + ")", types.ListOf(tt)})
			r.Values = []*Term{{Kind: TermBindList, Type: tt, Bind: idx, Text: m.String()}}
			break
		}
		list, ok := rel.Value.(*ast.InList)
		if !ok {
			return nil, cqlerr.Invalidf("Invalid IN value %s for %s", rel.Value, recv.Name)
		}
		for _, el := range list.Elems {
			v, err := prepareTuple(el, recv)
			if err != nil {
				return nil, err
			}
			r.Values = append(r.Values, v)
		}
		inOfOne(r)
	case ast.OpLt, ast.OpLte, ast.OpGt, ast.OpGte:
		r.Kind = RestrictSlice
		var v *Term
		v, err = prepareTuple(rel.Value, recv)
		setSliceBound(r, rel.Op, v)
	case ast.OpNeq:
		return nil, cqlerr.Invalidf("Unsupported \"!=\" relation: %s", rel)
	default:
		return nil, cqlerr.Invalidf("Unsupported restriction: %s", rel)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (b *binder) tokenRestriction(t *catalog.Table, rel *ast.TokenRelation) (*Restriction, error) {
	cols := make([]*catalog.Column, 0, len(rel.Columns))
	for _, id := range rel.Columns {
		c, err := column(t, id.Name)
		if err != nil {
			return nil, err
		}
		if c.Kind != catalog.PartitionKey {
			// Cassandra 5.0 gives one message for a token() over anything but
			// the whole partition key, as the reference node shows.
			return nil, cqlerr.Invalidf("The token() function must be applied to all partition key components or none of them")
		}
		cols = append(cols, c)
	}
	if len(cols) != len(t.PartitionKey) {
		return nil, cqlerr.Invalidf("The token() function must be applied to all partition key components or none of them")
	}
	for i, c := range cols {
		if c != t.PartitionKey[i] {
			names := make([]string, len(t.PartitionKey))
			for j, pk := range t.PartitionKey {
				names[j] = pk.Name
			}
			return nil, cqlerr.Invalidf("The token function arguments must be in the partition key order: %s", joinNames(names))
		}
	}
	r := &Restriction{Columns: cols, OnToken: true, Text: rel.String()}
	recv := receiver{Keyspace: t.Keyspace, Table: t.Name, Name: "partition key token", Type: types.Bigint}
	var v *Term
	var err error
	if call, ok := rel.Value.(*ast.FunctionCall); ok && strings.EqualFold(call.Name, "token") {
		v, err = b.prepareTokenCall(t, call)
	} else {
		v, err = b.prepareTerm(rel.Value, recv)
	}
	if err != nil {
		return nil, err
	}
	switch rel.Op {
	case ast.OpEq:
		r.Kind, r.Value = RestrictEQ, v
	case ast.OpLt, ast.OpLte, ast.OpGt, ast.OpGte:
		r.Kind = RestrictSlice
		setSliceBound(r, rel.Op, v)
	default:
		return nil, cqlerr.Invalidf("Unsupported restriction: %s", rel)
	}
	return r, nil
}

func (b *binder) mapElementRestriction(t *catalog.Table, rel *ast.MapElementRelation) (*Restriction, error) {
	c, err := column(t, rel.Column.Name)
	if err != nil {
		return nil, err
	}
	if c.Type.Kind != types.KindMap {
		return nil, cqlerr.Invalidf("Column %s cannot be used as a map", c.Name)
	}
	if !c.Type.IsMultiCell() {
		return nil, cqlerr.Invalidf("Map-entry equality predicates on frozen map column %s are not supported", c.Name)
	}
	switch rel.Op {
	case ast.OpEq:
	case ast.OpLt, ast.OpLte, ast.OpGt, ast.OpGte:
		if err := checkSliceOnDuration(c.Type); err != nil {
			return nil, err
		}
		return nil, cqlerr.Invalidf("Only EQ relations are supported on map entries")
	default:
		return nil, cqlerr.Invalidf("Unsupported \"%s\" relation: %s", operatorText(rel.Op), rel)
	}
	k, err := b.prepareTerm(rel.Key, receiver{t.Keyspace, t.Name, "key(" + c.Name + ")", c.Type.Elems[0]})
	if err != nil {
		return nil, err
	}
	v, err := b.prepareTerm(rel.Value, receiver{t.Keyspace, t.Name, "value(" + c.Name + ")", c.Type.Elems[1]})
	if err != nil {
		return nil, err
	}
	return &Restriction{Kind: RestrictMapEQ, Columns: []*catalog.Column{c}, MapKey: k, Value: v, Text: rel.String()}, nil
}

func joinNames(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}

// prepareTokenCall types token(v1, ...) as a term: its arguments take the
// partition key columns' types.
func (b *binder) prepareTokenCall(t *catalog.Table, call *ast.FunctionCall) (*Term, error) {
	if len(call.Args) != len(t.PartitionKey) {
		return nil, cqlerr.Invalidf("Invalid number of arguments in call to function system.token: %d required but %d provided", len(t.PartitionKey), len(call.Args))
	}
	pkTypes := make([]*types.Type, len(t.PartitionKey))
	args := make([]*Term, len(call.Args))
	for i, c := range t.PartitionKey {
		pkTypes[i] = c.Type
		a, err := b.prepareTerm(call.Args[i], columnReceiver(t, c))
		if err != nil {
			return nil, err
		}
		args[i] = a
	}
	return &Term{Kind: TermFunc, Type: types.Bigint, Func: functions.Token(pkTypes), Args: args, Text: call.String()}, nil
}
