package systables

import (
	"bytes"
	"context"
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/token"
	"github.com/partita-db/partita/internal/types"
	"pgregory.net/rapid"
)

func testTable(pk, clustering []catalog.ColumnSpec, desc ...string) *catalog.Table {
	d := map[string]bool{}
	for _, n := range desc {
		d[n] = true
	}
	return catalog.NewBuiltinTable(catalog.BuiltinTable{Keyspace: "test", Name: "t",
		PartitionKey: pk, Clustering: clustering, Regular: []catalog.ColumnSpec{col("v", text)}, Desc: d})
}

// formatKeys prints each row's primary key columns as a tuple.
func formatKeys(t *catalog.Table, rows [][][]byte) string {
	var out []string
	n := len(t.PartitionKey) + len(t.Clustering)
	for _, r := range rows {
		var parts []string
		for i, c := range t.Columns[:n] {
			parts = append(parts, types.FormatLiteral(c.Type, r[i]))
		}
		out = append(out, "("+strings.Join(parts, ", ")+")")
	}
	return strings.Join(out, " ")
}

// TestSortRows pins the full-scan order. The token-ordered expectations
// follow from the Murmur3 vectors of cql-native-protocol.md §7: text "a"
// -8839064797231613815, "123" -7468325962851647638, "hello"
// -3758069500696749310; int 1 -4069959284402364209, 2 -3248873570005575792,
// 4 -2729420104000364805, 3 9010454139840013625.
func TestSortRows(t *testing.T) {
	textKey := testTable([]catalog.ColumnSpec{col("k", text)}, nil)
	intKey := testTable([]catalog.ColumnSpec{col("k", types.Int)}, nil)
	clustered := testTable([]catalog.ColumnSpec{col("k", text)},
		[]catalog.ColumnSpec{col("ts", types.Int), col("seq", types.Int)}, "ts")
	composite := testTable([]catalog.ColumnSpec{col("a", types.Int), col("b", text)}, nil)
	tv := textValue
	tests := []struct {
		name  string
		table *catalog.Table
		order PartitionOrder
		rows  [][][]byte
		want  string
	}{
		{"text keys by token", textKey, TokenOrder,
			[][][]byte{{tv("hello"), nil}, {tv("a"), nil}, {tv("123"), nil}},
			"('a') ('123') ('hello')"},
		{"int keys by token", intKey, TokenOrder,
			[][][]byte{{intValue(3), nil}, {intValue(1), nil}, {intValue(4), nil}, {intValue(2), nil}},
			"(1) (2) (4) (3)"},
		{"clustering within partitions, ts desc", clustered, TokenOrder,
			[][][]byte{
				{tv("hello"), intValue(1), intValue(1), nil},
				{tv("a"), intValue(1), intValue(1), nil},
				{tv("a"), intValue(2), intValue(1), nil},
				{tv("hello"), intValue(5), intValue(0), nil},
				{tv("a"), intValue(2), intValue(0), nil},
				{tv("a"), intValue(1), intValue(2), nil},
			},
			"('a', 2, 0) ('a', 2, 1) ('a', 1, 1) ('a', 1, 2) ('hello', 5, 0) ('hello', 1, 1)"},
		{"text keys by key", textKey, KeyOrder,
			[][][]byte{{tv("system_virtual_schema"), nil}, {tv("system_views"), nil}, {tv("b"), nil}},
			"('b') ('system_views') ('system_virtual_schema')"},
		{"composite keys by key", composite, KeyOrder,
			[][][]byte{{intValue(2), tv("a"), nil}, {intValue(1), tv("b"), nil}, {intValue(-1), tv("z"), nil}, {intValue(1), tv("a"), nil}},
			"(-1, 'z') (1, 'a') (1, 'b') (2, 'a')"},
		{"empty", textKey, TokenOrder, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			SortRows(tc.table, tc.order, tc.rows)
			if got := formatKeys(tc.table, tc.rows); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// checkScanOrder fails unless rows are in full-scan order for t.
func checkScanOrder(t interface{ Fatalf(string, ...any) }, tbl *catalog.Table, order PartitionOrder, rows [][][]byte) {
	npk := len(tbl.PartitionKey)
	for i := 1; i < len(rows); i++ {
		a, b := rows[i-1], rows[i]
		var d int
		if order == TokenOrder {
			ka, kb := token.SerializeKey(a[:npk]), token.SerializeKey(b[:npk])
			ta, tb := token.Of(ka), token.Of(kb)
			switch {
			case ta < tb:
				d = -1
			case ta > tb:
				d = 1
			default:
				d = bytes.Compare(ka, kb)
			}
		} else {
			for j, c := range tbl.PartitionKey {
				if d = types.Compare(c.Type, a[j], b[j]); d != 0 {
					break
				}
			}
		}
		if d > 0 {
			t.Fatalf("rows %d and %d: partitions out of order", i-1, i)
		}
		if d < 0 {
			continue
		}
		for j, c := range tbl.Clustering {
			d = types.Compare(c.Type, a[npk+j], b[npk+j])
			if c.Desc {
				d = -d
			}
			if d != 0 {
				break
			}
		}
		if d > 0 {
			t.Fatalf("rows %d and %d: clustering out of order", i-1, i)
		}
	}
}

// TestSortRowsProperty sorts random rows and checks that the result is a
// permutation of the input in full-scan order.
func TestSortRowsProperty(t *testing.T) {
	tbl := testTable([]catalog.ColumnSpec{col("a", types.Int), col("b", text)},
		[]catalog.ColumnSpec{col("c", types.Int), col("d", text)}, "d")
	rapid.Check(t, func(rt *rapid.T) {
		order := PartitionOrder(rapid.IntRange(0, 1).Draw(rt, "order"))
		n := rapid.IntRange(0, 40).Draw(rt, "n")
		rows := make([][][]byte, n)
		for i := range rows {
			rows[i] = [][]byte{
				intValue(int32(rapid.IntRange(-3, 3).Draw(rt, "a"))),
				textValue(rapid.SampledFrom([]string{"", "x", "y", "xy"}).Draw(rt, "b")),
				intValue(int32(rapid.IntRange(-2, 2).Draw(rt, "c"))),
				textValue(rapid.SampledFrom([]string{"p", "q"}).Draw(rt, "d")),
				binary.BigEndian.AppendUint32(nil, uint32(i)), // identity, in v
			}
		}
		sorted := slices.Clone(rows)
		SortRows(tbl, order, sorted)
		checkScanOrder(rt, tbl, order, sorted)
		seen := make([]bool, n)
		for _, r := range sorted {
			seen[binary.BigEndian.Uint32(r[4])] = true
		}
		if slices.Contains(seen, false) {
			rt.Fatalf("sorted rows are not a permutation of the input")
		}
	})
}

// TestRowsScanOrder checks invariant 3 on every built-in table rendered
// from the fixture schema.
func TestRowsScanOrder(t *testing.T) {
	s := fixtureSchema(t)
	env := &Env{Schema: s, Node: fixtureNode()}
	for _, ks := range Keyspaces() {
		for _, name := range ks.TableNames() {
			tbl := ks.Tables[name]
			t.Run(ks.Name+"."+name, func(t *testing.T) {
				rows, err := Rows(context.Background(), env, tbl)
				if err != nil {
					t.Fatal(err)
				}
				checkScanOrder(t, tbl, OrderOf(s.Keyspace(ks.Name)), rows)
			})
		}
	}
}

func TestOrderOf(t *testing.T) {
	tests := []struct {
		name string
		ks   *catalog.Keyspace
		want PartitionOrder
	}{
		{"nil", nil, TokenOrder},
		{"user", &catalog.Keyspace{Name: "ks"}, TokenOrder},
		{"system", &catalog.Keyspace{Name: "system"}, TokenOrder},
		{"virtual", &catalog.Keyspace{Name: "system_views", Virtual: true}, KeyOrder},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := OrderOf(tc.ks); got != tc.want {
				t.Errorf("got %d, want %d", got, tc.want)
			}
		})
	}
}
