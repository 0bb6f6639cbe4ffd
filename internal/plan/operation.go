package plan

import (
	"strings"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/functions"
	"github.com/partita-db/partita/internal/types"
)

// Arithmetic operators (`a + b`, `-a`) in selections and in terms: each is
// a call of one overload of a native function (functions/operators.go),
// chosen as Cassandra's FunctionResolver.pickBestMatch does: the overloads
// whose result the receiver accepts (any, in a selection), then the first
// exact match of the operands' types, else the only weakly assignable one;
// among several, a term with a receiver and no bind marker operand takes
// the overload of the receiver's type on both sides, anything else is
// ambiguous.

// operand is one argument of an operator as the resolver sees it.
type operand interface {
	// assign is how well the operand fits a parameter of type t.
	assign(t *types.Type) types.Assignment
	// text is the operand as Cassandra prints it in messages.
	text() string
	// isMarker reports a bare bind marker (FunctionResolver.containsMarkers).
	isMarker() bool
}

// typedOperand has a type known before resolution: a column, a function,
// a nested operation, a type hint.
type typedOperand struct {
	typ  *types.Type
	name string
}

func (o typedOperand) assign(t *types.Type) types.Assignment { return typeAssignment(o.typ, t) }
func (o typedOperand) text() string                          { return o.name }
func (o typedOperand) isMarker() bool                        { return false }

// typeAssignment is AbstractType.testAssignment: exact for the same type,
// weak when the parameter type reads the value unchanged.
func typeAssignment(from, to *types.Type) types.Assignment {
	switch {
	case from.Equal(to):
		return types.ExactMatch
	case valueCompatible(to, from):
		return types.WeaklyAssignable
	}
	return types.NotAssignable
}

// termOperand is an unprepared term: a literal, a marker, NULL, a function
// call or a nested operation inside a term.
type termOperand struct {
	b    *binder
	expr ast.Expr
}

func (o termOperand) assign(t *types.Type) types.Assignment { return o.b.termAssignment(o.expr, t) }
func (o termOperand) text() string                          { return termText(o.expr) }
func (o termOperand) isMarker() bool {
	_, ok := o.expr.(*ast.BindMarker)
	return ok
}

// parenOperand is `(x)` in a selection: a tuple of one element or x in
// parentheses, decided by the parameter type (BetweenParenthesesOrWithTuple).
type parenOperand struct{ inner operand }

func (o parenOperand) assign(t *types.Type) types.Assignment { return o.inner.assign(t) }
func (o parenOperand) text() string                          { return "(" + o.inner.text() + ")" }
func (o parenOperand) isMarker() bool                        { return false }

// termAssignment is Term.Raw.testAssignment for an unprepared term.
func (b *binder) termAssignment(e ast.Expr, t *types.Type) types.Assignment {
	switch e := e.(type) {
	case *ast.BinaryOp, *ast.Negation:
		// FunctionCall.Raw.testAssignment: resolve against t; a failure
		// leaves the error for later, so it counts as weakly assignable.
		f, err := b.resolveTermOperator(e, t)
		if err != nil {
			return types.WeaklyAssignable
		}
		return typeAssignment(f.Return, t)
	case *ast.TupleLiteral:
		if len(e.Elems) == 1 && t.Kind != types.KindTuple {
			return b.termAssignment(e.Elems[0], t)
		}
	}
	return assignability(e, t)
}

// termText is Term.Raw.getText: how Cassandra prints a term in a column
// name or a message (strings quoted as written, markers as ?).
func termText(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Literal:
		if e.Kind == ast.LitString {
			return "'" + e.Text + "'"
		}
		return e.Text
	case *ast.BindMarker:
		return "?"
	case *ast.Null:
		return "NULL"
	case *ast.TypeCast:
		return "(" + e.Type.String() + ")" + termText(e.Expr)
	case *ast.TupleLiteral:
		return "(" + termTexts(e.Elems) + ")"
	case *ast.BinaryOp, *ast.Negation:
		// An operation in a term is a call (FunctionCall.Raw.getText):
		// system."_add"(1, 1).
		op, args := operatorOf(e)
		name := functions.NegationName
		if op != 0 {
			name = functions.OperatorName(op)
		}
		return `system."` + name + `"(` + termTexts(args) + ")"
	}
	return e.String()
}

