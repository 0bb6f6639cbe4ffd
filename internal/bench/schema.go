package bench

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// colType is a column type both CQL and SQL can express.
type colType int

const (
	colText colType = iota
	colTimestamp
	colFloat
	colDate
	colTimeUUID
	colBigint
)

// cql and sql name the type in each dialect. CQL timestamps have
// millisecond precision; timestamptz keeps them exactly.
func (t colType) cql() string {
	return [...]string{"text", "timestamp", "float", "date", "timeuuid", "bigint"}[t]
}

func (t colType) sql() string {
	return [...]string{"text", "timestamptz", "real", "date", "uuid", "bigint"}[t]
}

type column struct {
	name string
	typ  colType
}

// table is a workload table, written once and rendered as CQL for Partita
// and as SQL for PostgreSQL with the same primary key.
type table struct {
	name       string
	cols       []column // key columns first, in primary key order
	partition  int      // the first partition columns form the partition key
	clustering int      // the next clustering columns are the clustering key
	desc       []bool   // clustering order per clustering column (true = DESC)
	// cqlOptions are more CQL table options ("extensions = {...}"); the
	// SQL table has no equivalent.
	cqlOptions string
}

func (t *table) keyCols() int { return t.partition + t.clustering }

func (t *table) colNames() []string {
	names := make([]string, len(t.cols))
	for i, c := range t.cols {
		names[i] = c.name
	}
	return names
}

// createCQL is the Cassandra DDL.
func (t *table) createCQL() string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (", t.name)
	for _, c := range t.cols {
		fmt.Fprintf(&b, "%s %s, ", c.name, c.typ.cql())
	}
	names := t.colNames()
	fmt.Fprintf(&b, "PRIMARY KEY ((%s)", strings.Join(names[:t.partition], ", "))
	for _, n := range names[t.partition:t.keyCols()] {
		b.WriteString(", " + n)
	}
	b.WriteString("))")
	if slices.Contains(t.desc, true) {
		var order []string
		for i, n := range names[t.partition:t.keyCols()] {
			dir := "ASC"
			if t.desc[i] {
				dir = "DESC"
			}
			order = append(order, n+" "+dir)
		}
		fmt.Fprintf(&b, " WITH CLUSTERING ORDER BY (%s)", strings.Join(order, ", "))
	}
	if t.cqlOptions != "" {
		if slices.Contains(t.desc, true) {
			b.WriteString(" AND " + t.cqlOptions)
		} else {
			b.WriteString(" WITH " + t.cqlOptions)
		}
	}
	return b.String()
}

// createSQL is the PostgreSQL DDL: the primary key (partition columns,
// clustering columns). PostgreSQL scans a B-tree either way, so one
// direction for every clustering column needs nothing more; mixed
// directions (DESC, ASC) get the key as a unique index in clustering order
// instead, since a PRIMARY KEY index cannot carry sort directions.
func (t *table) createSQL() []string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (", t.name)
	for i, c := range t.cols {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", c.name, c.typ.sql())
		if i < t.keyCols() {
			b.WriteString(" NOT NULL")
		}
	}
	names := t.colNames()
	if !t.mixedOrder() {
		fmt.Fprintf(&b, ", PRIMARY KEY (%s))", strings.Join(names[:t.keyCols()], ", "))
		return []string{b.String()}
	}
	b.WriteString(")")
	key := slices.Clone(names[:t.keyCols()])
	for i := range t.clustering {
		if t.desc[i] {
			key[t.partition+i] += " DESC"
		}
	}
	return []string{b.String(), fmt.Sprintf("CREATE UNIQUE INDEX %s_key ON %s (%s)", t.name, t.name, strings.Join(key, ", "))}
}

func (t *table) mixedOrder() bool {
	return slices.Contains(t.desc, true) && slices.Contains(t.desc, false)
}

// insertCQL writes every column; the arguments are the row in column order.
func (t *table) insertCQL() string {
	names := t.colNames()
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(names)), ", ")
	return fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", t.name, strings.Join(names, ", "), marks)
}

// toSQL turns CQL bind markers (?) into PostgreSQL's ($1, $2, ...). The
// statements here hold no string literals, so every ? is a marker.
func toSQL(cql string) string {
	var b strings.Builder
	n := 0
	for _, r := range cql {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// stmtKind says what a statement does, which decides how systems run it.
type stmtKind int

const (
	kindWrite stmtKind = iota
	kindRead
	kindDelete
)

// statement is one request shape, in both dialects.
type statement struct {
	kind stmtKind
	cql  string
	sql  string // empty: toSQL(cql)
	// table is the table a write goes to (its key columns lead the
	// arguments); the Pebble floor encodes rows from it.
	table *table
}

func (s statement) sqlText() string {
	if s.sql != "" {
		return s.sql
	}
	return toSQL(s.cql)
}
