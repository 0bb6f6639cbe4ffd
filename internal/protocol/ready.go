package protocol

// Ready is READY (§4.2.2): the answer to STARTUP without authentication
// and to REGISTER. Its body is empty.
type Ready struct{}

func (*Ready) Opcode() Opcode           { return OpReady }
func (*Ready) isResponse()              {}
func (*Ready) Encode(dst []byte) []byte { return dst }
func (*Ready) Decode(body []byte) error { return nil }
