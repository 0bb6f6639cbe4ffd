package functions

import (
	"strings"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/types"
)

// Factory builds the overload of a generic native function for the types
// of a call's arguments (cql3/functions/FunctionFactory.java): map_keys
// has one overload per map type.
type Factory struct {
	Name   string
	Params []Param
	build  func(args []*types.Type) *Func
}

// Param is one parameter of a factory's functions (FunctionParameter):
// what it is called in errors, and what argument types it accepts.
type Param struct {
	name     string
	optional bool
	// validate returns the error for an argument (text arg) of type t
	// the parameter refuses, nil if it accepts it.
	validate func(fn, arg string, t *types.Type) error
	// infer gives the parameter's type from the argument's known type
	// (nil if unknown) and the first argument's; nil means the argument
	// keeps its known type.
	infer func(known, first *types.Type) *types.Type
}

var factories = map[string]*Factory{}

func registerFactory(f *Factory) { factories[f.Name] = f }

// LookupFactory returns the factory of a function name (case-insensitive,
// with or without the system keyspace), or nil.
func LookupFactory(name string) *Factory {
	return factories[strings.TrimPrefix(strings.ToLower(name), "system.")]
}

func (f *Factory) String() string {
	parts := make([]string, len(f.Params))
	for i, p := range f.Params {
		parts[i] = p.name
		if p.optional {
			parts[i] = "[" + p.name + "]"
		}
	}
	return "system." + f.Name + "(" + strings.Join(parts, ", ") + ")"
}

// Instantiate returns the function for a call whose arguments print as
// args and have the types known (nil where an argument's type cannot be
// inferred: a literal or bind marker without a type hint).
func (f *Factory) Instantiate(args []string, known []*types.Type) (*Func, error) {
	mandatory := 0
	for _, p := range f.Params {
		if !p.optional {
			mandatory++
		}
	}
	if len(args) < mandatory || len(args) > len(f.Params) {
		return nil, cqlerr.Invalidf("Invalid number of arguments for function %s", f)
	}
	argTypes := make([]*types.Type, len(args))
	for i, a := range args {
		t := known[i]
		if p := f.Params[i]; p.infer != nil {
			var first *types.Type
			if i > 0 {
				first = argTypes[0]
			}
			t = p.infer(t, first)
		}
		if t == nil {
			return nil, cqlerr.Invalidf("Cannot infer type of argument %s in call to function %s: use type casts to disambiguate", a, f)
		}
		if v := f.Params[i].validate; v != nil {
			if err := v("system."+f.Name, a, t); err != nil {
				return nil, err
			}
		}
		argTypes[i] = t
	}
	return f.build(argTypes), nil
}

func anyMapParam() Param {
	return Param{name: "map", validate: func(fn, arg string, t *types.Type) error {
		if t.Kind != types.KindMap {
			return cqlerr.Invalidf("Function %s requires a map argument, but found argument %s of type %s", fn, arg, t)
		}
		return nil
	}}
}

func anyCollectionParam() Param {
	return Param{name: "collection", validate: func(fn, arg string, t *types.Type) error {
		if !t.IsCollection() {
			return cqlerr.Invalidf("Function %s requires a collection argument, but found argument %s of type %s", fn, arg, t)
		}
		return nil
	}}
}

// setOrListParam is FunctionParameter.setOrList, which prints itself as
// numeric_set_or_list.
func setOrListParam() Param {
	return Param{name: "numeric_set_or_list", validate: func(fn, arg string, t *types.Type) error {
		if t.Kind != types.KindSet && t.Kind != types.KindList {
			return cqlerr.Invalidf("Function %s requires a set or list argument, but found argument %s of type %s", fn, arg, t)
		}
		return nil
	}}
}

func numericSetOrListParam() Param {
	return Param{name: "numeric_set_or_list", validate: func(fn, arg string, t *types.Type) error {
		if (t.Kind != types.KindSet && t.Kind != types.KindList) || !isNumber(t.Elems[0]) {
			return cqlerr.Invalidf("Function %s requires a numeric set/list argument, but found argument %s of type %s", fn, arg, t)
		}
		return nil
	}}
}

// anyTypeParam accepts any argument whose type is known.
func anyTypeParam() Param { return Param{name: "any"} }

// sameAsFirstParam takes the first argument's type.
func sameAsFirstParam() Param {
	return Param{name: "same", infer: func(_, first *types.Type) *types.Type { return first }}
}

// fixedParam accepts the given types, and gives an argument of unknown
// type the first of them (FunctionParameter.fixed).
func fixedParam(name string, accepted ...*types.Type) Param {
	return Param{name: name,
		infer: func(known, _ *types.Type) *types.Type {
			if known != nil {
				return known
			}
			return accepted[0]
		},
		validate: func(fn, arg string, t *types.Type) error {
			for _, a := range accepted {
				if a.Equal(t) || valueCompatibleWith(a, t) {
					return nil
				}
			}
			return cqlerr.Invalidf("Function %s requires an argument of type %s, but found argument %s of type %s", fn, name, arg, t)
		}}
}

// valueCompatibleWith is AbstractType.isValueCompatibleWith for the
// native types fixed parameters name: text reads ascii.
func valueCompatibleWith(to, from *types.Type) bool {
	return to.Kind == types.KindVarchar && from.Kind == types.KindAscii
}

func optionalParam(p Param) Param {
	p.optional = true
	return p
}
