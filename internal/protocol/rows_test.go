package protocol

import (
	"bytes"
	"testing"

	"github.com/partita-db/partita/internal/types"
)

func localColumns(names ...string) []ColumnSpec {
	cols := make([]ColumnSpec, len(names))
	for i, n := range names {
		cols[i] = ColumnSpec{Keyspace: "system", Table: "local", Name: n, Type: types.Text}
	}
	return cols
}

var rowsSamples = []Message{
	&RowsResult{Meta: RowsMetadata{Columns: localColumns("key", "cluster_name")},
		Rows: [][][]byte{{[]byte("local"), []byte("Test Cluster")}}},
	// Columns from two tables: no global table spec.
	&RowsResult{Meta: RowsMetadata{Columns: []ColumnSpec{
		{Keyspace: "ks", Table: "a", Name: "x", Type: types.Int},
		{Keyspace: "ks", Table: "b", Name: "y", Type: types.MapOf(types.Text, types.Frozen(types.ListOf(types.SetOf(types.Int))))},
	}}, Rows: [][][]byte{{nil, []byte{}}, {{0, 0, 0, 1}, nil}}},
	// An empty result keeps its full column list (reference §0 item 3).
	&RowsResult{Meta: RowsMetadata{Columns: localColumns("peer", "data_center")}, Rows: [][][]byte{}},
	&RowsResult{Meta: RowsMetadata{Columns: localColumns("k"), PagingState: []byte{1, 2, 3}},
		Rows: [][][]byte{{[]byte("a")}, {[]byte("b")}}},
	// skip_metadata: only the count.
	&RowsResult{Meta: RowsMetadata{NoMetadata: true, ColumnCount: 3, PagingState: []byte{}},
		Rows: [][][]byte{{{1}, nil, {3}}}},
	&RowsResult{Meta: RowsMetadata{NoMetadata: true}, Rows: [][][]byte{}},
	// [applied] of an LWT.
	&RowsResult{Meta: RowsMetadata{Columns: []ColumnSpec{{Keyspace: "ks", Table: "t", Name: "[applied]", Type: types.Boolean}}},
		Rows: [][][]byte{{{1}}}},
}

func TestRows(t *testing.T) {
	for _, m := range rowsSamples {
		t.Run(describe(m), func(t *testing.T) { checkRoundTrip(t, m) })
	}
	t.Run("golden", func(t *testing.T) {
		want := unhex(t, `
			00000002             # Rows
			00000001 00000002    # Global_tables_spec, 2 columns
			0002 6b73 0001 74    # ks.t
			0001 6b 0009         # k int
			0001 76 000d         # v text
			00000002             # 2 rows
			00000004 00000001  00000001 61
			00000004 00000002  ffffffff`)
		m := &RowsResult{Meta: RowsMetadata{Columns: []ColumnSpec{
			{Keyspace: "ks", Table: "t", Name: "k", Type: types.Int},
			{Keyspace: "ks", Table: "t", Name: "v", Type: types.Text},
		}}, Rows: [][][]byte{{{0, 0, 0, 1}, []byte("a")}, {{0, 0, 0, 2}, nil}}}
		if got := m.Encode(nil); !bytes.Equal(got, want) {
			t.Fatalf("got  %x\nwant %x", got, want)
		}
	})
	t.Run("golden paging without metadata", func(t *testing.T) {
		want := unhex(t, `00000002  00000006 00000001  00000002 abcd  00000001 00000000`)
		m := &RowsResult{Meta: RowsMetadata{NoMetadata: true, ColumnCount: 1, PagingState: []byte{0xAB, 0xCD}},
			Rows: [][][]byte{{{}}}}
		if got := m.Encode(nil); !bytes.Equal(got, want) {
			t.Fatalf("got  %x\nwant %x", got, want)
		}
	})
	t.Run("rows are cut or padded to the column count", func(t *testing.T) {
		m := &RowsResult{Meta: RowsMetadata{Columns: localColumns("a", "b")},
			Rows: [][][]byte{{[]byte("x")}, {[]byte("1"), []byte("2"), []byte("3")}}}
		var back RowsResult
		if err := back.Decode(m.Encode(nil)); err != nil {
			t.Fatal(err)
		}
		want := [][][]byte{{[]byte("x"), nil}, {[]byte("1"), []byte("2")}}
		if describe(back.Rows) != describe(want) {
			t.Fatalf("got %s", describe(back.Rows))
		}
	})
	t.Run("no metadata keeps the columns' count", func(t *testing.T) {
		m := &RowsResult{Meta: RowsMetadata{NoMetadata: true, Columns: localColumns("a", "b")}, Rows: [][][]byte{{{1}, {2}}}}
		var back RowsResult
		if err := back.Decode(m.Encode(nil)); err != nil {
			t.Fatal(err)
		}
		if back.Meta.ColumnCount != 2 || len(back.Rows[0]) != 2 {
			t.Fatalf("got %s", describe(&back))
		}
	})
	errs := []struct{ name, body, want string }{
		{"negative columns", `00000002 00000004 ffffffff`, "Invalid columns count -1"},
		{"negative rows", `00000002 00000004 00000001 ffffffff`, "Invalid rows count -1"},
		{"rows beyond body", `00000002 00000004 00000002 7fffffff 00000000`, "Not enough bytes to read 2147483647 rows"},
		{"empty rows beyond bound", `00000002 00000004 00000000 7fffffff`, "too large for a result without columns"},
		{"columns beyond body", `00000002 00000001 7fffffff 0002 6b73 0001 74`, "Not enough bytes"},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) { wantProtocolError(t, (&RowsResult{}).Decode(unhex(t, tc.body)), tc.want) })
	}
}
