package plan

import (
	"strings"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/functions"
	"github.com/partita-db/partita/internal/types"
)

// SelectorKind says what a selector computes.
type SelectorKind uint8

const (
	SelColumn       SelectorKind = iota // the value of Column
	SelFunc                             // Func applied to Args
	SelWriteTime                        // writetime(Args[0]), Args[0] reading Column
	SelTTL                              // ttl(Args[0]), Args[0] reading Column
	SelCountRows                        // count(*)
	SelAggregate                        // Aggregate over Args[0]
	SelConst                            // a constant Term
	SelToken                            // token(partition key)
	SelCast                             // Args[0] cast to Type
	SelField                            // UDT field Field of Args[0]
	SelElement                          // the element Term of the map or set Args[0]
	SelSlice                            // the elements of Args[0] from Term to SliceTo (nil: open)
	SelMaxWriteTime                     // maxwritetime(Args[0])
)

// Selector is one item of a SELECT clause.
type Selector struct {
	Kind      SelectorKind
	Column    *catalog.Column
	Func      *functions.Func
	Aggregate string // count, min, max, sum, avg
	Args      []*Selector
	Term      *Term
	SliceTo   *Term
	Field     int
	Type      *types.Type
	// Name is the result column's name: the alias, or Cassandra's
	// generated name (writetime(v), system.totimestamp(ts), count).
	Name string
}

// IsAggregate reports whether s (or a selector inside it) aggregates rows.
func (s *Selector) IsAggregate() bool {
	if s.Kind == SelCountRows || s.Kind == SelAggregate {
		return true
	}
	for _, a := range s.Args {
		if a.IsAggregate() {
			return true
		}
	}
	return false
}

// Selection is a SELECT clause resolved against a table.
type Selection struct {
	Selectors []*Selector
	Wildcard  bool
	Aggregate bool
	// Hidden selectors at the end are computed for post-query ordering and
	// not returned.
	Hidden int
	// StaticOnly: only partition key and static columns are selected.
	StaticOnly bool
	// Columns lists every table column the selectors read.
	Columns []*catalog.Column
}

// Visible returns the selectors that produce result columns.
func (s *Selection) Visible() []*Selector { return s.Selectors[:len(s.Selectors)-s.Hidden] }

func (b *binder) prepareSelection(t *catalog.Table, sels []ast.Selector) (*Selection, error) {
	out := &Selection{}
	if len(sels) == 0 {
		out.Wildcard = true
		for _, c := range t.Columns {
			out.Selectors = append(out.Selectors, &Selector{Kind: SelColumn, Column: c, Type: c.Type, Name: c.Name})
		}
		out.Columns = t.Columns
		return out, nil
	}
	used := map[*catalog.Column]bool{}
	for _, s := range sels {
		sel, err := b.prepareSelector(t, s.Expr, used)
		if err != nil {
			return nil, err
		}
		if s.Alias != nil {
			sel.Name = s.Alias.Name
		}
		out.Selectors = append(out.Selectors, sel)
	}
	aggregates := 0
	for _, s := range out.Selectors {
		if s.IsAggregate() {
			aggregates++
		}
	}
	if aggregates > 0 {
		out.Aggregate = true
		for _, s := range out.Selectors {
			if !s.IsAggregate() && !s.selectsOnlyKeysOrConstants() {
				// Cassandra returns the first row's value for such columns;
				// allowed, as in 4.x.
				continue
			}
		}
	}
	for _, c := range t.Columns {
		if used[c] {
			out.Columns = append(out.Columns, c)
		}
	}
	out.StaticOnly = selectsOnlyStatic(t, used)
	return out, nil
}

func (s *Selector) selectsOnlyKeysOrConstants() bool {
	if s.Kind == SelColumn {
		return s.Column.IsPrimaryKey()
	}
	for _, a := range s.Args {
		if !a.selectsOnlyKeysOrConstants() {
			return false
		}
	}
	return true
}

// selectsOnlyStatic is SelectStatement.selectOnlyStaticColumns.
func selectsOnlyStatic(t *catalog.Table, used map[*catalog.Column]bool) bool {
	if !t.HasStatics() || len(used) == 0 {
		return false
	}
	static := false
	for c := range used {
		switch c.Kind {
		case catalog.Static:
			static = true
		case catalog.PartitionKey:
		default:
			return false
		}
	}
	return static
}