func termTexts(es []ast.Expr) string {
	parts := make([]string, len(es))
	for i, el := range es {
		parts[i] = termText(el)
	}
	return strings.Join(parts, ", ")
}

// operatorCall is one resolved operation.
type operatorCall struct {
	f    *functions.Func
	args []operand
}

// resolveOperator picks the overload of a binary operator (op != 0) or of
// unary minus (op == 0) for the operands; receiver is nil in a selection.
func resolveOperator(op byte, args []operand, receiver *types.Type) (*functions.Func, error) {
	candidates := functions.Negations()
	if op != 0 {
		candidates = functions.Operators(op)
	}
	var compatible []*functions.Func
	for _, f := range candidates {
		if receiver != nil && typeAssignment(f.Return, receiver) == types.NotAssignable {
			continue
		}
		switch matchOperands(f, args) {
		case types.ExactMatch:
			return f, nil
		case types.WeaklyAssignable:
			compatible = append(compatible, f)
		}
	}
	switch {
	case len(compatible) == 1:
		return compatible[0], nil
	case len(compatible) == 0 && op == 0:
		return nil, cqlerr.Invalidf("Invalid call to function system.%s, none of its type signatures match (known type signatures: %s)",
			functions.NegationName, negationSignatures())
	case len(compatible) == 0:
		return nil, cqlerr.Invalidf("the '%c' operation is not supported between %s and %s", op, args[0].text(), args[1].text())
	case op == 0:
		return nil, cqlerr.Invalidf("Ambiguous negation: use type casts to disambiguate")
	}
	if receiver != nil && !args[0].isMarker() && !args[1].isMarker() {
		for _, f := range compatible {
			if f.Args[0].Equal(receiver) && f.Args[1].Equal(receiver) {
				return f, nil
			}
		}
	}
	return nil, cqlerr.Invalidf("Ambiguous '%c' operation with args %s and %s: use type hint to disambiguate, example '(int) ?'",
		op, args[0].text(), args[1].text())
}

// matchOperands is FunctionResolver.matchAguments: exact if every operand
// is, not assignable if any is not.
func matchOperands(f *functions.Func, args []operand) types.Assignment {
	res := types.ExactMatch
	for i, a := range args {
		switch a.assign(f.Args[i]) {
		case types.NotAssignable:
			return types.NotAssignable
		case types.WeaklyAssignable:
			res = types.WeaklyAssignable
		}
	}
	return res
}

// negationSignatures lists the _negate overloads as Cassandra's message
// does (the name quoted, as it starts with an underscore).
func negationSignatures() string {
	fs := functions.Negations()
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = `system."` + f.Name + `" : (` + f.Args[0].String() + ") -> " + f.Return.String()
	}
	return strings.Join(parts, ", ")
}

// operatorOf returns the operator and operand expressions of a BinaryOp or
// Negation (op 0).
func operatorOf(e ast.Expr) (byte, []ast.Expr) {
	switch e := e.(type) {
	case *ast.BinaryOp:
		return byte(e.Op), []ast.Expr{e.Left, e.Right}
	case *ast.Negation:
		return 0, []ast.Expr{e.Operand}
	}
	return 0, nil
}

// resolveTermOperator resolves an operation inside a term.
func (b *binder) resolveTermOperator(e ast.Expr, receiver *types.Type) (*functions.Func, error) {
	op, exprs := operatorOf(e)
	args := make([]operand, len(exprs))
	for i, x := range exprs {
		args[i] = termOperand{b, x}
	}
	return resolveOperator(op, args, receiver)
}

