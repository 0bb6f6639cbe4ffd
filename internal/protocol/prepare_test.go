package protocol

import (
	"bytes"
	"testing"
)

var prepareSamples = []Message{
	&Prepare{Query: "SELECT keyspace_name, durable_writes, replication FROM system_schema.keyspaces WHERE keyspace_name = ?"},
	&Prepare{Query: "INSERT INTO ks.t (k, v) VALUES (?, ?) USING TTL ?"},
	&Prepare{Query: "SELECT ☃ FROM \"Ünïcode\""},
}

func TestPrepare(t *testing.T) {
	for _, m := range prepareSamples {
		t.Run(describe(m), func(t *testing.T) { checkRoundTrip(t, m) })
	}
	// §4.1.5: the body is a [long string].
	want := unhex(t, `04 00 0003 09 00000007  00000003 414243`)
	if got := AppendRequest(nil, 3, &Prepare{Query: "ABC"}); !bytes.Equal(got, want) {
		t.Fatalf("got %x want %x", got, want)
	}
}
