package protocol

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/partita-db/partita/internal/cqlerr"
)

// Version4 is the only protocol version this package speaks (§2.1).
const Version4 = 4

// HeaderSize is the size of a v3/v4 frame header (§1).
const HeaderSize = 9

// MaxFrameSize is Cassandra's default native_transport_max_frame_size: the
// largest frame, header included, that a request may have (16 MiB).
const MaxFrameSize = 16 << 20

// DefaultMaxBody is the largest request body ReadFrame accepts by default,
// so that header plus body stay within MaxFrameSize as in Cassandra
// (transport/Envelope.java Decoder).
const DefaultMaxBody = MaxFrameSize - HeaderSize

// responseBit is the direction bit of the version byte (§2.1).
const responseBit = 0x80

// Frame header flags (§2.2).
const (
	FlagCompression   byte = 0x01 // body is compressed
	FlagTracing       byte = 0x02 // request: trace it; response: body starts with a tracing id
	FlagCustomPayload byte = 0x04 // body starts with a [bytes map] custom payload
	FlagWarning       byte = 0x08 // response: body starts with a [string list] of warnings
)

// Opcode distinguishes the messages (§2.4).
type Opcode byte

// Opcodes (§2.4). There is no 0x04 in v4.
const (
	OpError         Opcode = 0x00
	OpStartup       Opcode = 0x01
	OpReady         Opcode = 0x02
	OpAuthenticate  Opcode = 0x03
	OpOptions       Opcode = 0x05
	OpSupported     Opcode = 0x06
	OpQuery         Opcode = 0x07
	OpResult        Opcode = 0x08
	OpPrepare       Opcode = 0x09
	OpExecute       Opcode = 0x0A
	OpRegister      Opcode = 0x0B
	OpEvent         Opcode = 0x0C
	OpBatch         Opcode = 0x0D
	OpAuthChallenge Opcode = 0x0E
	OpAuthResponse  Opcode = 0x0F
	OpAuthSuccess   Opcode = 0x10
)

var opcodeNames = [...]string{
	OpError: "ERROR", OpStartup: "STARTUP", OpReady: "READY", OpAuthenticate: "AUTHENTICATE",
	OpOptions: "OPTIONS", OpSupported: "SUPPORTED", OpQuery: "QUERY", OpResult: "RESULT",
	OpPrepare: "PREPARE", OpExecute: "EXECUTE", OpRegister: "REGISTER", OpEvent: "EVENT",
	OpBatch: "BATCH", OpAuthChallenge: "AUTH_CHALLENGE", OpAuthResponse: "AUTH_RESPONSE",
	OpAuthSuccess: "AUTH_SUCCESS",
}

// String returns the spec's name of the opcode, e.g. "QUERY".
func (o Opcode) String() string {
	if int(o) < len(opcodeNames) && opcodeNames[o] != "" {
		return opcodeNames[o]
	}
	return fmt.Sprintf("Opcode(0x%02X)", byte(o))
}

// known reports whether o is one of the opcodes of §2.4.
func (o Opcode) known() bool { return int(o) < len(opcodeNames) && opcodeNames[o] != "" }

// isRequest reports whether a client sends o (§4.1).
func (o Opcode) isRequest() bool {
	switch o {
	case OpStartup, OpOptions, OpQuery, OpPrepare, OpExecute, OpRegister, OpBatch, OpAuthResponse:
		return true
	}
	return false
}

// Header is the 9-byte frame header (§1, §2).
type Header struct {
	// Version is the protocol version: the low 7 bits of the first byte.
	Version byte
	// Response is the direction bit (0x80) of the first byte.
	Response bool
	// Flags are the §2.2 flags (FlagCompression, ...).
	Flags byte
	// Stream is the stream id (§2.3); a response reuses the request's.
	Stream int16
	// Opcode says which message the body holds (§2.4).
	Opcode Opcode
	// Length is the body length as read (§2.5); AppendFrame ignores it.
	Length int32
}

// Frame is one frame: its header and its (still encoded) body.
type Frame struct {
	Header Header
	Body   []byte
}

