package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/types"
)

// TestSelectionResultTypes checks the result metadata types of operations,
// element and slice selections and WRITETIME/TTL, which the datadriven
// files do not print. The expected types are Cassandra 5.0.6's, read from
// its result metadata for the same statements (OperationFcts.returnType:
// the larger operand's size, floating point if either operand is; a
// literal takes its preferred type; WRITETIME of several cells is a list).
// The native protocol has no frozen flag; frozen<> is Partita's own type.
func TestSelectionResultTypes(t *testing.T) {
	h := cqltest.New(t)
	mustExec(t, h.Session, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TYPE ks.ut (a int, b text)",
		"CREATE TABLE ks.n (k int PRIMARY KEY, ti tinyint, si smallint, i int, b bigint, f float, d double, dc decimal, vi varint)",
		"CREATE TABLE ks.o (k int PRIMARY KEY, t text, a ascii, ts timestamp, dt date, m map<text, int>, s set<int>, fm frozen<map<int, text>>, u ut, l list<int>)",
		"CREATE TABLE ks.cc (k int PRIMARY KEY, c counter)")
	for _, tc := range []struct{ table, selectors, types string }{
		{"n", "ti + ti, ti + si, ti + i, ti + b, ti + f, ti + d, ti + dc, ti + vi, si + si, si + i, si + f, i + i, i + b, i + f, i + d, i + dc, i + vi",
			"tinyint, smallint, int, bigint, float, double, decimal, varint, smallint, int, float, int, bigint, float, double, decimal, varint"},
		{"n", "b + b, b + f, b + d, b + vi, f + f, f + d, f + dc, f + vi, d + d, d + dc, d + vi, dc + dc, dc + vi, vi + vi",
			"bigint, double, double, varint, float, double, decimal, decimal, double, decimal, decimal, decimal, decimal, varint"},
		{"n", "ti / ti, si % si, i * i, b - b, ti + 1, si + 1, i + 1, b + 1, f + 1, d + 1, dc + 1, vi + 1",
			"tinyint, smallint, int, bigint, int, int, int, bigint, float, double, decimal, varint"},
		{"n", "i + 1.5, f + 1.5, i + 10000000000, i + 100000000000000000000, f + 0.1000000000000000000001",
			"double, double, bigint, varint, decimal"},
		{"n", "- ti, - si, - i, - b, - f, - d, - dc, - vi",
			"tinyint, smallint, int, bigint, float, double, decimal, varint"},
		{"o", "t + t, t + a, a + t, a + a, t + 'x', a + 'x', a + 'é', ts + 1d, dt + 1d, ts - 1mo, dt - 1d, (date)'2024-01-01' + 1d",
			"text, text, text, ascii, text, ascii, text, timestamp, date, timestamp, date, date"},
		{"o", "m['a'], m['a'..'b'], s[1], s[1..2], fm[1], fm[1..2], u.a",
			"int, map<text, int>, int, set<int>, text, frozen<map<int, text>>, int"},
		{"o", "writetime(m), writetime(m['a']), ttl(m), ttl(m['a']), maxwritetime(m), maxwritetime(m['a']), writetime(l), writetime(u), writetime(u.a), writetime(fm), writetime(fm[1])",
			"list<bigint>, bigint, list<int>, int, bigint, bigint, list<bigint>, list<bigint>, bigint, bigint, bigint"},
		{"o", "(int)1 + 2, (bigint)1 + (int)2, (tinyint)1 + (tinyint)2, (smallint)1 * (tinyint)2, (float)1 + (float)2, (varint)1 + 1, (decimal)1 + 1",
			"int, bigint, tinyint, smallint, float, varint, decimal"},
		{"cc", "c + c, c + 1, c + 1.5, c + (int)1, c + (tinyint)1, c + (float)1, c + (decimal)1, c + (varint)1, - c, c / c",
			"bigint, bigint, double, bigint, bigint, double, decimal, varint, counter, bigint"},
	} {
		q := "SELECT " + tc.selectors + " FROM ks." + tc.table
		res, err := h.Session.Query(context.Background(), q, nil)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		got := make([]string, len(res.Columns))
		for i, c := range res.Columns {
			got[i] = c.Type.String()
		}
		if strings.Join(got, ", ") != tc.types {
			t.Errorf("%s:\n got  %s\n want %s", q, strings.Join(got, ", "), tc.types)
		}
	}
}