func (b *binder) prepareSelector(t *catalog.Table, e ast.Expr, used map[*catalog.Column]bool) (*Selector, error) {
	switch e := e.(type) {
	case *ast.ColumnRef:
		c, err := column(t, e.Name)
		if err != nil {
			return nil, err
		}
		used[c] = true
		return &Selector{Kind: SelColumn, Column: c, Type: c.Type, Name: c.Name}, nil
	case *ast.CountRows:
		return &Selector{Kind: SelCountRows, Type: types.Bigint, Name: "count"}, nil
	case *ast.WriteTimeOrTTL:
		return b.prepareWriteTime(t, e, used)
	case *ast.FunctionCall:
		return b.prepareFunctionSelector(t, e, used)
	case *ast.Cast:
		return b.prepareCast(t, e, used)
	case *ast.FieldAccess:
		inner, err := b.prepareSelector(t, e.Expr, used)
		if err != nil {
			return nil, err
		}
		if inner.Type.Kind != types.KindUDT {
			return nil, cqlerr.Invalidf("Invalid field selection: %s of type %s is not a user type", inner.Name, inner.Type)
		}
		i := inner.Type.FieldIndex(e.Field.Name)
		if i < 0 {
			return nil, cqlerr.Invalidf("%s of type %s has no field %s", inner.Name, inner.Type, e.Field.Name)
		}
		return &Selector{Kind: SelField, Args: []*Selector{inner}, Field: i, Type: inner.Type.Elems[i], Name: inner.Name + "." + e.Field.Name}, nil
	case *ast.ElementAccess:
		return b.prepareElement(t, e, used)
	case *ast.SliceAccess:
		return b.prepareSlice(t, e, used)
	case *ast.BinaryOp, *ast.Negation:
		return b.prepareOperationSelector(t, e, used)
	case *ast.TypeCast:
		return b.prepareTypeHint(t, e, used)
	case *ast.Literal, *ast.BindMarker, *ast.Null:
		// A term alone has no type to take (Selectable.WithTerm without
		// an expected type): SELECT 1 is refused, SELECT (int) 1 is not.
		return nil, cannotInfer(termText(e))
	case *ast.TupleLiteral:
		if len(e.Elems) == 1 {
			return nil, cannotInfer(selectionText(e))
		}
	}
	return nil, cqlerr.Invalidf("Unsupported selector: %s", e)
}

var aggregateNames = map[string]bool{"count": true, "min": true, "max": true, "sum": true, "avg": true}

func (b *binder) prepareFunctionSelector(t *catalog.Table, e *ast.FunctionCall, used map[*catalog.Column]bool) (*Selector, error) {
	name := strings.ToLower(e.Name)
	if name == "token" {
		return b.prepareTokenSelector(t, e, used)
	}
	if aggregateNames[name] && len(e.Args) == 1 {
		return b.prepareAggregate(t, name, e, used)
	}
	if name == "tojson" {
		if len(e.Args) != 1 {
			return nil, cqlerr.Invalidf("toJson() accepts only one argument")
		}
		arg, err := b.prepareSelector(t, e.Args[0], used)
		if err != nil {
			return nil, err
		}
		return &Selector{Kind: SelFunc, Func: functions.ToJSON(arg.Type), Args: []*Selector{arg}, Type: types.Text,
			Name: "system.tojson(" + arg.Name + ")"}, nil
	}
	if name == "fromjson" && (e.Keyspace == "" || strings.EqualFold(e.Keyspace, "system")) {
		// FromJsonFct.getInstance: its return type comes from a receiver,
		// which a selector has not.
		return nil, cqlerr.Invalidf("fromjson() cannot be used in the selection clause of a SELECT statement")
	}
	args := make([]*Selector, len(e.Args))
	argTypes := make([]*types.Type, len(e.Args))
	for i, a := range e.Args {
		if isTermExpr(a) {
			continue
		}
		s, err := b.prepareSelector(t, a, used)
		if err != nil {
			return nil, err
		}
		args[i], argTypes[i] = s, exactType(s)
	}
	f, terms, err := b.resolveCallWithKnown(e, argTypes)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(args))
	for i := range args {
		if args[i] == nil {
			args[i] = &Selector{Kind: SelConst, Term: terms[i], Type: terms[i].Type, Name: e.Args[i].String()}
		}
		names[i] = args[i].Name
	}
	return &Selector{Kind: SelFunc, Func: f, Args: args, Type: f.Return,
		Name: "system." + f.Name + "(" + strings.Join(names, ", ") + ")"}, nil
}

