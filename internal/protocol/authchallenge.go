package protocol

// AuthChallenge is AUTH_CHALLENGE (§4.2.7): one [bytes] SASL token for
// another round of AUTH_RESPONSE.
type AuthChallenge struct {
	Token []byte
}

func (*AuthChallenge) Opcode() Opcode { return OpAuthChallenge }
func (*AuthChallenge) isResponse()    {}

func (m *AuthChallenge) Encode(dst []byte) []byte { return appendBytes(dst, m.Token) }

func (m *AuthChallenge) Decode(body []byte) error {
	r := newReader(body)
	m.Token = r.readBytes("auth token")
	return r.err()
}
