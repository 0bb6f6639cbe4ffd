package plan

import (
	"strings"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/types"
)

// Element and slice selection (`m['k']`, `s['e']`, `m['a'..'c']`,
// Selectable.WithElementSelection, WithSliceSelection), type hints
// (`(int) ?`, Selectable.WithTypeHint) and WRITETIME, MAXWRITETIME and TTL
// of columns, elements, slices and fields (Selectable.WritetimeOrTTL).

// subscriptReceiver is the receiver of a subscript of a selection named
// name of type t (Selectable.specForElementOrSlice): a set's element
// (value(s)) or a map's key (key(m)); lists are refused.
func subscriptReceiver(t *catalog.Table, name string, typ *types.Type, what string) (receiver, error) {
	recv := receiver{Keyspace: t.Keyspace, Table: t.Name}
	switch typ.Kind {
	case types.KindSet:
		recv.Name, recv.Type = "value("+name+")", typ.Elems[0]
	case types.KindMap:
		recv.Name, recv.Type = "key("+name+")", typ.Elems[0]
	case types.KindList:
		return recv, cqlerr.Invalidf("%s selection is only allowed on sets and maps, but %s is a list", what, name)
	}
	return recv, nil
}

// prepareElement prepares `x[key]`: a map's value for key, or a set's
// element if the set holds it.
func (b *binder) prepareElement(t *catalog.Table, e *ast.ElementAccess, used map[*catalog.Column]bool) (*Selector, error) {
	inner, err := b.prepareSelector(t, e.Expr, used)
	if err != nil {
		return nil, err
	}
	if !inner.Type.IsCollection() {
		return nil, cqlerr.Invalidf("Invalid element selection: %s is of type %s is not a collection", inner.Name, cqlTypeName(inner.Type))
	}
	recv, err := subscriptReceiver(t, inner.Name, inner.Type, "Element")
	if err != nil {
		return nil, err
	}
	key, err := b.prepareTerm(e.Key, recv)
	if err != nil {
		return nil, err
	}
	typ := inner.Type.Elems[0]
	if inner.Type.Kind == types.KindMap {
		typ = inner.Type.Elems[1]
	}
	return &Selector{Kind: SelElement, Args: []*Selector{inner}, Term: key, Type: typ,
		Name: inner.Name + "[" + termText(e.Key) + "]"}, nil
}

// prepareSlice prepares `x[from..to]` (either bound may be absent): the
// elements of a set or the entries of a map between the bounds, of the
// collection's own type.
func (b *binder) prepareSlice(t *catalog.Table, e *ast.SliceAccess, used map[*catalog.Column]bool) (*Selector, error) {
	inner, err := b.prepareSelector(t, e.Expr, used)
	if err != nil {
		return nil, err
	}
	if !inner.Type.IsCollection() {
		return nil, cqlerr.Invalidf("Invalid slice selection: %s of type %s is not a collection", inner.Name, cqlTypeName(inner.Type))
	}
	recv, err := subscriptReceiver(t, inner.Name, inner.Type, "Slice")
	if err != nil {
		return nil, err
	}
	sel := &Selector{Kind: SelSlice, Args: []*Selector{inner}, Type: inner.Type}
	var from, to string
	if e.From != nil {
		if sel.Term, err = b.prepareTerm(e.From, recv); err != nil {
			return nil, err
		}
		from = termText(e.From)
	}
	if e.To != nil {
		if sel.SliceTo, err = b.prepareTerm(e.To, recv); err != nil {
			return nil, err
		}
		to = termText(e.To)
	}
	sel.Name = inner.Name + "[" + from + ".." + to + "]"
	return sel, nil
}

// cqlTypeName is AbstractType.asCQL3Type as messages print it: a
// non-frozen collection or UDT without frozen<>, a frozen one with it.
func cqlTypeName(t *types.Type) string {
	return t.String()
}

