package plan

import (
	"math"
	"math/big"
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
		// A counter takes no null, wherever it is written
		// (Constants.NULL_LITERAL: not assignable to a counter).
		if recv.Type.IsCounter() {
			return nil, cqlerr.Invalidf("Invalid null value for counter increment/decrement")
		}
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
		fac := functions.LookupFactory(name)
		if fac == nil {
			return nil, nil, cqlerr.Invalidf("Unknown function '%s'", e.Name)
		}
		f, err := fac.Instantiate(callArgTexts(e), knownArgTypes(e, argTypes))
		if err != nil {
			return nil, nil, err
		}
		overloads = []*functions.Func{f}
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
		if len(overloads) == 1 {
			// FunctionResolver.validateTypes: the only overload names the
			// argument it refuses.
			f := overloads[0]
			for i, a := range e.Args {
				one := &functions.Func{Name: f.Name, Args: f.Args[i : i+1], Return: f.Return}
				var k []*types.Type
				if argTypes != nil {
					k = argTypes[i : i+1]
				}
				if !b.argsAssignable(one, e.Args[i:i+1], k) {
					return nil, nil, cqlerr.Invalidf("Type error: %s cannot be passed as argument %d of function system.%s of type %s",
						a, i, f.Name, f.Args[i])
				}
			}
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
		if argTypes != nil && argTypes[i] != nil {
			// A selector argument, not a term: nothing to prepare (a
			// counter column takes no null placeholder).
			continue
		}
		t, err := b.prepareTerm(a, receiver{Name: "arg" + itoa(i), Type: f.Args[i]})
		if err != nil {
			return nil, nil, err
		}
		args[i] = t
	}
	return f, args, nil
}

// callArgTexts prints a call's arguments as errors quote them.
func callArgTexts(e *ast.FunctionCall) []string {
	out := make([]string, len(e.Args))
	for i, a := range e.Args {
		out[i] = a.String()
	}
	return out
}

// knownArgTypes is each argument's type where it is known without a
// receiver (AssignmentTestable.getCompatibleTypeIfKnown): a selector's, or
// a type hint's.
func knownArgTypes(e *ast.FunctionCall, known []*types.Type) []*types.Type {
	out := make([]*types.Type, len(e.Args))
	for i, a := range e.Args {
		if known != nil && known[i] != nil {
			out[i] = known[i]
			continue
		}
		switch a := a.(type) {
		case *ast.TypeCast:
			if t, err := nativeTypeRef(a.Type); err == nil {
				out[i] = t
			}
		case *ast.Literal:
			out[i] = preferredLiteralType(a)
		case *ast.ListLiteral:
			// A selector's literal collection has a type; a term's has
			// none.
			if t := preferredElementsType(a.Elems); t != nil && known != nil {
				out[i] = types.ListOf(t)
			}
		case *ast.SetLiteral:
			if t := preferredElementsType(a.Elems); t != nil && known != nil {
				out[i] = types.SetOf(t)
			}
		}
	}
	return out
}

// preferredLiteralType is the type a constant takes when nothing else
// types it (Constants.Literal's preferred type): text, the smallest of
// int, bigint and varint an integer fits, double, boolean, uuid, blob and
// duration.
func preferredLiteralType(l *ast.Literal) *types.Type {
	switch l.Kind {
	case ast.LitString:
		for i := 0; i < len(l.Text); i++ {
			if l.Text[i] >= 0x80 {
				return types.Text
			}
		}
		return types.Ascii
	case ast.LitInteger:
		n, ok := new(big.Int).SetString(l.Text, 10)
		switch {
		case !ok:
			return nil
		case n.IsInt64() && n.Int64() >= math.MinInt32 && n.Int64() <= math.MaxInt32:
			return types.Int
		case n.IsInt64():
			return types.Bigint
		}
		return types.Varint
	case ast.LitFloat, ast.LitNaN, ast.LitInfinity:
		return types.Double
	case ast.LitBoolean:
		return types.Boolean
	case ast.LitUUID:
		return types.UUID
	case ast.LitHex:
		return types.Blob
	case ast.LitDuration:
		return types.Duration
	}
	return nil
}

// preferredElementsType is the type the constant elements of a list or
// set literal all prefer (Lists.getPreferredCompatibleType); nil when they
// differ.
func preferredElementsType(elems []ast.Expr) *types.Type {
	var out *types.Type
	for _, e := range elems {
		l, ok := e.(*ast.Literal)
		if !ok {
			return nil
		}
		t := preferredLiteralType(l)
		if t == nil || (out != nil && !out.Equal(t)) {
			return nil
		}
		out = t
	}
	return out
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
