package protocol

import "testing"

var authChallengeSamples = []Message{&AuthChallenge{Token: []byte("nonce")}, &AuthChallenge{}}

func TestAuthChallenge(t *testing.T) {
	for _, m := range authChallengeSamples {
		t.Run(describe(m), func(t *testing.T) { checkRoundTrip(t, m) })
	}
}
