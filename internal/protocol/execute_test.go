package protocol

import (
	"bytes"
	"testing"
)

var executeSamples = []Message{
	// gocql always sets skip_metadata on EXECUTE.
	&Execute{ID: bytes.Repeat([]byte{0xAB}, 16), Params: QueryParameters{
		Consistency: One, Flags: FlagValues | FlagSkipMetadata | FlagPageSize | FlagDefaultTimestamp,
		Values: []Value{{Bytes: []byte("key")}, {}}, PageSize: 5000, SerialConsistency: Serial, Timestamp: 42}},
	&Execute{ID: []byte{}, Params: QueryParameters{Consistency: All, SerialConsistency: Serial}},
	&Execute{ID: []byte{1}, Params: QueryParameters{Consistency: EachQuorum, Flags: FlagPagingState | FlagSerialConsistency,
		PagingState: []byte{}, SerialConsistency: LocalSerial}},
}

func TestExecute(t *testing.T) {
	for _, m := range executeSamples {
		t.Run(describe(m), func(t *testing.T) { checkRoundTrip(t, m) })
	}
	t.Run("golden", func(t *testing.T) {
		// §4.1.6: <id><query_parameters>.
		want := unhex(t, `
			04 00 0004 0a 0000000d  # EXECUTE on stream 4, 13 bytes
			0002 beef               # [short bytes] id
			0004                    # QUORUM
			03                      # values | skip_metadata
			0001 ffffffff           # one null value`)
		e := &Execute{ID: []byte{0xBE, 0xEF}, Params: QueryParameters{
			Consistency: Quorum, Flags: FlagValues | FlagSkipMetadata, Values: []Value{{}}}}
		if got := AppendRequest(nil, 4, e); !bytes.Equal(got, want) {
			t.Fatalf("got  %x\nwant %x", got, want)
		}
	})
	t.Run("short id", func(t *testing.T) {
		wantProtocolError(t, (&Execute{}).Decode(unhex(t, `0010 beef`)), "prepared statement id")
	})
}
