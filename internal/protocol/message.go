package protocol

import (
	"github.com/partita-db/partita/internal/cqlerr"
)

// Message is a decoded frame body. Every message type works both ways, so
// that round trips are testable: Encode appends the body (without header
// or envelope) to dst, Decode parses one, aliasing body (doc.go invariant
// 3) and ignoring any bytes after the message, as §1 allows.
type Message interface {
	Opcode() Opcode
	Encode(dst []byte) []byte
	Decode(body []byte) error
}

// Request is a message a client sends (§4.1).
type Request interface {
	Message
	isRequest()
}

// Response is a message the server sends (§4.2).
type Response interface {
	Message
	isResponse()
}

// newRequest returns an empty request message for a request opcode.
func newRequest(op Opcode) Request {
	switch op {
	case OpStartup:
		return &Startup{}
	case OpOptions:
		return &Options{}
	case OpQuery:
		return &Query{}
	case OpPrepare:
		return &Prepare{}
	case OpExecute:
		return &Execute{}
	case OpBatch:
		return &Batch{}
	case OpRegister:
		return &Register{}
	case OpAuthResponse:
		return &AuthResponse{}
	}
	return nil
}

// DecodeRequest decodes the body of a request frame read by ReadFrame. It
// checks the opcode and its direction as Cassandra does
// (transport/Message.java Type.fromOpcode), refuses a compressed body (no
// compression is negotiated unless DecompressFrame ran first), skips a
// custom payload (§2.2 flag 0x04) and ignores the tracing flag. Every error
// is a *cqlerr.Error with code Protocol, to be sent on f.Header.Stream.
func DecodeRequest(f Frame) (Request, error) {
	h := f.Header
	if !h.Opcode.known() {
		return nil, cqlerr.Protocolf("Unknown opcode %d", byte(h.Opcode))
	}
	if !h.Opcode.isRequest() {
		return nil, wrongDirection(h.Opcode, "RESPONSE", "REQUEST")
	}
	if h.Response {
		return nil, wrongDirection(h.Opcode, "REQUEST", "RESPONSE")
	}
	if h.Flags&FlagCompression != 0 {
		return nil, errUnexpectedCompression()
	}
	body := f.Body
	if h.Flags&FlagCustomPayload != 0 {
		r := newReader(body)
		r.skipBytesMap("custom payload")
		if r.failed() {
			return nil, r.err()
		}
		body = body[r.off:]
	}
	req := newRequest(h.Opcode)
	if err := req.Decode(body); err != nil {
		return nil, err
	}
	return req, nil
}

func wrongDirection(op Opcode, expected, got string) *cqlerr.Error {
	// Cassandra's text (Message.Type.fromOpcode).
	return cqlerr.Protocolf("Wrong protocol direction (expected %s, got %s) for opcode %d (%s)",
		expected, got, byte(op), op)
}

// AppendRequest appends a complete request frame (client side and tests).
func AppendRequest(dst []byte, stream int16, req Request) []byte {
	start := len(dst)
	dst = appendHeader(dst, Header{Version: Version4, Stream: stream, Opcode: req.Opcode()}, 0)
	dst = req.Encode(dst)
	patchLength(dst, start)
	return dst
}

// skipBytesMap reads past a [bytes map] without keeping it.
func (r *reader) skipBytesMap(what string) {
	n := int(r.readShort(what))
	for i := 0; i < n && !r.failed(); i++ {
		r.readString(what)
		r.readBytes(what)
	}
}