// isTermExpr reports whether e is a value term rather than a selector over
// columns.
func isTermExpr(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Literal, *ast.Negation, *ast.BindMarker, *ast.Null:
		return true
	case *ast.ListLiteral:
		return allTermExprs(e.Elems)
	case *ast.SetLiteral:
		return allTermExprs(e.Elems)
	case *ast.FunctionCall:
		for _, a := range e.Args {
			if !isTermExpr(a) {
				return false
			}
		}
		return true
	}
	return false
}

func allTermExprs(es []ast.Expr) bool {
	for _, e := range es {
		if !isTermExpr(e) {
			return false
		}
	}
	return true
}

// resolveCallWithKnown resolves a call whose column arguments have known
// types; term arguments are prepared against the chosen overload.
func (b *binder) resolveCallWithKnown(e *ast.FunctionCall, known []*types.Type) (*functions.Func, []*Term, error) {
	onlyTerms := &ast.FunctionCall{Pos: e.Pos, Keyspace: e.Keyspace, Name: e.Name, Args: make([]ast.Expr, len(e.Args))}
	// Selector arguments keep their text for errors; resolveCall neither
	// types nor prepares them.
	copy(onlyTerms.Args, e.Args)
	f, terms, err := b.resolveCall(onlyTerms, known)
	return f, terms, err
}

func (b *binder) prepareTokenSelector(t *catalog.Table, e *ast.FunctionCall, used map[*catalog.Column]bool) (*Selector, error) {
	if len(e.Args) != len(t.PartitionKey) {
		return nil, cqlerr.Invalidf("Invalid number of arguments in call to function system.token: %d required but %d provided", len(t.PartitionKey), len(e.Args))
	}
	names := make([]string, len(e.Args))
	for i, a := range e.Args {
		ref, ok := a.(*ast.ColumnRef)
		if !ok || ref.Name != t.PartitionKey[i].Name {
			return nil, cqlerr.Invalidf("Type error: %s cannot be passed as argument %d of function system.token of type %s", a, i, t.PartitionKey[i].Type)
		}
		used[t.PartitionKey[i]] = true
		names[i] = ref.Name
	}
	return &Selector{Kind: SelToken, Type: types.Bigint, Name: "system.token(" + strings.Join(names, ", ") + ")"}, nil
}

func (b *binder) prepareAggregate(t *catalog.Table, name string, e *ast.FunctionCall, used map[*catalog.Column]bool) (*Selector, error) {
	if name == "count" {
		if lit, ok := e.Args[0].(*ast.Literal); ok && lit.Kind == ast.LitInteger && lit.Text == "1" {
			return &Selector{Kind: SelCountRows, Type: types.Bigint, Name: "count"}, nil
		}
	}
	arg, err := b.prepareSelector(t, e.Args[0], used)
	if err != nil {
		return nil, err
	}
	rt := arg.Type
	switch name {
	case "count":
		rt = types.Bigint
	case "sum", "avg":
		if !arg.Type.IsNumeric() && arg.Type.Kind != types.KindCounter {
			var sigs, compatible []string
			for _, nt := range []*types.Type{types.Tinyint, types.Smallint, types.Int, types.Bigint, types.Float,
				types.Double, types.Decimal, types.Varint, types.Counter} {
				sig := functions.Signature(name, []*types.Type{nt}, nt)
				sigs = append(sigs, sig)
				if valueCompatible(nt, arg.Type) {
					compatible = append(compatible, sig)
				}
			}
			if len(compatible) > 1 {
				return nil, cqlerr.Invalidf("Ambiguous call to function %s (can be matched by following signatures: %s): use type casts to disambiguate",
					name, strings.Join(compatible, ", "))
			}
			return nil, cqlerr.Invalidf("Invalid call to function %s, none of its type signatures match (known type signatures: %s)",
				name, strings.Join(sigs, ", "))
		}
		if arg.Type.Kind == types.KindCounter {
			rt = types.Bigint
		}
	}
	return &Selector{Kind: SelAggregate, Aggregate: name, Args: []*Selector{arg}, Type: rt,
		Name: "system." + name + "(" + arg.Name + ")"}, nil
}

