package protocol

// Options is OPTIONS (§4.1.3): asks for the SUPPORTED startup options. Its
// body is empty; drivers also send it as a heartbeat.
type Options struct{}

func (*Options) Opcode() Opcode           { return OpOptions }
func (*Options) isRequest()               {}
func (*Options) Encode(dst []byte) []byte { return dst }
func (*Options) Decode(body []byte) error { return nil }
