package protocol

import (
	"bytes"
	"testing"

	"github.com/partita-db/partita/internal/types"
)

var preparedSamples = []Message{
	// SELECT v FROM ks.t WHERE k1 = ? AND k2 = ?, key (k2, k1): pk indexes [1 0].
	&PreparedResult{ID: bytes.Repeat([]byte{7}, 16),
		Variables: PreparedMetadata{PKIndexes: []uint16{1, 0}, Columns: []ColumnSpec{
			{Keyspace: "ks", Table: "t", Name: "k1", Type: types.Int},
			{Keyspace: "ks", Table: "t", Name: "k2", Type: types.Text},
		}},
		ResultMetadata: RowsMetadata{Columns: []ColumnSpec{{Keyspace: "ks", Table: "t", Name: "v", Type: types.Blob}}}},
	// A non-SELECT: result metadata is No_metadata with no columns.
	&PreparedResult{ID: []byte{1},
		Variables:      PreparedMetadata{Columns: []ColumnSpec{{Keyspace: "ks", Table: "t", Name: "[limit]", Type: types.Int}}},
		ResultMetadata: RowsMetadata{NoMetadata: true}},
	// No bind markers at all.
	&PreparedResult{ID: []byte{2}, ResultMetadata: RowsMetadata{Columns: []ColumnSpec{
		{Keyspace: "system", Table: "local", Name: "key", Type: types.Text},
		{Keyspace: "system", Table: "peers", Name: "peer", Type: types.Inet},
	}}},
}

func TestPrepared(t *testing.T) {
	for _, m := range preparedSamples {
		t.Run(describe(m), func(t *testing.T) { checkRoundTrip(t, m) })
	}
	t.Run("golden", func(t *testing.T) {
		// §4.2.5.4: <id><metadata><result_metadata>.
		want := unhex(t, `
			00000004               # Prepared
			0001 2a                # id
			00000001 00000001      # Global_tables_spec, 1 bind marker
			00000001 0000          # pk_count 1, index 0
			0002 6b73 0001 74      # ks.t
			0001 6b 0009           # k int
			00000004 00000000      # result metadata: No_metadata, 0 columns`)
		m := &PreparedResult{ID: []byte{42},
			Variables: PreparedMetadata{PKIndexes: []uint16{0}, Columns: []ColumnSpec{
				{Keyspace: "ks", Table: "t", Name: "k", Type: types.Int}}},
			ResultMetadata: RowsMetadata{NoMetadata: true}}
		if got := m.Encode(nil); !bytes.Equal(got, want) {
			t.Fatalf("got  %x\nwant %x", got, want)
		}
	})
	t.Run("negative counts", func(t *testing.T) {
		wantProtocolError(t, (&PreparedResult{}).Decode(unhex(t, `00000004 0000 00000000 ffffffff 00000000`)), "Invalid prepared metadata counts")
	})
}