// prepareTypeHint prepares `(type) x`: a term typed by the hint, or a
// selector whose type the hint may read (Selectable.WithTypeHint).
func (b *binder) prepareTypeHint(t *catalog.Table, e *ast.TypeCast, used map[*catalog.Column]bool) (*Selector, error) {
	typ, err := nativeTypeRef(e.Type)
	if err != nil {
		return nil, err
	}
	prefix := "(" + e.Type.String() + ")"
	if isSelectionTerm(e.Expr) {
		if b.termAssignment(e.Expr, typ) == types.NotAssignable {
			text := prefix + termText(e.Expr)
			return nil, cqlerr.Invalidf("Cannot assign value %s to %s of type %s", text, text, typ)
		}
		sel, err := b.selectionTerm(t, e.Expr, typ)
		if err != nil {
			return nil, err
		}
		sel.Name = prefix + sel.Name
		return sel, nil
	}
	inner, err := b.prepareSelector(t, e.Expr, used)
	if err != nil {
		return nil, err
	}
	if typeAssignment(inner.Type, typ) == types.NotAssignable {
		return nil, cqlerr.Invalidf("Cannot assign value %s to %s of type %s", prefix+inner.Name, prefix+inner.Name, typ)
	}
	out := *inner
	out.Type, out.Name = typ, prefix+inner.Name
	return &out, nil
}

// isSelectionTerm reports a selector that is a term (Selectable.WithTerm).
func isSelectionTerm(e ast.Expr) bool {
	switch e.(type) {
	case *ast.Literal, *ast.BindMarker, *ast.Null:
		return true
	}
	return false
}

// cannotInfer is the error for a selector whose type nothing fixes: a bare
// literal or marker, or an expression in parentheses (which may be a
// one-element tuple).
func cannotInfer(text string) error {
	return cqlerr.Invalidf("Cannot infer type for term %s in selection clause (try using a cast to force a type)", text)
}

// selectionText is how Cassandra prints a selectable that failed to
// prepare (Selectable.toString).
func selectionText(e ast.Expr) string {
	if tuple, ok := e.(*ast.TupleLiteral); ok {
		parts := make([]string, len(tuple.Elems))
		for i, el := range tuple.Elems {
			parts[i] = selectionText(el)
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	if isSelectionTerm(e) {
		return termText(e)
	}
	return e.String()
}

// rootColumn is the column under a WRITETIME/TTL argument's field and
// element selections.
func rootColumn(e ast.Expr) *ast.ColumnRef {
	for {
		switch x := e.(type) {
		case *ast.ColumnRef:
			return x
		case *ast.FieldAccess:
			e = x.Expr
		case *ast.ElementAccess:
			e = x.Expr
		case *ast.SliceAccess:
			e = x.Expr
		default:
			return nil
		}
	}
}

var metaSelectorKinds = map[ast.MetaKind]SelectorKind{
	ast.MetaWriteTime: SelWriteTime, ast.MetaMaxWriteTime: SelMaxWriteTime, ast.MetaTTL: SelTTL,
}

// prepareWriteTime prepares WRITETIME, MAXWRITETIME or TTL of a column, a
// UDT field, a collection element or slice. Of something with several
// cells (a non-frozen collection or UDT, a slice of one) WRITETIME and TTL
// return the list of its cells' values, MAXWRITETIME their maximum
// (Cassandra 5.0, CASSANDRA-8877).
func (b *binder) prepareWriteTime(t *catalog.Table, e *ast.WriteTimeOrTTL, used map[*catalog.Column]bool) (*Selector, error) {
	ref := rootColumn(e.Column)
	if ref == nil {
		return nil, cqlerr.Invalidf("Invalid selection %s", e)
	}
	c, err := column(t, ref.Name)
	if err != nil {
		return nil, err
	}
	what := strings.ToLower(e.Kind.String())
	if c.IsPrimaryKey() {
		return nil, cqlerr.Invalidf("Cannot use selection function %s on PRIMARY KEY part %s", what, c.Name)
	}
	inner, err := b.prepareSelector(t, e.Column, used)
	if err != nil {
		return nil, err
	}
	sel := &Selector{Kind: metaSelectorKinds[e.Kind], Column: c, Args: []*Selector{inner}, Type: types.Bigint,
		Name: what + "(" + inner.Name + ")"}
	if sel.Kind == SelTTL {
		sel.Type = types.Int
	}
	if inner.Type.IsMultiCell() && sel.Kind != SelMaxWriteTime {
		sel.Type = types.ListOf(sel.Type)
	}
	return sel, nil
}

// exactType is the type function resolution sees for a selector
// (Selectable.getExactTypeIfKnown). It is the selector's type, except that
// WRITETIME and TTL of anything under a non-frozen column count as lists,
// even of an element of one whose result is a single value: Cassandra
// refuses writetime(m['a']) + 1.
func exactType(s *Selector) *types.Type {
	if (s.Kind == SelWriteTime || s.Kind == SelTTL) && s.Column.Type.IsMultiCell() && s.Type.Kind != types.KindList {
		return types.ListOf(s.Type)
	}
	return s.Type
}
