package protocol

// PasswordAuthenticator is the authenticator class gocql and the other
// drivers accept for username/password (SASL PLAIN) authentication.
const PasswordAuthenticator = "org.apache.cassandra.auth.PasswordAuthenticator"

// Authenticate is AUTHENTICATE (§4.2.3): the answer to STARTUP when
// authentication is required, naming the authenticator class.
type Authenticate struct {
	Authenticator string
}

func (*Authenticate) Opcode() Opcode { return OpAuthenticate }
func (*Authenticate) isResponse()    {}

func (m *Authenticate) Encode(dst []byte) []byte { return appendString(dst, m.Authenticator) }

func (m *Authenticate) Decode(body []byte) error {
	r := newReader(body)
	m.Authenticator = r.readString("authenticator")
	return r.err()
}
