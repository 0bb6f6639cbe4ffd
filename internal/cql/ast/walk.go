package ast

// Walk calls visit for n and, when visit returns true, for the statements,
// clauses, relations and expressions under it, depth first in source order.
// Identifiers, names and types are not visited; nil children are skipped.
// A typical use collects bind markers:
//
//	ast.Walk(stmt, func(n ast.Node) bool {
//		if m, ok := n.(*ast.BindMarker); ok {
//			markers = append(markers, m)
//		}
//		return true
//	})
func Walk(n Node, visit func(Node) bool) {
	if n == nil || !visit(n) {
		return
	}
	for _, c := range children(n) {
		Walk(c, visit)
	}
}

func exprs(es ...Expr) []Node {
	out := make([]Node, 0, len(es))
	for _, e := range es {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}

func relations(rs []Relation) []Node {
	out := make([]Node, 0, len(rs))
	for _, r := range rs {
		out = append(out, r)
	}
	return out
}

func conditions(cs []Condition) []Node {
	out := make([]Node, 0, len(cs))
	for _, c := range cs {
		out = append(out, c)
	}
	return out
}

func usingChildren(u UsingClause) []Node {
	if u.IsEmpty() {
		return nil
	}
	return []Node{u}
}

// children lists the direct children of n in source order (a flat switch
// over the node types).
func children(n Node) []Node {
	switch v := n.(type) {
	case *Select:
		var out []Node
		for _, s := range v.Selectors {
			out = append(out, s)
		}
		out = append(out, relations(v.Where)...)
		out = append(out, exprs(v.GroupBy...)...)
		for _, o := range v.OrderBy {
			out = append(out, o)
		}
		return append(out, exprs(v.PerPartitionLimit, v.Limit)...)
	case Selector:
		return exprs(v.Expr)
	case OrderItem:
		return exprs(v.Ann)
	case *Insert:
		out := exprs(v.Values...)
		out = append(out, exprs(v.Json)...)
		return append(out, usingChildren(v.Using)...)
	case *Update:
		out := usingChildren(v.Using)
		for _, a := range v.Assignments {
			out = append(out, a)
		}
		out = append(out, relations(v.Where)...)
		return append(out, conditions(v.Conditions)...)
	case *Delete:
		var out []Node
		for _, d := range v.Columns {
			out = append(out, d)
		}
		out = append(out, usingChildren(v.Using)...)
		out = append(out, relations(v.Where)...)
		return append(out, conditions(v.Conditions)...)
	case *Batch:
		out := usingChildren(v.Using)
		for _, s := range v.Statements {
			out = append(out, s)
		}
		return out
	case UsingClause:
		return exprs(v.TTL, v.Timestamp)
	case Assignment:
		return exprs(v.Key, v.Value)
	case Condition:
		return exprs(v.Key, v.Value)
	case DeleteTarget:
		return exprs(v.Key)
	case *SingleColumnRelation:
		return exprs(v.Value)
	case *MultiColumnRelation:
		return exprs(v.Value)
	case *TokenRelation:
		return exprs(v.Value)
	case *MapElementRelation:
		return exprs(v.Key, v.Value)
	case *CustomIndexRelation:
		return exprs(v.Value)
	case *FunctionCall:
		return exprs(v.Args...)
	case *TypeCast:
		return exprs(v.Expr)
	case *Cast:
		return exprs(v.Expr)
	case *ListLiteral:
		return exprs(v.Elems...)
	case *SetLiteral:
		return exprs(v.Elems...)
	case *TupleLiteral:
		return exprs(v.Elems...)
	case *InList:
		return exprs(v.Elems...)
	case *MapLiteral:
		var out []Node
		for _, e := range v.Entries {
			out = append(out, exprs(e.Key, e.Value)...)
		}
		return out
	case *UDTLiteral:
		var out []Node
		for _, f := range v.Fields {
			out = append(out, exprs(f.Value)...)
		}
		return out
	case *Negation:
		return exprs(v.Operand)
	case *BinaryOp:
		return exprs(v.Left, v.Right)
	case *WriteTimeOrTTL:
		return exprs(v.Column)
	case *FieldAccess:
		return exprs(v.Expr)
	case *ElementAccess:
		return exprs(v.Expr, v.Key)
	case *SliceAccess:
		return exprs(v.Expr, v.From, v.To)
	case *CreateKeyspace:
		return properties(v.Options)
	case *AlterKeyspace:
		return properties(v.Options)
	case *CreateTable:
		var out []Node
		for _, c := range v.Columns {
			if c.Mask != nil {
				out = append(out, c.Mask)
			}
		}
		return append(out, properties(v.Options)...)
	case *AlterTable:
		if v.Action == nil {
			return nil
		}
		return []Node{v.Action}
	case *AddColumns:
		var out []Node
		for _, c := range v.Columns {
			if c.Mask != nil {
				out = append(out, c.Mask)
			}
		}
		return out
	case *AlterColumnMask:
		if v.Mask == nil {
			return nil
		}
		return []Node{v.Mask}
	case *ColumnMask:
		return exprs(v.Args...)
	case *DropColumns:
		return exprs(v.Timestamp)
	case *AlterTableOptions:
		return properties(v.Options)
	case *CreateIndex:
		out := properties(v.Options)
		if v.Using != nil {
			out = append([]Node{v.Using}, out...)
		}
		return out
	case *CreateView:
		var out []Node
		for _, sel := range v.Selectors {
			out = append(out, sel)
		}
		out = append(out, relations(v.Where)...)
		return append(out, properties(v.Options)...)
	case *AlterView:
		return properties(v.Options)
	case Property:
		return exprs(v.Value)
	}
	return nil
}

func properties(ps Properties) []Node {
	out := make([]Node, 0, len(ps))
	for _, p := range ps {
		out = append(out, p)
	}
	return out
}