// ErrTruncatedFrame is returned by ReadFrame when the connection ends in
// the middle of a frame. It matches io.ErrUnexpectedEOF with errors.Is.
var ErrTruncatedFrame = fmt.Errorf("protocol: connection closed in the middle of a frame: %w", io.ErrUnexpectedEOF)

// UnsupportedVersionError is returned by ReadFrame for a frame whose
// version is not 4. The server answers with AppendReply and closes (§2.1;
// reference §1.4).
type UnsupportedVersionError struct {
	// Version is the version the client sent (low 7 bits of the first byte).
	Version byte
}

func (e *UnsupportedVersionError) Error() string { return UnsupportedVersionMessage(e.Version) }

// Err returns the Protocol error the reply carries.
func (e *UnsupportedVersionError) Err() *cqlerr.Error {
	return cqlerr.Protocolf("%s", UnsupportedVersionMessage(e.Version))
}

// AppendReply appends the complete ERROR frame that answers the request.
func (e *UnsupportedVersionError) AppendReply(dst []byte) []byte {
	return AppendVersionError(dst, e.Version)
}

// FrameSizeError is returned by ReadFrame for a body length that is
// negative or larger than the limit; the body has not been read. The server
// answers with Err() on Stream and closes the connection, since the rest of
// the byte stream cannot be trusted.
type FrameSizeError struct {
	Stream int16
	Opcode Opcode
	// Length is the body length field as read.
	Length int32
	// MaxBody is the limit ReadFrame was given.
	MaxBody int
}

func (e *FrameSizeError) Error() string { return e.message() }

// Err returns the Protocol error to send on Stream.
func (e *FrameSizeError) Err() *cqlerr.Error { return cqlerr.Protocolf("%s", e.message()) }

func (e *FrameSizeError) message() string {
	if e.Length < 0 {
		// Cassandra's text for a negative length (Envelope.Decoder.extractHeader).
		return fmt.Sprintf("Invalid value for envelope header body length field: %d", e.Length)
	}
	// Cassandra counts the header in both numbers (Envelope.Decoder.fail).
	return fmt.Sprintf("Request is too big: length %d exceeds maximum allowed length %d.",
		int64(e.Length)+HeaderSize, int64(e.MaxBody)+HeaderSize)
}

// ReadFrame reads one frame: the header, then the body in a second step.
// It returns io.EOF if the connection closed before the first byte,
// ErrTruncatedFrame if it closed after it, *UnsupportedVersionError as soon
// as the first byte shows a version other than 4 (without waiting for the
// rest, since v1/v2 headers are shorter), and *FrameSizeError for a body
// length below 0 or above maxBody. The body is freshly allocated.
func ReadFrame(r *bufio.Reader, maxBody int) (Frame, error) {
	h, err := ReadHeader(r, maxBody)
	if err != nil {
		return Frame{}, err
	}
	body, err := ReadBody(r, h, nil)
	if err != nil {
		return Frame{}, err
	}
	return Frame{Header: h, Body: body}, nil
}

// ReadHeader is ReadFrame's first step: it reads a header and checks its
// version and body length, with ReadFrame's errors.
func ReadHeader(r *bufio.Reader, maxBody int) (Header, error) {
	first, err := r.ReadByte()
	if err != nil {
		return Header{}, err // io.EOF: a clean close between frames
	}
	version := first &^ responseBit
	if version != Version4 {
		return Header{}, &UnsupportedVersionError{Version: version}
	}
	var rest [HeaderSize - 1]byte
	if _, err := io.ReadFull(r, rest[:]); err != nil {
		return Header{}, truncated(err)
	}
	h := Header{
		Version:  version,
		Response: first&responseBit != 0,
		Flags:    rest[0],
		Stream:   int16(binary.BigEndian.Uint16(rest[1:3])),
		Opcode:   Opcode(rest[3]),
		Length:   int32(binary.BigEndian.Uint32(rest[4:8])),
	}
	if h.Length < 0 || int64(h.Length) > int64(maxBody) {
		return Header{}, &FrameSizeError{Stream: h.Stream, Opcode: h.Opcode, Length: h.Length, MaxBody: maxBody}
	}
	return h, nil
}

