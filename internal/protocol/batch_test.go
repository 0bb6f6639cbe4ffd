package protocol

import (
	"bytes"
	"testing"
)

var batchSamples = []Message{
	&Batch{Type: BatchLogged, Statements: []BatchStatement{
		{Query: "INSERT INTO t (k) VALUES (?)", Values: []Value{{Bytes: []byte{0, 0, 0, 1}}}},
		{Prepared: true, ID: []byte{1, 2, 3}, Values: []Value{{}, {Unset: true}, {Bytes: []byte{}}}},
	}, Consistency: Quorum, SerialConsistency: Serial},
	&Batch{Type: BatchCounter, Statements: []BatchStatement{{Query: "UPDATE c SET n = n + 1 WHERE k = 0"}},
		Consistency: One, Flags: FlagSerialConsistency | FlagDefaultTimestamp, SerialConsistency: LocalSerial, Timestamp: 99},
	&Batch{Type: BatchUnlogged, Consistency: Two, SerialConsistency: Serial},
}

func TestBatch(t *testing.T) {
	for _, m := range batchSamples {
		t.Run(describe(m), func(t *testing.T) { checkRoundTrip(t, m) })
	}
	t.Run("golden", func(t *testing.T) {
		// §4.1.7: <type><n><query_1>...<consistency><flags>[<serial>][<timestamp>]
		want := unhex(t, `
			04 00 0005 0d 00000021   # BATCH on stream 5, 33 bytes
			01 0002                  # unlogged, 2 statements
			00 00000001 51 0000      # query "Q", no values
			01 0001 07 0001 00000001 09   # prepared id 07, one value 09
			0001 20 0000000000000064 # ONE, timestamp 100`)
		b := &Batch{Type: BatchUnlogged, Statements: []BatchStatement{
			{Query: "Q"}, {Prepared: true, ID: []byte{7}, Values: []Value{{Bytes: []byte{9}}}},
		}, Consistency: One, Flags: FlagDefaultTimestamp, Timestamp: 100}
		if got := AppendRequest(nil, 5, b); !bytes.Equal(got, want) {
			t.Fatalf("got  %x\nwant %x", got, want)
		}
	})
	t.Run("names flag does not change how values are read", func(t *testing.T) {
		// Like Cassandra: the flags come after the values, so values
		// carry no names whatever 0x40 says.
		var b Batch
		if err := b.Decode(unhex(t, `00 0001 00 00000001 51 0001 00000001 2a  0001 40`)); err != nil {
			t.Fatal(err)
		}
		if len(b.Statements[0].Values) != 1 || b.Statements[0].Values[0].Bytes[0] != 0x2a || !b.Has(FlagNamesForValues) {
			t.Fatalf("got %s", describe(&b))
		}
	})
	t.Run("flags meaningless for a batch are parsed and dropped", func(t *testing.T) {
		var b Batch
		// values flag with one value, then page size 10, then timestamp.
		if err := b.Decode(unhex(t, `00 0000 0001 25 0001 00000000 0000000a 0000000000000003`)); err != nil {
			t.Fatal(err)
		}
		if b.Flags != FlagDefaultTimestamp || b.Timestamp != 3 {
			t.Fatalf("got %s", describe(&b))
		}
	})
	errs := []struct{ name, body, want string }{
		{"bad type", `03 0000 0001 00`, "Invalid BATCH message type 3"},
		{"bad kind", `00 0001 02 00000000 0000 0001 00`, "Invalid query kind in BATCH messages. Must be 0 or 1 but got 2"},
		{"negative kind", `00 0001 ff`, "Must be 0 or 1 but got -1"},
		{"statements missing", `00 0005 00 00000000 0000`, "Not enough bytes"},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) { wantProtocolError(t, (&Batch{}).Decode(unhex(t, tc.body)), tc.want) })
	}
}
