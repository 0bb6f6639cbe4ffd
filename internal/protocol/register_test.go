package protocol

import (
	"bytes"
	"testing"
)

var registerSamples = []Message{
	&Register{EventTypes: []EventType{EventTopologyChange, EventStatusChange, EventSchemaChange}},
	&Register{EventTypes: []EventType{EventSchemaChange}},
}

func TestRegister(t *testing.T) {
	for _, m := range registerSamples {
		t.Run(describe(m), func(t *testing.T) { checkRoundTrip(t, m) })
	}
	t.Run("golden", func(t *testing.T) {
		// §4.1.8: a [string list] of event types.
		want := unhex(t, `04 00 0001 0b 00000011  0001 000d 534348454d415f4348414e4745`)
		if got := AppendRequest(nil, 1, &Register{EventTypes: []EventType{EventSchemaChange}}); !bytes.Equal(got, want) {
			t.Fatalf("got %x want %x", got, want)
		}
	})
	t.Run("case-insensitive", func(t *testing.T) {
		var m Register
		if err := m.Decode(unhex(t, `0001 0009 5374617475735f4368`)); err == nil {
			t.Fatal("partial name accepted")
		}
		if err := m.Decode(appendStringList(nil, []string{"status_change"})); err != nil || m.EventTypes[0] != EventStatusChange {
			t.Fatalf("got %v, %v", m.EventTypes, err)
		}
	})
	t.Run("unknown type", func(t *testing.T) {
		wantProtocolError(t, (&Register{}).Decode(appendStringList(nil, []string{"BOGUS"})), "Invalid value 'BOGUS' for Type")
	})
}
