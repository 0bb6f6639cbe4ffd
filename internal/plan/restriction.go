package plan

import (
	"fmt"
	"strings"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/types"
)

// RestrictionKind is the operator family of a restriction.
type RestrictionKind uint8

const (
	RestrictEQ RestrictionKind = iota
	RestrictIN
	RestrictSlice
	RestrictContains // CONTAINS and CONTAINS KEY, possibly several
	RestrictMapEQ    // m[k] = v
)

// Bound is one end of a slice restriction.
type Bound struct {
	Value     *Term // nil: unbounded; a tuple term for multi-column slices
	Inclusive bool
	// Size is the number of the restriction's leading columns the bound
	// covers: the two bounds of a merged multi-column slice may differ, as
	// in (b, c) > (1, 2) AND (b) < (3).
	Size int
}

// BoundColumns are the columns a bound of r covers.
func (r *Restriction) BoundColumns(b Bound) []*catalog.Column {
	if b.Size > 0 && b.Size < len(r.Columns) {
		return r.Columns[:b.Size]
	}
	return r.Columns
}

// Restriction is one analysed WHERE restriction on one column, or on
// several clustering columns (multi-column), or on token(partition key).
type Restriction struct {
	Kind    RestrictionKind
	Columns []*catalog.Column
	Multi   bool
	OnToken bool
	// EQ: Value. IN: Values (or one TermBindList). Slice: Start, End.
	Value      *Term
	Values     []*Term
	Start, End Bound
	// Contains: values and keys that must be in the collection.
	Contains    []*Term
	ContainsKey []*Term
	// MapEQ: the key and the value (Value).
	MapKey *Term
	// Contains: map entries m[k] = v merged with other relations on the
	// same map (Cassandra 5.0 merges them as it merges CONTAINS).
	Entries []MapEntry
	// Text is the relation as written, for messages.
	Text string
}

// MapEntry is one m[k] = v of a merged collection restriction.
type MapEntry struct{ Key, Value *Term }

func (r *Restriction) first() *catalog.Column { return r.Columns[0] }
func (r *Restriction) last() *catalog.Column  { return r.Columns[len(r.Columns)-1] }

func (r *Restriction) isSlice() bool { return r.Kind == RestrictSlice }
func (r *Restriction) isEQ() bool    { return r.Kind == RestrictEQ }
func (r *Restriction) isIN() bool    { return r.Kind == RestrictIN }

func (r *Restriction) columnNames() string {
	names := make([]string, len(r.Columns))
	for i, c := range r.Columns {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// String prints the restriction for EXPLAIN-style plan output.
func (r *Restriction) String() string {
	var lhs string
	switch {
	case r.OnToken:
		lhs = "token(" + r.columnNames() + ")"
	case r.Multi:
		lhs = "(" + r.columnNames() + ")"
	default:
		lhs = r.Columns[0].Name
	}
	switch r.Kind {
	case RestrictEQ:
		return lhs + " = " + r.Value.String()
	case RestrictIN:
		parts := make([]string, len(r.Values))
		for i, v := range r.Values {
			parts[i] = v.String()
		}
		return lhs + " IN (" + strings.Join(parts, ", ") + ")"
	case RestrictSlice:
		var parts []string
		if r.Start.Value != nil {
			op := " > "
			if r.Start.Inclusive {
				op = " >= "
			}
			parts = append(parts, lhs+op+r.Start.Value.String())
		}
		if r.End.Value != nil {
			op := " < "
			if r.End.Inclusive {
				op = " <= "
			}
			parts = append(parts, lhs+op+r.End.Value.String())
		}
		return strings.Join(parts, " AND ")
	case RestrictMapEQ:
		return fmt.Sprintf("%s[%s] = %s", lhs, r.MapKey, r.Value)
	}
	var parts []string
	for _, v := range r.Contains {
		parts = append(parts, lhs+" CONTAINS "+v.String())
	}
	for _, k := range r.ContainsKey {
		parts = append(parts, lhs+" CONTAINS KEY "+k.String())
	}
	for _, e := range r.Entries {
		parts = append(parts, fmt.Sprintf("%s[%s] = %s", lhs, e.Key, e.Value))
	}
	return strings.Join(parts, " AND ")
}

// operatorText prints an operator as Cassandra does in messages.
func operatorText(op ast.Operator) string { return op.String() }

// tupleType is the type of a multi-column relation's value.
func tupleType(cols []*catalog.Column) *types.Type {
	ts := make([]*types.Type, len(cols))
	for i, c := range cols {
		ts[i] = c.Type
	}
	return types.TupleOf(ts...)
}
