package protocol

// AuthSuccess is AUTH_SUCCESS (§4.2.8): the end of authentication, with a
// final [bytes] token (nil is fine for PasswordAuthenticator).
type AuthSuccess struct {
	Token []byte
}

func (*AuthSuccess) Opcode() Opcode { return OpAuthSuccess }
func (*AuthSuccess) isResponse()    {}

func (m *AuthSuccess) Encode(dst []byte) []byte { return appendBytes(dst, m.Token) }

func (m *AuthSuccess) Decode(body []byte) error {
	r := newReader(body)
	m.Token = r.readBytes("auth token")
	return r.err()
}
