package differential_test

import (
	"fmt"
	"math/rand"
	"strings"
)

// rRole is a column's place in its table.
type rRole int

const (
	rolePK rRole = iota
	roleCK
	roleStatic
	roleRegular
)

// rColumn is a column of a random table.
type rColumn struct {
	name string
	typ  *rType
	role rRole
	desc bool // clustering column in DESC order
}

func (c *rColumn) isKey() bool { return c.role == rolePK || c.role == roleCK }

// rTable is a random table: 1-2 partition key columns, 0-3 clustering
// columns in random order, static columns sometimes, regular columns (or
// counters, for a counter table).
type rTable struct {
	name    string
	pk, ck  []*rColumn
	statics []*rColumn
	regular []*rColumn
	counter bool
	udt     *rUDT // the UDT the table's columns use, if any
	// lwt is set once a conditional statement or a counter update (written
	// at the servers' clocks, not at USING TIMESTAMP) has been generated
	// for the table: from then on its write times differ between the two
	// servers, so writetime() is no longer selected.
	lwt bool
}

// columns lists the columns in SELECT * order.
func (t *rTable) columns() []*rColumn {
	var all []*rColumn
	all = append(all, t.pk...)
	all = append(all, t.ck...)
	all = append(all, t.statics...)
	return append(all, t.regular...)
}

// nonKey lists the static and regular columns.
func (t *rTable) nonKey() []*rColumn {
	return append(append([]*rColumn(nil), t.statics...), t.regular...)
}

// genUDT draws the session's user-defined type.
func genUDT(name string) *rUDT {
	return &rUDT{name: name, fields: []string{"fa", "fb"}, types: []*rType{scalarType("int"), scalarType("text")}}
}

func (u *rUDT) create() string {
	parts := make([]string, len(u.fields))
	for i, f := range u.fields {
		parts[i] = f + " " + u.types[i].cql()
	}
	return fmt.Sprintf("CREATE TYPE %s (%s)", u.name, strings.Join(parts, ", "))
}

// genTable draws a table; udt, when not nil, may type some columns.
func genTable(r *rand.Rand, name string, udt *rUDT, counter bool) *rTable {
	t := &rTable{name: name, counter: counter}
	for i, n := 0, 1+r.Intn(2); i < n; i++ {
		t.pk = append(t.pk, &rColumn{name: fmt.Sprintf("pk%d", i), typ: t.keyType(r, udt), role: rolePK})
	}
	nck := r.Intn(4)
	if counter {
		nck = r.Intn(3)
	}
	for i := 0; i < nck; i++ {
		t.ck = append(t.ck, &rColumn{name: fmt.Sprintf("ck%d", i), typ: t.keyType(r, udt), role: roleCK, desc: r.Intn(3) == 0})
	}
	if counter {
		for i, n := 0, 1+r.Intn(2); i < n; i++ {
			t.regular = append(t.regular, &rColumn{name: fmt.Sprintf("c%d", i), typ: &rType{kind: kCounter}, role: roleRegular})
		}
		if nck > 0 && r.Intn(3) == 0 {
			t.statics = append(t.statics, &rColumn{name: "sc", typ: &rType{kind: kCounter}, role: roleStatic})
		}
		return t
	}
	if nck > 0 && r.Intn(2) == 0 {
		for i, n := 0, 1+r.Intn(2); i < n; i++ {
			t.statics = append(t.statics, &rColumn{name: fmt.Sprintf("s%d", i), typ: t.valueType(r, udt), role: roleStatic})
		}
	}
	for i, n := 0, 1+r.Intn(4); i < n; i++ {
		t.regular = append(t.regular, &rColumn{name: fmt.Sprintf("v%d", i), typ: t.valueType(r, udt), role: roleRegular})
	}
	return t
}

func (t *rTable) keyType(r *rand.Rand, udt *rUDT) *rType {
	typ := keyType(r, udt)
	if typ.kind == kUDT {
		t.udt = udt
	}
	return typ
}

func (t *rTable) valueType(r *rand.Rand, udt *rUDT) *rType {
	typ := valueType(r, udt)
	if typ.kind == kUDT {
		t.udt = udt
	}
	return typ
}

// create is the table's CREATE TABLE statement.
func (t *rTable) create() string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (", t.name)
	for _, c := range t.columns() {
		fmt.Fprintf(&b, "%s %s", c.name, c.typ.cql())
		if c.role == roleStatic {
			b.WriteString(" static")
		}
		b.WriteString(", ")
	}
	names := func(cols []*rColumn) []string {
		out := make([]string, len(cols))
		for i, c := range cols {
			out[i] = c.name
		}
		return out
	}
	pk := strings.Join(names(t.pk), ", ")
	if len(t.pk) > 1 {
		pk = "(" + pk + ")"
	}
	fmt.Fprintf(&b, "PRIMARY KEY (%s)", strings.Join(append([]string{pk}, names(t.ck)...), ", "))
	b.WriteString(")")
	var order []string
	anyDesc := false
	for _, c := range t.ck {
		dir := "ASC"
		if c.desc {
			dir, anyDesc = "DESC", true
		}
		order = append(order, c.name+" "+dir)
	}
	if anyDesc {
		fmt.Fprintf(&b, " WITH CLUSTERING ORDER BY (%s)", strings.Join(order, ", "))
	}
	return b.String()
}
