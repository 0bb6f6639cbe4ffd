package protocol

import (
	"bytes"
	"testing"
)

var authSuccessSamples = []Message{&AuthSuccess{}, &AuthSuccess{Token: []byte{}}, &AuthSuccess{Token: []byte{1, 2}}}

func TestAuthSuccess(t *testing.T) {
	for _, m := range authSuccessSamples {
		t.Run(describe(m), func(t *testing.T) { checkRoundTrip(t, m) })
	}
	// §4.2.8: a [bytes] token; null is fine for PasswordAuthenticator.
	if got := EncodeResponse(nil, 3, &AuthSuccess{}, nil, nil); !bytes.Equal(got, unhex(t, `84 00 0003 10 00000004 ffffffff`)) {
		t.Fatalf("got %x", got)
	}
}
