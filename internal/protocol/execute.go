package protocol

// Execute is EXECUTE (§4.1.6): a prepared statement's [short bytes] id and
// the same parameters as QUERY.
type Execute struct {
	ID     []byte
	Params QueryParameters
}

func (*Execute) Opcode() Opcode { return OpExecute }
func (*Execute) isRequest()     {}

func (m *Execute) Encode(dst []byte) []byte {
	dst = appendShortBytes(dst, m.ID)
	return appendQueryParameters(dst, &m.Params)
}

func (m *Execute) Decode(body []byte) error {
	r := newReader(body)
	m.ID = r.readShortBytes("prepared statement id")
	r.readQueryParameters(&m.Params)
	return r.err()
}
