package protocol

import (
	"bytes"
	"testing"
)

var authenticateSamples = []Message{&Authenticate{Authenticator: PasswordAuthenticator}}

func TestAuthenticate(t *testing.T) {
	checkRoundTrip(t, authenticateSamples[0])
	// §4.2.3: a single [string].
	got := (&Authenticate{Authenticator: PasswordAuthenticator}).Encode(nil)
	want := append([]byte{0, byte(len(PasswordAuthenticator))}, PasswordAuthenticator...)
	if !bytes.Equal(got, want) {
		t.Fatalf("got %x want %x", got, want)
	}
}