// TestSelectionBindMarkers prepares subscripts and operations with bind
// markers and executes them. The bind variables' names and types, the
// result column names and the answers are Cassandra 5.0.6's for the same
// statements: a map key is named key(m), a set element value(s), a marker
// in a selection [selection], an operand arg<i>(system.<operation>); null
// and unset subscripts are refused even when no row is read, an unset
// slice bound is an open bound; a counter increment's marker is a counter.
func TestSelectionBindMarkers(t *testing.T) {
	h := cqltest.New(t)
	mustExec(t, h.Session, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, m map<text, int>, s set<int>, fm frozen<map<int, text>>, i int, b bigint)",
		"INSERT INTO ks.t (k, m, s, fm, i, b) VALUES (1, {'a': 1, 'b': 2, 'c': 3}, {1, 2, 3}, {1: 'x', 2: 'y'}, 10, 20)",
		"CREATE TABLE ks.c (k int PRIMARY KEY, n counter)")
	text := func(s string) engine.Value { return engine.Value{Bytes: []byte(s)} }
	bigint := func(n int64) engine.Value { v, _ := types.EncodeInt(types.Bigint, n); return engine.Value{Bytes: v} }
	null, unset := engine.Value{}, engine.Value{Unset: true}
	for _, tc := range []struct {
		stmt   string
		values []engine.Value
		want   string // bind variables; result columns; rows or the error
	}{
		{"SELECT m[?], s[?], fm[?] FROM ks.t WHERE k = ?", []engine.Value{text("b"), int32Value(2), int32Value(1), int32Value(1)},
			"key(m) text, value(s) int, key(fm) int, k int; m[?] int, s[?] int, fm[?] text; 2 | 2 | x"},
		{"SELECT m[:key] FROM ks.t WHERE k = 1", []engine.Value{text("b")}, "key text; m[?] int; 2"},
		{"SELECT m[?..?] FROM ks.t WHERE k = 1", []engine.Value{text("a"), text("b")},
			"key(m) text, key(m) text; m[?..?] map<text, int>; {'a': 1, 'b': 2}"},
		{"SELECT m[?..?] FROM ks.t WHERE k = 1", []engine.Value{unset, text("b")},
			"key(m) text, key(m) text; m[?..?] map<text, int>; {'a': 1, 'b': 2}"},
		{"SELECT m[?..?] FROM ks.t WHERE k = 1", []engine.Value{unset, unset},
			"key(m) text, key(m) text; m[?..?] map<text, int>; {'a': 1, 'b': 2, 'c': 3}"},
		{"SELECT m[?..?] FROM ks.t WHERE k = 1", []engine.Value{null, text("b")},
			"key(m) text, key(m) text; m[?..?] map<text, int>; Invalid null value for slice selection on m"},
		{"SELECT m[?] FROM ks.t WHERE k = 1", []engine.Value{null}, "key(m) text; m[?] int; Invalid null value for element selection on m"},
		{"SELECT m[?] FROM ks.t WHERE k = 1", []engine.Value{unset}, "key(m) text; m[?] int; Invalid unset value for element selection on m"},
		{"SELECT m[?] FROM ks.t WHERE k = 3", []engine.Value{null}, "key(m) text; m[?] int; Invalid null value for element selection on m"},
		{"SELECT i + (int)? FROM ks.t WHERE k = 1", []engine.Value{int32Value(1)}, "[selection] int; i + (int)? int; 11"},
		{"SELECT (bigint)? * b FROM ks.t WHERE k = 1", []engine.Value{bigint(3)}, "[selection] bigint; (bigint)? * b bigint; 60"},
		{"SELECT i / (int)? FROM ks.t WHERE k = 1", []engine.Value{int32Value(0)},
			"[selection] int; i / (int)? int; the operation 'int / int' failed: / by zero"},
		{"SELECT k, b FROM ks.t WHERE k = (int)? + 1", []engine.Value{int32Value(0)}, "arg0(system._add) int; k int, b bigint; 1 | 20"},
		{"INSERT INTO ks.t (k, b) VALUES (?, (bigint)? + 1)", []engine.Value{int32Value(2), bigint(1)}, "k int, arg0(system._add) bigint; ; "},
		{"UPDATE ks.t SET b = (bigint)? * 2 WHERE k = ?", []engine.Value{bigint(21), int32Value(2)}, "arg0(system._multiply) bigint, k int; ; "},
		{"SELECT b FROM ks.t WHERE k = 2", nil, "; b bigint; 42"},
		// A counter update's value is typed by the counter column.
		{"UPDATE ks.c SET n = n + ? WHERE k = ?", []engine.Value{bigint(5), int32Value(1)}, "n counter, k int; ; "},
		{"SELECT n FROM ks.c WHERE k = 1", nil, "; n counter; 5"},
	} {
		if got := prepareAndRun(t, h, tc.stmt, tc.values); got != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.stmt, got, tc.want)
		}
	}
	for _, stmt := range []string{"SELECT i + ? FROM ks.t", "INSERT INTO ks.t (k, b) VALUES (?, ? + 1)"} {
		_, err := h.Session.Prepare(context.Background(), stmt)
		if want := "Ambiguous '+' operation with args "; err == nil || !strings.HasPrefix(cqlerr.As(err).Message, want) {
			t.Errorf("prepare %s: %v, want %s...", stmt, err, want)
		}
	}
}

// prepareAndRun prepares stmt, executes it and renders the bind variables,
// the result columns and the rows (or the error's message).
func prepareAndRun(t *testing.T, h *cqltest.Harness, stmt string, values []engine.Value) string {
	t.Helper()
	ctx := context.Background()
	p, err := h.Session.Prepare(ctx, stmt)
	if err != nil {
		return "prepare: " + cqlerr.As(err).Message
	}
	var binds, cols, rows []string
	for _, b := range p.BindVariables {
		binds = append(binds, b.Name+" "+b.Type.String())
	}
	for _, c := range p.Columns {
		cols = append(cols, c.Name+" "+c.Type.String())
	}
	res, err := h.Session.Execute(ctx, p.PreparedID, &engine.Options{Values: values})
	if err != nil {
		rows = []string{cqlerr.As(err).Message}
	} else {
		for _, row := range res.Rows {
			cells := make([]string, len(row))
			for i, v := range row {
				cells[i] = types.Format(res.Columns[i].Type, v)
			}
			rows = append(rows, strings.Join(cells, " | "))
		}
	}
	return strings.Join(binds, ", ") + "; " + strings.Join(cols, ", ") + "; " + strings.Join(rows, " / ")
}
