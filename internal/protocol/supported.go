package protocol

// SUPPORTED keys beyond the STARTUP ones (reference §1.5).
const (
	SupportedProtocolVersions = "PROTOCOL_VERSIONS"
)

// Supported is SUPPORTED (§4.2.4): for each STARTUP option, the values the
// server accepts, as a [string multimap]. Python needs CQL_VERSION and
// COMPRESSION (which may be empty) to be present.
type Supported struct {
	Options map[string][]string
}

func (*Supported) Opcode() Opcode { return OpSupported }
func (*Supported) isResponse()    {}

func (m *Supported) Encode(dst []byte) []byte { return appendStringMultimap(dst, m.Options) }

func (m *Supported) Decode(body []byte) error {
	r := newReader(body)
	m.Options = r.readStringMultimap("SUPPORTED options")
	return r.err()
}
