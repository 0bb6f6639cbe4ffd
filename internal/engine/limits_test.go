package engine_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/types"
)

// TestKeyLengthLimits: bound values for a partition key or a clustering
// over 65535 bytes are refused with Cassandra's message (Validation
// .validateKey, ModificationStatement's clustering check) and nothing is
// written; set elements and map keys of that size are accepted, as
// Cassandra 5.0.6 accepts them from a prepared statement (checked with its
// Python driver; unprepared statements: testdata/key_limits).
func TestKeyLengthLimits(t *testing.T) {
	h := cqltest.New(t)
	mustExec(t, h.Session, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k text PRIMARY KEY, s set<text>, m map<text, int>)",
		"CREATE TABLE ks.c (k int, c text, PRIMARY KEY (k, c))")
	ctx := context.Background()
	long, max := bytes.Repeat([]byte{'a'}, 65536), bytes.Repeat([]byte{'b'}, 65535)
	for _, c := range []struct {
		query string
		vals  [][]byte
		want  string
	}{
		{"INSERT INTO ks.t (k) VALUES (?)", [][]byte{long}, "Key length of 65536 is longer than maximum of 65535"},
		{"INSERT INTO ks.c (k, c) VALUES (1, ?)", [][]byte{long}, "Key length of 65536 is longer than maximum of 65535"},
		{"UPDATE ks.t SET s = s + ? WHERE k = ?", [][]byte{types.EncodeCollection([][]byte{long}), max}, ""},
		{"UPDATE ks.t SET m = m + ? WHERE k = ?", [][]byte{types.EncodeMap([][]byte{long}, [][]byte{int32Value(1).Bytes}), max}, ""},
	} {
		p, err := h.Session.Prepare(ctx, c.query)
		if err != nil {
			t.Fatal(err)
		}
		opts := &engine.Options{}
		for _, v := range c.vals {
			opts.Values = append(opts.Values, engine.Value{Bytes: v})
		}
		_, err = h.Session.Execute(ctx, p.PreparedID, opts)
		switch {
		case c.want == "" && err != nil:
			t.Fatalf("%s: %v", c.query, err)
		case c.want != "" && (err == nil || err.Error() != "Invalid 0x2200: "+c.want):
			t.Fatalf("%s: got %v, want %q", c.query, err, c.want)
		}
	}
	res, err := h.Session.Query(ctx, "SELECT k, s FROM ks.t", nil)
	if err != nil || len(res.Rows) != 1 || !bytes.Equal(res.Rows[0][0], max) {
		t.Fatalf("rows after the refused writes: %v (%v)", res, err)
	}
	if elems, err := types.DecodeCollection(res.Rows[0][1]); err != nil || len(elems) != 1 || !bytes.Equal(elems[0], long) {
		t.Fatalf("set element of %d bytes not read back: %d elements (%v)", len(long), len(elems), err)
	}
	if res, err := h.Session.Query(ctx, "SELECT c FROM ks.c", nil); err != nil || len(res.Rows) != 0 {
		t.Fatalf("rows after the refused clustering: %v (%v)", res, err)
	}
}