func (b *binder) prepareCast(t *catalog.Table, e *ast.Cast, used map[*catalog.Column]bool) (*Selector, error) {
	arg, err := b.prepareSelector(t, e.Expr, used)
	if err != nil {
		return nil, err
	}
	to, err := nativeTypeRef(e.Type)
	if err != nil {
		return nil, err
	}
	name := "cast(" + arg.Name + " as " + to.String() + ")"
	if arg.Type.Equal(to) {
		arg.Name = name
		return arg, nil
	}
	if !functions.Castable(arg.Type, to) {
		return nil, castError(arg, to)
	}
	return &Selector{Kind: SelCast, Args: []*Selector{arg}, Type: to, Name: name}, nil
}

// castError is Cassandra's refusal of CAST(arg AS to) (Selectable.WithCast):
// when no cast_as_<to> function exists at all, "<column> cannot be cast to
// <to>" naming the argument's first column; otherwise the function
// resolver's "none of its type signatures match" for system.cast_as_<to>.
func castError(arg *Selector, to *types.Type) error {
	var sigs, compatible []string
	order, ok := castSourceOrder[to.Kind]
	if !ok {
		order = []types.Kind{types.KindTinyint, types.KindSmallint, types.KindInt, types.KindBigint, types.KindFloat,
			types.KindDouble, types.KindDecimal, types.KindVarint, types.KindCounter, types.KindAscii, types.KindVarchar,
			types.KindBoolean, types.KindBlob, types.KindUUID, types.KindTimeuuid, types.KindTimestamp, types.KindDate,
			types.KindTime, types.KindInet, types.KindDuration}
	}
	for _, k := range order {
		from := types.Native(k)
		if !from.Equal(to) && functions.Castable(from, to) {
			sig := functions.Signature("cast_as_"+to.String(), []*types.Type{from}, to)
			sigs = append(sigs, sig)
			if valueCompatible(from, arg.Type) {
				compatible = append(compatible, sig)
			}
		}
	}
	if len(sigs) == 0 {
		return cqlerr.Invalidf("%s cannot be cast to %s", firstColumnName(arg), to)
	}
	if len(compatible) > 1 {
		return cqlerr.Invalidf("Ambiguous call to function system.cast_as_%s (can be matched by following signatures: %s): use type casts to disambiguate",
			to, strings.Join(compatible, ", "))
	}
	return cqlerr.Invalidf("Invalid call to function system.cast_as_%s, none of its type signatures match (known type signatures: %s)",
		to, strings.Join(sigs, ", "))
}

// castSourceOrder is the order in which Cassandra 5.0.6 lists the
// signatures of cast_as_text and cast_as_ascii (its function map's order),
// read from its errors.
var castSourceOrder = map[types.Kind][]types.Kind{
	types.KindVarchar: {types.KindInet, types.KindCounter, types.KindFloat, types.KindTinyint, types.KindBigint,
		types.KindUUID, types.KindInt, types.KindDecimal, types.KindTimestamp, types.KindTime, types.KindDouble,
		types.KindTimeuuid, types.KindVarint, types.KindSmallint, types.KindBoolean, types.KindDate, types.KindAscii},
	types.KindAscii: {types.KindDecimal, types.KindCounter, types.KindInt, types.KindFloat, types.KindInet,
		types.KindBigint, types.KindUUID, types.KindTinyint, types.KindBoolean, types.KindTimeuuid, types.KindTime,
		types.KindTimestamp, types.KindDate, types.KindVarint, types.KindSmallint, types.KindDouble},
}

// firstColumnName is the name of the first column a selector reads, or its
// result name when it reads none.
func firstColumnName(s *Selector) string {
	if c := firstColumn(s); c != nil {
		return c.Name
	}
	return s.Name
}

func firstColumn(s *Selector) *catalog.Column {
	if s.Column != nil {
		return s.Column
	}
	for _, a := range s.Args {
		if c := firstColumn(a); c != nil {
			return c
		}
	}
	return nil
}
