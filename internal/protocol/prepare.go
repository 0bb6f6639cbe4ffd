package protocol

// Prepare is PREPARE (§4.1.5): the [long string] CQL statement to prepare.
type Prepare struct {
	Query string
}

func (*Prepare) Opcode() Opcode { return OpPrepare }
func (*Prepare) isRequest()     {}

func (m *Prepare) Encode(dst []byte) []byte { return appendLongString(dst, m.Query) }

func (m *Prepare) Decode(body []byte) error {
	r := newReader(body)
	m.Query = r.readLongString("query")
	return r.err()
}
