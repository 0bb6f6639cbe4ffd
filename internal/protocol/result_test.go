package protocol

import (
	"bytes"
	"testing"
)

var resultSamples = []Message{
	&VoidResult{},
	&SetKeyspaceResult{Keyspace: "ks"},
	&SchemaChangeResult{Change: SchemaChange{Change: SchemaCreated, Target: TargetKeyspace, Keyspace: "ks"}},
	&SchemaChangeResult{Change: SchemaChange{Change: SchemaDropped, Target: TargetTable, Keyspace: "ks", Name: "t"}},
}

func TestResult(t *testing.T) {
	for _, m := range resultSamples {
		t.Run(describe(m), func(t *testing.T) { checkRoundTrip(t, m) })
	}
	golden := []struct {
		name string
		m    Response
		want string
	}{
		// §4.2.5.1: only the kind.
		{"void", &VoidResult{}, `84 00 0001 08 00000004 00000001`},
		// §4.2.5.3: the kind and a [string]; gocql needs it for USE.
		{"set keyspace", &SetKeyspaceResult{Keyspace: "ks"}, `84 00 0001 08 00000008 00000003 0002 6b73`},
	}
	for _, tc := range golden {
		t.Run("golden "+tc.name, func(t *testing.T) {
			if got := EncodeResponse(nil, 1, tc.m, nil, nil); !bytes.Equal(got, unhex(t, tc.want)) {
				t.Fatalf("got %x want %s", got, tc.want)
			}
		})
	}
	t.Run("unknown kind", func(t *testing.T) {
		_, _, err := DecodeResponse(Frame{Header: Header{Version: 4, Response: true, Opcode: OpResult}, Body: unhex(t, `00000009`)})
		wantProtocolError(t, err, "Unknown result kind 9")
	})
	t.Run("kind mismatch", func(t *testing.T) {
		wantProtocolError(t, (&VoidResult{}).Decode(unhex(t, `00000002`)), "Unexpected result kind 2")
	})
}
