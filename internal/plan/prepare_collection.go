package plan

import (
	"errors"

	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/types"
)

func elementReceiver(recv receiver, name string, t *types.Type) receiver {
	return receiver{Keyspace: recv.Keyspace, Table: recv.Table, Name: name + "(" + recv.Name + ")", Type: t}
}

// checkElement rejects what Cassandra rejects inside the collection
// literal (what: "list", "set" or "map") for recv: bind markers, which
// Cassandra 5.0 refuses when preparing the literal, and null.
func checkElement(t *Term, what string, recv receiver) error {
	if t.HasBind() {
		return cqlerr.Invalidf("Invalid %s literal for %s: bind variables are not supported inside collection literals", what, recv.Name)
	}
	if t.IsNullConst() {
		return cqlerr.Invalidf("null is not supported inside collections")
	}
	return nil
}

func (b *binder) prepareList(e *ast.ListLiteral, recv receiver) (*Term, error) {
	if recv.Type.Kind != types.KindList {
		// ArrayLiteral (Cassandra 5.0) takes lists and vectors only, so []
		// is not the empty set any more.
		return nil, cqlerr.Invalidf("Unexpected receiver type '%s'; only list and vector are expected", recv.Type)
	}
	if err := checkAssignable("list", "value", e.Elems, recv.Type.Elems[0], recv); err != nil {
		return nil, err
	}
	out := &Term{Kind: TermList, Type: recv.Type, Text: e.String()}
	er := elementReceiver(recv, "value", recv.Type.Elems[0])
	for _, el := range e.Elems {
		t, err := b.prepareTerm(el, er)
		if err != nil {
			return nil, err
		}
		if err := checkElement(t, "list", recv); err != nil {
			return nil, err
		}
		out.Args = append(out.Args, t)
	}
	return out, nil
}

func (b *binder) prepareSet(elems []ast.Expr, e ast.Expr, recv receiver) (*Term, error) {
	switch {
	case recv.Type.Kind == types.KindMap && len(elems) == 0:
		return &Term{Kind: TermMap, Type: recv.Type, Text: e.String()}, nil
	case recv.Type.Kind != types.KindSet:
		return nil, cqlerr.Invalidf("Invalid set literal for %s of type %s", recv.Name, recv.Type)
	}
	if err := checkAssignable("set", "value", elems, recv.Type.Elems[0], recv); err != nil {
		return nil, err
	}
	out := &Term{Kind: TermSet, Type: recv.Type, Text: e.String()}
	er := elementReceiver(recv, "value", recv.Type.Elems[0])
	for _, el := range elems {
		t, err := b.prepareTerm(el, er)
		if err != nil {
			return nil, err
		}
		if err := checkElement(t, "set", recv); err != nil {
			return nil, err
		}
		out.Args = append(out.Args, t)
	}
	return out, nil
}

func (b *binder) prepareMap(e *ast.MapLiteral, recv receiver) (*Term, error) {
	switch {
	case recv.Type.Kind == types.KindSet && len(e.Entries) == 0:
		return &Term{Kind: TermSet, Type: recv.Type, Text: e.String()}, nil
	case recv.Type.Kind == types.KindUDT:
		return b.prepareUDTFromMap(e, recv)
	case recv.Type.Kind != types.KindMap:
		return nil, cqlerr.Invalidf("Invalid map literal for %s of type %s", recv.Name, recv.Type)
	}
	for _, entry := range e.Entries {
		if err := checkAssignable("map", "key", []ast.Expr{entry.Key}, recv.Type.Elems[0], recv); err != nil {
			return nil, err
		}
		if err := checkAssignable("map", "value", []ast.Expr{entry.Value}, recv.Type.Elems[1], recv); err != nil {
			return nil, err
		}
	}
	out := &Term{Kind: TermMap, Type: recv.Type, Text: e.String()}
	kr := elementReceiver(recv, "key", recv.Type.Elems[0])
	vr := elementReceiver(recv, "value", recv.Type.Elems[1])
	for _, entry := range e.Entries {
		k, err := b.prepareTerm(entry.Key, kr)
		if err != nil {
			return nil, err
		}
		v, err := b.prepareTerm(entry.Value, vr)
		if err != nil {
			return nil, err
		}
		first := k
		if v.HasBind() {
			first = v // Maps.Literal checks both for markers before nulls
		}
		if err := checkElement(first, "map", recv); err != nil {
			return nil, err
		}
		if err := checkElement(v, "map", recv); err != nil {
			return nil, err
		}
		out.Args = append(out.Args, k, v)
	}
	return out, nil
}

// prepareUDTFromMap accepts {'f': v} spelled with quoted field names only
// when the receiver is a UDT and every key names a field.
func (b *binder) prepareUDTFromMap(e *ast.MapLiteral, recv receiver) (*Term, error) {
	fields := make([]ast.UDTField, 0, len(e.Entries))
	for _, entry := range e.Entries {
		lit, ok := entry.Key.(*ast.Literal)
		if !ok || lit.Kind != ast.LitString {
			return nil, cqlerr.Invalidf("Invalid map literal for %s of type %s", recv.Name, recv.Type)
		}
		fields = append(fields, ast.UDTField{Name: ast.Ident{Name: lit.Text}, Value: entry.Value})
	}
	return b.prepareUDT(&ast.UDTLiteral{Pos: e.Pos, Fields: fields}, recv)
}

