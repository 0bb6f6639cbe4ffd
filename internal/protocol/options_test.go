package protocol

import (
	"bytes"
	"testing"
)

var optionsSamples = []Message{&Options{}}

func TestOptions(t *testing.T) {
	checkRoundTrip(t, &Options{})
	// §4.1.3: the body is empty.
	want := unhex(t, `04 00 0000 05 00000000`)
	if got := AppendRequest(nil, 0, &Options{}); !bytes.Equal(got, want) {
		t.Fatalf("got %x want %x", got, want)
	}
	// Extra bytes after a message are ignored (§1).
	if err := (&Options{}).Decode([]byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
}
