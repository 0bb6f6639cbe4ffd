package protocol

import (
	"bytes"
	"testing"
)

var readySamples = []Message{&Ready{}}

func TestReady(t *testing.T) {
	checkRoundTrip(t, &Ready{})
	// §4.2.2: empty body; a response on the request's stream.
	want := unhex(t, `84 00 0001 02 00000000`)
	if got := EncodeResponse(nil, 1, &Ready{}, nil, nil); !bytes.Equal(got, want) {
		t.Fatalf("got %x want %x", got, want)
	}
}