func (b *binder) prepareUDT(e *ast.UDTLiteral, recv receiver) (*Term, error) {
	t := recv.Type
	if t.Kind != types.KindUDT {
		return nil, cqlerr.Invalidf("Invalid user type literal for %s of type %s", recv.Name, recv.Type)
	}
	out := &Term{Kind: TermUDT, Type: t, Args: make([]*Term, len(t.FieldNames)), Text: e.String()}
	seen := 0
	for _, f := range e.Fields {
		i := t.FieldIndex(f.Name.Name)
		if i < 0 {
			return nil, cqlerr.Invalidf("Unknown field '%s' in value of user defined type %s", f.Name.Name, t.Name)
		}
		fr := receiver{Keyspace: recv.Keyspace, Table: recv.Table, Name: recv.Name + "." + f.Name.Name, Type: t.Elems[i]}
		v, err := b.prepareTerm(f.Value, fr)
		if err != nil && !assignable(f.Value, t.Elems[i]) {
			return nil, cqlerr.Invalidf("Invalid user type literal for %s: field %s is not of type %s", recv.Name, f.Name.Name, fieldTypeText(t.Elems[i]))
		}
		if err != nil {
			return nil, err
		}
		out.Args[i] = v
		seen++
	}
	_ = seen
	return out, nil
}

func (b *binder) prepareTuple(elems []ast.Expr, e ast.Expr, recv receiver) (*Term, error) {
	t := recv.Type
	if len(elems) == 1 && t.Kind != types.KindTuple {
		// One term in parentheses, not a tuple (Tuples.Literal.prepare).
		return b.prepareTerm(elems[0], recv)
	}
	if t.Kind != types.KindTuple {
		return nil, cqlerr.Invalidf("Invalid tuple type literal for %s of type %s", recv.Name, recv.Type)
	}
	if len(elems) > len(t.Elems) {
		return nil, cqlerr.Invalidf("Invalid tuple literal for %s: too many elements. Type %s expects %d but got %d",
			recv.Name, t, len(t.Elems), len(elems))
	}
	out := &Term{Kind: TermTuple, Type: t, Text: e.String()}
	for i, el := range elems {
		cr := receiver{Keyspace: recv.Keyspace, Table: recv.Table, Name: recv.Name + "[" + itoa(i) + "]", Type: t.Elems[i]}
		v, err := b.prepareTerm(el, cr)
		if err != nil && !assignable(el, t.Elems[i]) {
			return nil, cqlerr.Invalidf("Invalid tuple literal for %s: component %d is not of type %s", recv.Name, i, t.Elems[i])
		}
		if err != nil {
			return nil, err
		}
		out.Args = append(out.Args, v)
	}
	return out, nil
}

// assignable reports whether el can be assigned to t as Cassandra's tuple
// and user type literals test each element (testAssignment in
// Tuples.Literal.validateAssignableTo): a literal of another kind, or a
// tuple or user type literal that does not fit, makes the whole literal's
// error name the component or field.
func assignable(el ast.Expr, t *types.Type) bool {
	switch el := el.(type) {
	case *ast.Literal:
		_, err := types.ParseLiteral(t, literalKinds[el.Kind], el.Text)
		var na *types.NotAssignableError
		return !errors.As(err, &na)
	case *ast.UDTLiteral:
		if t.Kind != types.KindUDT {
			return false
		}
		for _, f := range el.Fields {
			if i := t.FieldIndex(f.Name.Name); i >= 0 && !assignable(f.Value, t.Elems[i]) {
				return false
			}
		}
	case *ast.TupleLiteral:
		if len(el.Elems) == 1 && t.Kind != types.KindTuple {
			// One term in parentheses is that term, not a tuple.
			return assignable(el.Elems[0], t)
		}
		if t.Kind != types.KindTuple || len(el.Elems) > len(t.Elems) {
			return false
		}
		for i, e := range el.Elems {
			if !assignable(e, t.Elems[i]) {
				return false
			}
		}
	}
	return true
}

// checkAssignable tests a collection literal's elements before any is
// prepared, as Lists, Sets and Maps.Literal.validateAssignableTo do.
func checkAssignable(what, part string, elems []ast.Expr, t *types.Type, recv receiver) error {
	for _, el := range elems {
		if !assignable(el, t) {
			return cqlerr.Invalidf("Invalid %s literal for %s: %s %s is not of type %s", what, recv.Name, part, el, t)
		}
	}
	return nil
}

// fieldTypeText is a user type field's type as Cassandra names it in
// errors: a collection field is frozen by the type, but written as declared.
func fieldTypeText(t *types.Type) string {
	if !t.IsCollection() || !t.Frozen {
		return t.String()
	}
	thawed := *t
	thawed.Frozen = false
	return thawed.String()
}
