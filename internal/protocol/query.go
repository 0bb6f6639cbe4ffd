package protocol

// Query is QUERY (§4.1.4): a [long string] CQL statement and its
// parameters.
type Query struct {
	Query  string
	Params QueryParameters
}

func (*Query) Opcode() Opcode { return OpQuery }
func (*Query) isRequest()     {}

func (m *Query) Encode(dst []byte) []byte {
	dst = appendLongString(dst, m.Query)
	return appendQueryParameters(dst, &m.Params)
}

func (m *Query) Decode(body []byte) error {
	r := newReader(body)
	m.Query = r.readLongString("query")
	r.readQueryParameters(&m.Params)
	return r.err()
}