// prepareOperationTerm types an operation in a term (an INSERT value, a
// WHERE value, ...): FunctionCall.Raw.prepare with the operands typed by
// the overload's parameters.
func (b *binder) prepareOperationTerm(e ast.Expr, recv receiver) (*Term, error) {
	f, err := b.resolveTermOperator(e, recv.Type)
	if err != nil {
		return nil, err
	}
	_, exprs := operatorOf(e)
	args := make([]*Term, len(exprs))
	for i, x := range exprs {
		// FunctionResolver.makeArgSpec names the parameter arg<i>(system.<name>).
		name := "arg" + itoa(i) + "(system." + f.Name + ")"
		if args[i], err = b.prepareTerm(x, receiver{Keyspace: recv.Keyspace, Table: recv.Table, Name: name, Type: f.Args[i]}); err != nil {
			return nil, err
		}
	}
	return &Term{Kind: TermFunc, Type: f.Return, Func: f, Args: args, Text: e.String()}, nil
}

// selectionOperand wraps one operand of an operation in a selection:
// terms stay unprepared until the overload is known, anything else is
// prepared now and has its type.
func (b *binder) selectionOperand(t *catalog.Table, e ast.Expr, used map[*catalog.Column]bool) (operand, *Selector, error) {
	switch x := e.(type) {
	case *ast.Literal, *ast.BindMarker, *ast.Null:
		return termOperand{b, e}, nil, nil
	case *ast.TupleLiteral:
		if len(x.Elems) == 1 {
			inner, sel, err := b.selectionOperand(t, x.Elems[0], used)
			return parenOperand{inner}, sel, err
		}
	}
	sel, err := b.prepareSelector(t, e, used)
	if err != nil {
		return nil, nil, err
	}
	return typedOperand{exactType(sel), sel.Name}, sel, nil
}

// finishOperand prepares an operand once its parameter type is known.
func (b *binder) finishOperand(t *catalog.Table, e ast.Expr, sel *Selector, typ *types.Type) (*Selector, error) {
	if x, ok := e.(*ast.TupleLiteral); ok && len(x.Elems) == 1 {
		inner, err := b.finishOperand(t, x.Elems[0], sel, typ)
		if err != nil {
			return nil, err
		}
		out := *inner
		out.Name = "(" + inner.Name + ")"
		return &out, nil
	}
	if sel != nil {
		return sel, nil
	}
	return b.selectionTerm(t, e, typ)
}

// selectionTerm prepares a term of a selection whose type is known
// (Selectable.WithTerm): its bind markers are all named [selection].
func (b *binder) selectionTerm(t *catalog.Table, e ast.Expr, typ *types.Type) (*Selector, error) {
	term, err := b.prepareTerm(e, receiver{Keyspace: t.Keyspace, Table: t.Name, Name: "[selection]", Type: typ})
	if err != nil {
		return nil, err
	}
	return &Selector{Kind: SelConst, Term: term, Type: typ, Name: termText(e)}, nil
}

// prepareOperationSelector prepares `a op b` or `-a` in a selection; the
// result is named as Cassandra names it: "a + b", "-a".
func (b *binder) prepareOperationSelector(t *catalog.Table, e ast.Expr, used map[*catalog.Column]bool) (*Selector, error) {
	op, exprs := operatorOf(e)
	args := make([]operand, len(exprs))
	sels := make([]*Selector, len(exprs))
	for i, x := range exprs {
		var err error
		if args[i], sels[i], err = b.selectionOperand(t, x, used); err != nil {
			return nil, err
		}
	}
	f, err := resolveOperator(op, args, nil)
	if err != nil {
		return nil, err
	}
	for i, x := range exprs {
		if sels[i], err = b.finishOperand(t, x, sels[i], f.Args[i]); err != nil {
			return nil, err
		}
	}
	name := "-" + sels[0].Name
	if op != 0 {
		name = sels[0].Name + " " + string(op) + " " + sels[1].Name
	}
	return &Selector{Kind: SelFunc, Func: f, Args: sels, Type: f.Return, Name: name}, nil
}
