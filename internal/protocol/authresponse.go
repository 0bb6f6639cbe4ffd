package protocol

// AuthResponse is AUTH_RESPONSE (§4.1.2): one [bytes] SASL token. The
// drivers' first token is SASL PLAIN: 0x00 user 0x00 password.
type AuthResponse struct {
	Token []byte
}

func (*AuthResponse) Opcode() Opcode { return OpAuthResponse }
func (*AuthResponse) isRequest()     {}

func (m *AuthResponse) Encode(dst []byte) []byte { return appendBytes(dst, m.Token) }

func (m *AuthResponse) Decode(body []byte) error {
	r := newReader(body)
	m.Token = r.readBytes("auth token")
	return r.err()
}