// bodyChunk is the unit in which ReadBody takes memory for a body that has
// not arrived yet.
const bodyChunk = 64 << 10

// bodyChunks recycles the chunks a body is read into while it arrives.
var bodyChunks = sync.Pool{New: func() any { return new([bodyChunk]byte) }}

// ReadBody is ReadFrame's second step: it reads the h.Length bytes of body
// that follow h into a fresh slice. Memory is taken only for bytes that
// have arrived, never for a length the header merely announces: nothing
// until the first byte is there, then the whole body if it is at most
// bodyChunk bytes, else one pooled chunk of bodyChunk bytes at a time, each
// once its first byte is there, copied into the body when the last one is
// full. A peer that announces a large body and sends little therefore holds
// little.
//
// Before taking memory for n body bytes, ReadBody calls take(n) (when take
// is not nil; the calls add up to h.Length). If take returns an error,
// ReadBody reads and drops the rest of the body without keeping it, so that
// r stays at a frame boundary, and returns take's error (or the error that
// ended that read).
func ReadBody(r *bufio.Reader, h Header, take func(n int) error) ([]byte, error) {
	n := int(h.Length)
	if n == 0 {
		return []byte{}, nil
	}
	if _, err := r.Peek(1); err != nil {
		return nil, truncated(err)
	}
	if n <= bodyChunk {
		if take != nil {
			if err := take(n); err != nil {
				return nil, skipBody(r, n, err)
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return nil, truncated(err)
		}
		return body, nil
	}
	return readChunked(r, n, take)
}

// readChunked reads a body of n > bodyChunk bytes through pooled chunks.
func readChunked(r *bufio.Reader, n int, take func(n int) error) ([]byte, error) {
	var chunks []*[bodyChunk]byte
	defer func() {
		for _, c := range chunks {
			bodyChunks.Put(c)
		}
	}()
	for got := 0; got < n; got += bodyChunk {
		if _, err := r.Peek(1); err != nil {
			return nil, truncated(err)
		}
		size := min(bodyChunk, n-got)
		if take != nil {
			if err := take(size); err != nil {
				return nil, skipBody(r, n-got, err)
			}
		}
		c := bodyChunks.Get().(*[bodyChunk]byte)
		chunks = append(chunks, c)
		if _, err := io.ReadFull(r, c[:size]); err != nil {
			return nil, truncated(err)
		}
	}
	body := make([]byte, 0, n)
	for _, c := range chunks {
		body = append(body, c[:min(bodyChunk, n-len(body))]...)
	}
	return body, nil
}

// skipBody reads and drops the n bytes left of a body that take refused.
func skipBody(r *bufio.Reader, n int, refused error) error {
	if _, err := r.Discard(n); err != nil {
		return truncated(err)
	}
	return refused
}

// truncated maps an EOF inside a frame to ErrTruncatedFrame and keeps any
// other (network) error as it is.
func truncated(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return ErrTruncatedFrame
	}
	return err
}

// AppendFrame appends a frame with header h and the given body; the length
// field is len(body), whatever h.Length says.
func AppendFrame(dst []byte, h Header, body []byte) []byte {
	dst = appendHeader(dst, h, len(body))
	return append(dst, body...)
}

func appendHeader(dst []byte, h Header, length int) []byte {
	v := h.Version &^ responseBit
	if h.Response {
		v |= responseBit
	}
	dst = append(dst, v, h.Flags)
	dst = binary.BigEndian.AppendUint16(dst, uint16(h.Stream))
	dst = append(dst, byte(h.Opcode))
	return binary.BigEndian.AppendUint32(dst, uint32(length))
}

// patchLength writes the body length into the header that starts at
// dst[start]; used by encoders that append the body in place.
func patchLength(dst []byte, start int) {
	binary.BigEndian.PutUint32(dst[start+5:start+9], uint32(len(dst)-start-HeaderSize))
}
