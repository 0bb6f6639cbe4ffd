package protocol

import (
	"bytes"
	"testing"
)

var querySamples = []Message{
	&Query{Query: "SELECT * FROM system.local WHERE key='local'", Params: QueryParameters{Consistency: One, SerialConsistency: Serial}},
	// gocql's control queries: page size 5000 and a default timestamp.
	&Query{Query: "SELECT * FROM system.peers", Params: QueryParameters{
		Consistency: One, Flags: FlagPageSize | FlagDefaultTimestamp, PageSize: 5000,
		SerialConsistency: Serial, Timestamp: 1700000000000000}},
	&Query{Query: "INSERT INTO ks.t (k, v) VALUES (?, ?)", Params: QueryParameters{
		Consistency: Quorum, Flags: FlagValues,
		Values: []Value{{Bytes: []byte{0, 0, 0, 1}}, {Bytes: []byte{}}, {}, {Unset: true}}, SerialConsistency: Serial}},
	&Query{Query: "SELECT * FROM t WHERE k = :k", Params: QueryParameters{
		Consistency: LocalQuorum, Flags: FlagValues | FlagNamesForValues | FlagSkipMetadata,
		Values: []Value{{Bytes: []byte("x")}}, Names: []string{"k"}, SerialConsistency: Serial}},
	&Query{Query: "UPDATE t SET v = 1 WHERE k = 1 IF v = 0", Params: QueryParameters{
		Consistency: LocalOne, Flags: 0x7F, Values: []Value{{Bytes: []byte{1}}}, Names: []string{"v"},
		PageSize: -1, PagingState: []byte{0xCA, 0xFE}, SerialConsistency: LocalSerial, Timestamp: -5}},
	&Query{Query: "", Params: QueryParameters{Consistency: Any, Flags: FlagPagingState, SerialConsistency: Serial}},
}

func TestQuery(t *testing.T) {
	for _, m := range querySamples {
		t.Run(describe(m), func(t *testing.T) { checkRoundTrip(t, m) })
	}
	t.Run("golden", func(t *testing.T) {
		// §4.1.4: <query><consistency><flags>[<n><value_i>...][<result_page_size>]...
		want := unhex(t, `
			04 00 0002 07 00000030    # QUERY on stream 2, 48 bytes
			0000001b 53454c454354202a2046524f4d2074205748455245206b203d203f # "SELECT * FROM t WHERE k = ?"
			0001                      # ONE
			05                        # values | page_size
			0001 00000004 0000002a    # one value: int 42
			00001388                  # page size 5000`)
		q := &Query{Query: "SELECT * FROM t WHERE k = ?", Params: QueryParameters{
			Consistency: One, Flags: FlagValues | FlagPageSize,
			Values: []Value{{Bytes: []byte{0, 0, 0, 42}}}, PageSize: 5000}}
		got := AppendRequest(nil, 2, q)
		if !bytes.Equal(got, want) {
			t.Fatalf("got  %x\nwant %x", got, want)
		}
	})
	t.Run("absent serial consistency is SERIAL", func(t *testing.T) {
		var q Query
		if err := q.Decode(unhex(t, `00000000 0001 00`)); err != nil {
			t.Fatal(err)
		}
		if q.Params.SerialConsistency != Serial || q.Params.SkipMetadata() {
			t.Fatalf("got %+v", q.Params)
		}
	})
	errs := []struct{ name, body, want string }{
		{"bad consistency", `00000000 000b 00`, "Unknown code 11 for a consistency level"},
		{"bad serial consistency", `00000000 0001 10 0100`, "Unknown code 256 for a consistency level"},
		{"value length -3", `00000000 0001 01 0001 fffffffd`, "Invalid ByteBuf length -3"},
		{"min timestamp", `00000000 0001 20 8000000000000000`,
			"Out of bound timestamp, must be in [-9223372036854775807, 9223372036854775807] (got -9223372036854775808)"},
		{"invalid utf8 query", `00000002 c328 0001 00`, "Cannot decode string as UTF8"},
		{"negative query length", `ffffffff 0001 00`, "Invalid length -1"},
		{"query longer than body", `00000010 4142 0001 00`, "Not enough bytes to read query"},
		{"value count larger than values", `00000000 0001 01 ffff 00000000`, "Not enough bytes"},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			wantProtocolError(t, (&Query{}).Decode(unhex(t, tc.body)), tc.want)
		})
	}
}
