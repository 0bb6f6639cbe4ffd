package protocol

import (
	"bytes"
	"testing"
)

var startupSamples = []Message{
	&Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}},
	&Startup{Options: map[string]string{"CQL_VERSION": "3.4.5", "DRIVER_NAME": "DataStax Python Driver", "DRIVER_VERSION": "3.25.0"}},
	&Startup{Options: map[string]string{"CQL_VERSION": "3.0.0", "COMPRESSION": "lz4"}},
	&Startup{Options: map[string]string{}},
}

func TestStartup(t *testing.T) {
	for _, m := range startupSamples {
		t.Run(describe(m), func(t *testing.T) { checkRoundTrip(t, m) })
	}
	t.Run("golden", func(t *testing.T) {
		// §4.1.1: a [string map] with the mandatory CQL_VERSION.
		want := unhex(t, `
			04 00 0001 01 00000016        # request v4, stream 1, STARTUP, 22 bytes
			0001                          # one pair
			000b 43514c5f56455253494f4e   # "CQL_VERSION"
			0005 332e302e30               # "3.0.0"`)
		got := AppendRequest(nil, 1, &Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}})
		if !bytes.Equal(got, want) {
			t.Fatalf("got %x\nwant %x", got, want)
		}
	})
	t.Run("keys are upper-cased", func(t *testing.T) {
		var m Startup
		if err := m.Decode((&Startup{Options: map[string]string{"cql_version": "3.0.0"}}).Encode(nil)); err != nil {
			t.Fatal(err)
		}
		if m.Options[StartupCQLVersion] != "3.0.0" || len(m.Options) != 1 {
			t.Fatalf("got %v", m.Options)
		}
	})
}
