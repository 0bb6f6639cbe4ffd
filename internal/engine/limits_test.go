package engine_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/types"
)

// TestKeyLengthLimits: keys Cassandra writes with a 2-byte length — the
// partition key, set elements and map keys of non-frozen collections — are
// refused above 65535 bytes with Cassandra's messages (QueryProcessor
// validateKey, Sets.java, Maps.java), and nothing is written.
func TestKeyLengthLimits(t *testing.T) {
	h := cqltest.New(t)
	mustExec(t, h.Session, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k text PRIMARY KEY, s set<text>, m map<text, int>)")
	ctx := context.Background()
	long, max := bytes.Repeat([]byte{'a'}, 65536), bytes.Repeat([]byte{'b'}, 65535)
	for _, c := range []struct {
		query string
		vals  [][]byte
		want  string
	}{
		{"INSERT INTO ks.t (k) VALUES (?)", [][]byte{long}, "Key length of 65536 is longer than maximum of 65535"},
		{"INSERT INTO ks.t (k, s) VALUES ('x', ?)", [][]byte{types.EncodeCollection([][]byte{long})},
			"Set value is too long. Set values are limited to 65535 bytes but 65536 bytes value provided"},
		{"UPDATE ks.t SET m = m + ? WHERE k = 'x'", [][]byte{types.EncodeMap([][]byte{long}, [][]byte{int32Value(1).Bytes})},
			"Map key is too long. Map keys are limited to 65535 bytes but 65536 bytes keys provided"},
		{"INSERT INTO ks.t (k, s, m) VALUES (?, ?, ?)", [][]byte{max, types.EncodeCollection([][]byte{max}),
			types.EncodeMap([][]byte{max}, [][]byte{int32Value(1).Bytes})}, ""},
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
	res, err := h.Session.Query(ctx, "SELECT k FROM ks.t", nil)
	if err != nil || len(res.Rows) != 1 || !bytes.Equal(res.Rows[0][0], max) {
		t.Fatalf("rows after the refused writes: %v (%v)", res, err)
	}
}
