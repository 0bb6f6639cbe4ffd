package plan

import (
	"fmt"
	"strings"

	"github.com/partita-db/partita/internal/functions"
	"github.com/partita-db/partita/internal/types"
)

// TermKind says how a term produces its value.
type TermKind uint8

const (
	TermConst    TermKind = iota // Value (nil = NULL)
	TermBind                     // the bound value Bind
	TermFunc                     // Func applied to Args
	TermList                     // a list literal of Args
	TermSet                      // a set literal of Args
	TermMap                      // a map literal: Args = key, value, key, value...
	TermTuple                    // a tuple literal of Args
	TermUDT                      // a UDT literal: Args in field order (nil = field absent)
	TermBindList                 // IN ?: the bound value is a list of Type
)

// Term is a value expression typed by its receiver (invariant 2).
type Term struct {
	Kind  TermKind
	Type  *types.Type
	Value []byte
	Bind  int
	Func  *functions.Func
	Args  []*Term
	// Text is the term as written, for messages.
	Text string
}

// IsConst reports whether the term's value is known at planning time.
func (t *Term) IsConst() bool { return t.Kind == TermConst }

// IsNullConst reports whether the term is the NULL literal.
func (t *Term) IsNullConst() bool { return t.Kind == TermConst && t.Value == nil }

// HasBind reports whether evaluating t needs bound values.
func (t *Term) HasBind() bool {
	if t.Kind == TermBind || t.Kind == TermBindList {
		return true
	}
	for _, a := range t.Args {
		if a != nil && a.HasBind() {
			return true
		}
	}
	return false
}

func (t *Term) String() string {
	switch t.Kind {
	case TermConst:
		if t.Value == nil {
			return "null"
		}
		return types.FormatLiteral(t.Type, t.Value)
	case TermBind, TermBindList:
		return fmt.Sprintf("$%d", t.Bind)
	case TermFunc:
		parts := make([]string, len(t.Args))
		for i, a := range t.Args {
			parts[i] = a.String()
		}
		return t.Func.Name + "(" + strings.Join(parts, ", ") + ")"
	}
	if t.Text != "" {
		return t.Text
	}
	return "<" + t.Type.String() + " literal>"
}

// BindVar describes one bind marker (invariant 3).
type BindVar struct {
	Keyspace, Table string
	// Name is the marker's name for :name markers, else the receiver's name
	// (a column name, or Cassandra's names such as [limit] or in(k)).
	Name string
	Type *types.Type
	// Named reports a :name marker.
	Named bool
}
