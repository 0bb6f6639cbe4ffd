package protocol

import (
	"bytes"
	"testing"
)

var schemaChangeSamples = []SchemaChange{
	{Change: SchemaCreated, Target: TargetKeyspace, Keyspace: "ks"},
	{Change: SchemaUpdated, Target: TargetTable, Keyspace: "ks", Name: "t"},
	{Change: SchemaDropped, Target: TargetType, Keyspace: "ks", Name: "address"},
	{Change: SchemaCreated, Target: TargetFunction, Keyspace: "ks", Name: "f", ArgTypes: []string{"int", "text"}},
	{Change: SchemaDropped, Target: TargetAggregate, Keyspace: "ks", Name: "agg", ArgTypes: []string{}},
}

func TestSchemaChange(t *testing.T) {
	for _, c := range schemaChangeSamples {
		t.Run(describe(c), func(t *testing.T) {
			checkRoundTrip(t, &SchemaChangeResult{Change: c})
			checkRoundTrip(t, &Event{Type: EventSchemaChange, Schema: c})
		})
	}
	t.Run("golden", func(t *testing.T) {
		// §4.2.6: <change_type><target><options>; TABLE sends ks and name.
		want := unhex(t, `0007 43524541544544  0005 5441424c45  0002 6b73  0001 74`)
		got := appendSchemaChange(nil, &SchemaChange{Change: SchemaCreated, Target: TargetTable, Keyspace: "ks", Name: "t"})
		if !bytes.Equal(got, want) {
			t.Fatalf("got %x want %x", got, want)
		}
	})
	errs := []struct{ name, body, want string }{
		{"bad change", `0003 464f4f 0008 4b45595350414345 0002 6b73`, "Invalid value 'FOO' for Change"},
		{"bad target", `0007 43524541544544 0003 464f4f 0002 6b73`, "Invalid value 'FOO' for Target"},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			r := newReader(unhex(t, tc.body))
			var c SchemaChange
			r.readSchemaChange(&c)
			wantProtocolError(t, r.err(), tc.want)
		})
	}
}
