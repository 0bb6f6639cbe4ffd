package protocol

import (
	"bytes"
	"testing"

	"github.com/partita-db/partita/internal/types"
)

func benchDecode(b *testing.B, req Request) {
	f := readOne(b, AppendRequest(nil, 1, req))
	b.SetBytes(int64(len(f.Body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeRequest(f); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeQuery(b *testing.B) {
	benchDecode(b, &Query{Query: "SELECT v FROM ks.t WHERE k = ? AND c > ?", Params: QueryParameters{
		Consistency: LocalQuorum, Flags: FlagValues | FlagPageSize | FlagDefaultTimestamp,
		Values: []Value{{Bytes: []byte("partition-key")}, {Bytes: []byte{0, 0, 0, 7}}}, PageSize: 5000, Timestamp: 1}})
}

func BenchmarkDecodeExecute(b *testing.B) {
	benchDecode(b, &Execute{ID: bytes.Repeat([]byte{0x5A}, 16), Params: QueryParameters{
		Consistency: One, Flags: FlagValues | FlagSkipMetadata | FlagPageSize | FlagDefaultTimestamp,
		Values: []Value{{Bytes: []byte("k")}, {Bytes: []byte{0, 0, 0, 1}}, {Bytes: []byte("some text value")},
			{Bytes: bytes.Repeat([]byte{1}, 16)}, {}},
		PageSize: 5000, Timestamp: 1}})
}

// BenchmarkEncodeRows encodes a 100-row, 5-column Rows result into a reused
// buffer: it must not allocate.
func BenchmarkEncodeRows(b *testing.B) {
	cols := []ColumnSpec{
		{Keyspace: "ks", Table: "t", Name: "k", Type: types.Text},
		{Keyspace: "ks", Table: "t", Name: "c", Type: types.Int},
		{Keyspace: "ks", Table: "t", Name: "v1", Type: types.Bigint},
		{Keyspace: "ks", Table: "t", Name: "v2", Type: types.Text},
		{Keyspace: "ks", Table: "t", Name: "v3", Type: types.Blob},
	}
	rows := make([][][]byte, 100)
	for i := range rows {
		rows[i] = [][]byte{[]byte("partition"), {0, 0, 0, byte(i)}, make([]byte, 8), []byte("a text value of some length"), nil}
	}
	res := &RowsResult{Meta: RowsMetadata{Columns: cols}, Rows: rows}
	dst := EncodeResponse(nil, 1, res, nil, nil)
	b.SetBytes(int64(len(dst)))
	b.ReportAllocs()
	for b.Loop() {
		dst = EncodeResponse(dst[:0], 1, res, nil, nil)
	}
}

func TestEncodeRowsDoesNotAllocate(t *testing.T) {
	res := &RowsResult{Meta: RowsMetadata{Columns: localColumns("a", "b")}, Rows: [][][]byte{{[]byte("x"), nil}, {nil, []byte("y")}}}
	dst := EncodeResponse(nil, 1, res, nil, nil)
	if n := testing.AllocsPerRun(100, func() { dst = EncodeResponse(dst[:0], 1, res, nil, nil) }); n != 0 {
		t.Fatalf("%v allocations per encode", n)
	}
}
