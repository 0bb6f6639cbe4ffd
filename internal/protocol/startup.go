package protocol

import "strings"

// STARTUP option keys (§4.1.1). StartupThrowOnOverload is Cassandra's
// (transport/messages/StartupMessage.java THROW_ON_OVERLOAD): "1" asks for an
// Overloaded error instead of backpressure when the server's request limits
// are reached.
const (
	StartupCQLVersion      = "CQL_VERSION"
	StartupCompression     = "COMPRESSION"
	StartupThrowOnOverload = "THROW_ON_OVERLOAD"
)

// Startup is STARTUP (§4.1.1): the connection's options as a [string map].
// Decode upper-cases the keys, as Cassandra does
// (transport/messages/StartupMessage.java), so drivers' spellings agree.
type Startup struct {
	Options map[string]string
}

func (*Startup) Opcode() Opcode { return OpStartup }
func (*Startup) isRequest()     {}

func (m *Startup) Encode(dst []byte) []byte { return appendStringMap(dst, m.Options) }

func (m *Startup) Decode(body []byte) error {
	r := newReader(body)
	opts := r.readStringMap("STARTUP options")
	if r.failed() {
		return r.err()
	}
	m.Options = make(map[string]string, len(opts))
	for k, v := range opts {
		m.Options[strings.ToUpper(k)] = v
	}
	return nil
}
