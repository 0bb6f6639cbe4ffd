package plan

import (
	"strings"

	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/functions"
	"github.com/partita-db/partita/internal/types"
)

// receiver is what takes a term's value: a column, a collection element, a
// LIMIT, ... Its name appears in messages and bind variable metadata.
type receiver struct {
	Keyspace, Table string
	Name            string
	Type            *types.Type
}

var literalKinds = map[ast.LiteralKind]types.LiteralKind{
	ast.LitString: types.LitString, ast.LitInteger: types.LitInteger, ast.LitFloat: types.LitFloat,
	ast.LitBoolean: types.LitBoolean, ast.LitUUID: types.LitUUID, ast.LitHex: types.LitHex,
	ast.LitDuration: types.LitDuration, ast.LitNaN: types.LitFloat, ast.LitInfinity: types.LitFloat,
}

// binder collects the bind variables of one statement.
type binder struct {
	vars []BindVar
	set  []bool
}

func (b *binder) add(m *ast.BindMarker, recv receiver) int {
	for len(b.vars) <= m.Index {
		b.vars = append(b.vars, BindVar{})
		b.set = append(b.set, false)
	}
	name := recv.Name
	if m.Name != "" {
		name = m.Name
	}
	b.vars[m.Index] = BindVar{Keyspace: recv.Keyspace, Table: recv.Table, Name: name, Type: recv.Type, Named: m.Name != ""}
	b.set[m.Index] = true
	return m.Index
}

// prepareTerm types e against its receiver (invariant 2).
func (b *binder) prepareTerm(e ast.Expr, recv receiver) (*Term, error) {
	switch e := e.(type) {
	case *ast.Literal:
		return literalTerm(e.Kind, e.Text, recv)
	case *ast.BinaryOp, *ast.Negation:
		return b.prepareOperationTerm(e, recv)
	case *ast.Null:
		return &Term{Kind: TermConst, Type: recv.Type, Text: "null"}, nil
	case *ast.BindMarker:
		return &Term{Kind: TermBind, Type: recv.Type, Bind: b.add(e, recv), Text: e.String()}, nil
	case *ast.FunctionCall:
		return b.prepareCall(e, recv)
	case *ast.TypeCast:
		return b.prepareTypeCast(e, recv)
	case *ast.ListLiteral:
		return b.prepareList(e, recv)
	case *ast.SetLiteral:
		return b.prepareSet(e.Elems, e, recv)
	case *ast.MapLiteral:
		return b.prepareMap(e, recv)
	case *ast.UDTLiteral:
		return b.prepareUDT(e, recv)
	case *ast.TupleLiteral:
		return b.prepareTuple(e.Elems, e, recv)
	}
	return nil, cqlerr.Invalidf("Invalid value %s for %s of type %s", e, recv.Name, recv.Type)
}

func literalTerm(kind ast.LiteralKind, text string, recv receiver) (*Term, error) {
	v, err := types.ParseLiteral(recv.Type, literalKinds[kind], text)
	if err != nil {
		return nil, types.LiteralErrorFor(err, recv.Name)
	}
	return &Term{Kind: TermConst, Type: recv.Type, Value: v, Text: text}, nil
}

func (b *binder) prepareTypeCast(e *ast.TypeCast, recv receiver) (*Term, error) {
	cast, err := nativeTypeRef(e.Type)
	if err != nil {
		return nil, err
	}
	if !recv.Type.Equal(cast) && !(recv.Type.Kind == types.KindVarchar && cast.Kind == types.KindAscii) {
		return nil, cqlerr.Invalidf("Cannot assign value of type %s to %s of type %s", cast, recv.Name, recv.Type)
	}
	return b.prepareTerm(e.Expr, receiver{recv.Keyspace, recv.Table, recv.Name, cast})
}

// nativeTypeRef resolves a type written in a cast (native types only).
func nativeTypeRef(t ast.TypeRef) (*types.Type, error) {
	if t.Kind == ast.TypeNative {
		if nt := types.NativeByName(t.Name); nt != nil {
			return nt, nil
		}
	}
	return nil, cqlerr.Invalidf("Unsupported type %s in a cast", t)
}

func (b *binder) prepareCall(e *ast.FunctionCall, recv receiver) (*Term, error) {
	if strings.EqualFold(e.Name, "fromjson") {
		if len(e.Args) != 1 {
			return nil, cqlerr.Invalidf("fromJson() accepts only one argument")
		}
		arg, err := b.prepareTerm(e.Args[0], receiver{recv.Keyspace, recv.Table, "arg0", types.Text})
		if err != nil {
			return nil, err
		}
		return &Term{Kind: TermFunc, Type: recv.Type, Func: functions.FromJSON(recv.Type), Args: []*Term{arg}, Text: e.String()}, nil
	}
	f, args, err := b.resolveCall(e, nil)
	if err != nil {
		return nil, err
	}
	if !recv.Type.Equal(f.Return) && !valueCompatible(recv.Type, f.Return) {
		return nil, cqlerr.Invalidf("Type error: cannot assign result of function %s (type %s) to %s (type %s)",
			"system."+f.Name, f.Return, recv.Name, recv.Type)
	}
	return &Term{Kind: TermFunc, Type: f.Return, Func: f, Args: args, Text: e.String()}, nil
}

