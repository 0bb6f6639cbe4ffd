package protocol

import (
	"bytes"
	"net/netip"
	"testing"
)

var eventSamples = []Message{
	&Event{Type: EventTopologyChange, Change: TopologyNewNode, Address: netip.MustParseAddrPort("10.0.0.2:9042")},
	&Event{Type: EventStatusChange, Change: StatusDown, Address: netip.MustParseAddrPort("[2001:db8::1]:9042")},
	&Event{Type: EventSchemaChange, Schema: SchemaChange{Change: SchemaUpdated, Target: TargetTable, Keyspace: "ks", Name: "t"}},
}

func TestEvent(t *testing.T) {
	for _, m := range eventSamples {
		t.Run(describe(m), func(t *testing.T) { checkRoundTrip(t, m) })
	}
	t.Run("golden", func(t *testing.T) {
		// §4.2.6: EVENT on stream -1; STATUS_CHANGE is a [string] and an [inet].
		want := unhex(t, `
			84 00 ffff 0c 0000001c
			000d 5354415455535f4348414e4745   # "STATUS_CHANGE"
			0002 5550                          # "UP"
			04 7f000001 00002352               # 127.0.0.1:9042`)
		e := &Event{Type: EventStatusChange, Change: StatusUp, Address: netip.MustParseAddrPort("127.0.0.1:9042")}
		if got := EncodeResponse(nil, EventStream, e, nil, nil); !bytes.Equal(got, want) {
			t.Fatalf("got  %x\nwant %x", got, want)
		}
	})
	errs := []struct{ name, body, want string }{
		{"bad type", `0003 464f4f`, "Invalid value 'FOO' for Type"},
		{"bad inet size", `000d 5354415455535f4348414e4745 0002 5550 05 0102030405 00000000`, "Invalid IP address size 5"},
		{"bad port", `000d 5354415455535f4348414e4745 0002 5550 04 7f000001 00010000`, "Invalid port 65536"},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) { wantProtocolError(t, (&Event{}).Decode(unhex(t, tc.body)), tc.want) })
	}
}
