package protocol

import (
	"github.com/partita-db/partita/internal/cqlerr"
)

// ResponseEnvelope holds what a response body may carry before the message
// itself, in this order (§2.2): a tracing id (flag 0x02), warnings (flag
// 0x08) and a custom payload (flag 0x04).
type ResponseEnvelope struct {
	// TracingID is nil, or the 16-byte [uuid] of the tracing session. Any
	// other length is not written.
	TracingID []byte
	// Warnings are sent when there is at least one.
	Warnings []string
	// CustomPayload is sent when non-nil.
	CustomPayload map[string][]byte
}

// EncodeResponse appends a complete response frame on the given stream,
// with warnings and a tracing id when present.
func EncodeResponse(dst []byte, stream int16, r Response, warnings []string, tracingID []byte) []byte {
	return AppendResponse(dst, stream, r, ResponseEnvelope{TracingID: tracingID, Warnings: warnings})
}

// AppendResponse appends a complete response frame: header, envelope
// fields, then the message, written in place (one buffer, no copy).
func AppendResponse(dst []byte, stream int16, r Response, env ResponseEnvelope) []byte {
	var flags byte
	if len(env.TracingID) == 16 {
		flags |= FlagTracing
	}
	if len(env.Warnings) > 0 {
		flags |= FlagWarning
	}
	if env.CustomPayload != nil {
		flags |= FlagCustomPayload
	}
	start := len(dst)
	dst = appendHeader(dst, Header{Version: Version4, Response: true, Flags: flags, Stream: stream, Opcode: r.Opcode()}, 0)
	if flags&FlagTracing != 0 {
		dst = append(dst, env.TracingID...)
	}
	if flags&FlagWarning != 0 {
		dst = appendStringList(dst, env.Warnings)
	}
	if flags&FlagCustomPayload != 0 {
		dst = appendBytesMap(dst, env.CustomPayload)
	}
	dst = r.Encode(dst)
	patchLength(dst, start)
	return dst
}

// newResponse returns an empty response message for a response opcode;
// RESULT needs the kind, so body is consulted for it.
func newResponse(op Opcode, body []byte) (Response, error) {
	switch op {
	case OpError:
		return &ErrorMessage{}, nil
	case OpReady:
		return &Ready{}, nil
	case OpAuthenticate:
		return &Authenticate{}, nil
	case OpSupported:
		return &Supported{}, nil
	case OpResult:
		return newResult(body)
	case OpEvent:
		return &Event{}, nil
	case OpAuthChallenge:
		return &AuthChallenge{}, nil
	case OpAuthSuccess:
		return &AuthSuccess{}, nil
	}
	if op.known() {
		return nil, wrongDirection(op, "REQUEST", "RESPONSE")
	}
	return nil, cqlerr.Protocolf("Unknown opcode %d", byte(op))
}

// DecodeResponse decodes a response frame (client side and tests): the
// envelope fields its flags announce, then the message.
func DecodeResponse(f Frame) (Response, ResponseEnvelope, error) {
	var env ResponseEnvelope
	h := f.Header
	if h.Flags&FlagCompression != 0 {
		return nil, env, errUnexpectedCompression()
	}
	r := newReader(f.Body)
	if h.Flags&FlagTracing != 0 {
		env.TracingID = r.take(16, "tracing id")
	}
	if h.Flags&FlagWarning != 0 {
		env.Warnings = r.readStringList("warnings")
	}
	if h.Flags&FlagCustomPayload != 0 {
		env.CustomPayload = r.readBytesMap("custom payload")
	}
	if r.failed() {
		return nil, env, r.err()
	}
	body := f.Body[r.off:]
	resp, err := newResponse(h.Opcode, body)
	if err != nil {
		return nil, env, err
	}
	if err := resp.Decode(body); err != nil {
		return nil, env, err
	}
	return resp, env, nil
}
