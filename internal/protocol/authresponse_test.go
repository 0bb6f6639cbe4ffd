package protocol

import "testing"

var authResponseSamples = []Message{
	&AuthResponse{Token: []byte("\x00cassandra\x00cassandra")},
	&AuthResponse{Token: []byte{}},
	&AuthResponse{},
}

func TestAuthResponse(t *testing.T) {
	for _, m := range authResponseSamples {
		t.Run(describe(m), func(t *testing.T) { checkRoundTrip(t, m) })
	}
	var m AuthResponse
	if err := m.Decode(unhex(t, `ffffffff`)); err != nil || m.Token != nil {
		t.Fatalf("null token: %v %v", m.Token, err)
	}
}
