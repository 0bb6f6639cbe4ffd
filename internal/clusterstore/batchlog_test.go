package clusterstore

import (
	"reflect"
	"testing"
)

func TestBatchLogRoundTrip(t *testing.T) {
	stmts := []statement{
		{cql: "UPDATE x SET v = ? WHERE k = ?", part: "7/0/6b", bytes: 3, values: []any{[]byte("v"), []byte{}}},
		{cql: "DELETE FROM x USING TIMESTAMP ? WHERE k = ? AND shard = ? AND kind = ?", part: "7/1/6b",
			values: []any{int64(-5), []byte("k"), int32(3), int8(1)}},
		{cql: "UPDATE x USING TIMESTAMP ? AND TTL ? SET v = ?", part: "meta", values: []any{int64(1 << 62), 86400, []byte{0, 1}}},
	}
	b, err := encodeLog(stmts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeLog(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i].bytes = stmts[i].bytes
	}
	if !reflect.DeepEqual(got, stmts) {
		t.Fatalf("round trip:\n got %#v\nwant %#v", got, stmts)
	}
	if _, err := encodeLog([]statement{{values: []any{1.5}}}); err == nil {
		t.Fatal("a float64 value was logged")
	}
}