// valueCompatible reports whether values of type from can be stored in to
// unchanged (AbstractType.isValueCompatibleWith): a timeuuid is a uuid,
// ascii is text, a timestamp and a bigint are both 8-byte longs, a varint
// reads any int, bigint or timestamp, a date reads an int and a time a
// bigint (SimpleDateType, TimeType), and anything is a blob.
func valueCompatible(to, from *types.Type) bool {
	switch to.Kind {
	case types.KindDate:
		return from.Kind == types.KindInt
	case types.KindTime:
		return from.Kind == types.KindBigint
	case types.KindUUID:
		return from.Kind == types.KindTimeuuid
	case types.KindVarchar:
		return from.Kind == types.KindAscii
	case types.KindBigint:
		return from.Kind == types.KindTimestamp
	case types.KindTimestamp:
		return from.Kind == types.KindBigint
	case types.KindVarint:
		return from.Kind == types.KindInt || from.Kind == types.KindBigint || from.Kind == types.KindTimestamp
	case types.KindBlob:
		return true
	}
	return false
}

// resolveCall picks the overload of a function call whose parameters accept
// the arguments (FunctionResolver.get), and prepares the arguments.
// argTypes, when non-nil, gives the types of arguments already known (column
// references in selectors).
func (b *binder) resolveCall(e *ast.FunctionCall, argTypes []*types.Type) (*functions.Func, []*Term, error) {
	name := strings.ToLower(e.Name)
	overloads := functions.Overloads(name)
	if overloads == nil {
		return nil, nil, cqlerr.Invalidf("Unknown function '%s'", e.Name)
	}
	var candidates []*functions.Func
	for _, f := range overloads {
		if len(f.Args) == len(e.Args) && b.argsAssignable(f, e.Args, argTypes) {
			candidates = append(candidates, f)
		}
	}
	switch {
	case len(candidates) == 0:
		if len(overloads) == 1 && len(overloads[0].Args) != len(e.Args) {
			return nil, nil, cqlerr.Invalidf("Invalid number of arguments in call to function system.%s: %d required but %d provided",
				overloads[0].Name, len(overloads[0].Args), len(e.Args))
		}
		return nil, nil, cqlerr.Invalidf("Invalid call to function %s, none of its type signatures match (known type signatures: %s)",
			name, signatures(overloads))
	case len(candidates) > 1:
		candidates = b.exactMatches(candidates, e.Args, argTypes)
		if len(candidates) != 1 {
			return nil, nil, cqlerr.Invalidf("Ambiguous call to function %s (can be matched by following signatures: %s): use type casts to disambiguate",
				name, signatures(candidates))
		}
	}
	f := candidates[0]
	args := make([]*Term, len(e.Args))
	for i, a := range e.Args {
		t, err := b.prepareTerm(a, receiver{Name: "arg" + itoa(i), Type: f.Args[i]})
		if err != nil {
			return nil, nil, err
		}
		args[i] = t
	}
	return f, args, nil
}

func signatures(fs []*functions.Func) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.Signature()
	}
	return strings.Join(parts, ", ")
}

func (b *binder) argsAssignable(f *functions.Func, args []ast.Expr, known []*types.Type) bool {
	for i, a := range args {
		if known != nil && known[i] != nil {
			if !known[i].Equal(f.Args[i]) && !valueCompatible(f.Args[i], known[i]) {
				return false
			}
			continue
		}
		if b.termAssignment(a, f.Args[i]) == types.NotAssignable {
			return false
		}
	}
	return true
}

func (b *binder) exactMatches(fs []*functions.Func, args []ast.Expr, known []*types.Type) []*functions.Func {
	var out []*functions.Func
	for _, f := range fs {
		exact := true
		for i, a := range args {
			if known != nil && known[i] != nil {
				exact = exact && known[i].Equal(f.Args[i])
				continue
			}
			exact = exact && b.termAssignment(a, f.Args[i]) == types.ExactMatch
		}
		if exact {
			out = append(out, f)
		}
	}
	return out
}

// assignability is AssignmentTestable.testAssignment for unprepared terms.
func assignability(e ast.Expr, t *types.Type) types.Assignment {
	switch e := e.(type) {
	case *ast.Literal:
		return types.LiteralAssignment(t, literalKinds[e.Kind], e.Text)
	case *ast.Null, *ast.BindMarker:
		return types.WeaklyAssignable
	case *ast.FunctionCall:
		for _, f := range functions.Overloads(e.Name) {
			if len(f.Args) == len(e.Args) && (f.Return.Equal(t) || valueCompatible(t, f.Return)) {
				if f.Return.Equal(t) {
					return types.ExactMatch
				}
				return types.WeaklyAssignable
			}
		}
		return types.NotAssignable
	case *ast.TypeCast:
		if ct, err := nativeTypeRef(e.Type); err == nil && ct.Equal(t) {
			return types.ExactMatch
		}
		return types.NotAssignable
	}
	return types.WeaklyAssignable
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}
