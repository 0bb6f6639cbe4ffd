package protocol

import (
	"bytes"
	"testing"
)

var supportedSamples = []Message{
	&Supported{Options: map[string][]string{
		"CQL_VERSION": {"3.4.5"}, "COMPRESSION": {}, SupportedProtocolVersions: {"4/v4"},
	}},
	&Supported{Options: map[string][]string{}},
}

func TestSupported(t *testing.T) {
	for _, m := range supportedSamples {
		t.Run(describe(m), func(t *testing.T) { checkRoundTrip(t, m) })
	}
	t.Run("golden", func(t *testing.T) {
		// §4.2.4: a [string multimap]; keys in order so the bytes are stable.
		want := unhex(t, `
			0002
			000b 434f4d5052455353494f4e 0000          # COMPRESSION: []
			000b 43514c5f56455253494f4e 0001 0005 332e342e35  # CQL_VERSION: ["3.4.5"]`)
		got := (&Supported{Options: map[string][]string{"CQL_VERSION": {"3.4.5"}, "COMPRESSION": nil}}).Encode(nil)
		if !bytes.Equal(got, want) {
			t.Fatalf("got  %x\nwant %x", got, want)
		}
	})
}
