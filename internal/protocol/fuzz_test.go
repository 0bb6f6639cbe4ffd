package protocol

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/partita-db/partita/internal/cqlerr"
)

// seedFrames returns one valid frame per sample message: every request and
// response opcode.
func seedFrames() [][]byte {
	var frames [][]byte
	for _, m := range allSamples() {
		switch m := m.(type) {
		case Request:
			frames = append(frames, AppendRequest(nil, 1, m))
		case Response:
			frames = append(frames, EncodeResponse(nil, 1, m, []string{"w"}, nil))
		}
	}
	return frames
}

// FuzzReadFrame feeds arbitrary bytes through ReadFrame and the decoders
// as a connection would: frames until the first error, which must be one
// of the kinds ReadFrame documents.
func FuzzReadFrame(f *testing.F) {
	frames := seedFrames()
	for _, fr := range frames {
		f.Add(fr)
	}
	f.Add(bytes.Join(frames[:4], nil))
	f.Add([]byte{0x05})
	f.Add([]byte{0x04, 0, 0, 1, 7, 0xFF, 0xFF, 0xFF, 0xFF})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReader(bytes.NewReader(data))
		for {
			fr, err := ReadFrame(r, 1<<16)
			if err != nil {
				checkReadError(t, err)
				return
			}
			if int(fr.Header.Length) != len(fr.Body) {
				t.Fatalf("length %d, body %d", fr.Header.Length, len(fr.Body))
			}
			if fr.Header.Response {
				_, _, err = DecodeResponse(fr)
			} else {
				_, err = DecodeRequest(fr)
			}
			if err != nil && !cqlerr.Is(err, cqlerr.ProtocolError) {
				t.Fatalf("decode error is not a Protocol error: %v", err)
			}
		}
	})
}

func checkReadError(t *testing.T, err error) {
	var ve *UnsupportedVersionError
	var se *FrameSizeError
	switch {
	case err == io.EOF, errors.Is(err, ErrTruncatedFrame):
	case errors.As(err, &ve):
		if ve.Version == Version4 {
			t.Fatal("version 4 reported unsupported")
		}
	case errors.As(err, &se):
		if se.Err().Code != cqlerr.ProtocolError {
			t.Fatalf("size error %v", se)
		}
	default:
		t.Fatalf("unexpected ReadFrame error %T %v", err, err)
	}
}

// FuzzDecodeRequest decodes arbitrary bodies under every opcode and flag
// byte. A body that decodes must survive re-encoding unchanged
// (doc.go invariant 6); one that does not must give a Protocol error.
func FuzzDecodeRequest(f *testing.F) {
	for _, m := range allSamples() {
		f.Add(byte(m.Opcode()), byte(0), m.Encode(nil))
	}
	f.Add(byte(OpPrepare), FlagCustomPayload, append(appendBytesMap(nil, map[string][]byte{"k": {1}}), 0, 0, 0, 1, 'Q'))
	f.Fuzz(func(t *testing.T, opcode, flags byte, body []byte) {
		fr := Frame{Header: Header{Version: Version4, Flags: flags, Opcode: Opcode(opcode)}, Body: body}
		req, err := DecodeRequest(fr)
		if err != nil {
			if !cqlerr.Is(err, cqlerr.ProtocolError) {
				t.Fatalf("not a Protocol error: %v", err)
			}
			return
		}
		again, err := DecodeRequest(readOne(t, AppendRequest(nil, 0, req)))
		if err != nil {
			t.Fatalf("re-encoded %s does not decode: %v", describe(req), err)
		}
		if describe(again) != describe(req) {
			t.Fatalf("round trip changed the message:\n %s\n %s", describe(req), describe(again))
		}
	})
}

// FuzzDecodeResponse does the same for the client side, envelope included.
func FuzzDecodeResponse(f *testing.F) {
	for _, m := range allSamples() {
		f.Add(byte(m.Opcode()), byte(0), m.Encode(nil))
	}
	f.Add(byte(OpResult), FlagWarning|FlagTracing, append(make([]byte, 16), 0, 1, 0, 1, 'w', 0, 0, 0, 1))
	f.Fuzz(func(t *testing.T, opcode, flags byte, body []byte) {
		fr := Frame{Header: Header{Version: Version4, Response: true, Flags: flags, Opcode: Opcode(opcode)}, Body: body}
		resp, env, err := DecodeResponse(fr)
		if err != nil {
			if !cqlerr.Is(err, cqlerr.ProtocolError) {
				t.Fatalf("not a Protocol error: %v", err)
			}
			return
		}
		again, env2, err := DecodeResponse(readOne(t, AppendResponse(nil, 0, resp, env)))
		if err != nil {
			t.Fatalf("re-encoded %s does not decode: %v", describe(resp), err)
		}
		if describe(again) != describe(resp) || describe(env2) != describe(env) {
			t.Fatalf("round trip changed the message:\n %s %s\n %s %s", describe(resp), describe(env), describe(again), describe(env2))
		}
	})
}
