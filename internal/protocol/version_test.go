package protocol

import (
	"bytes"
	"testing"

	"github.com/partita-db/partita/internal/cqlerr"
)

func TestVersionError(t *testing.T) {
	// Reference §1.4: 0x84, stream 0, ERROR, code 0x000A and Cassandra's
	// text (transport/ProtocolVersion.java invalidVersionMessage) listing
	// only v4, the one version Partita speaks.
	msg := "Invalid or unsupported protocol version (5); supported versions are (4/v4)"
	want := bytes.Join([][]byte{
		unhex(t, `84 00 0000 00`),
		appendInt(nil, int32(4+2+len(msg))),
		unhex(t, `0000000a`),
		appendString(nil, msg),
	}, nil)
	if got := AppendVersionError(nil, 5); !bytes.Equal(got, want) {
		t.Fatalf("got  %x\nwant %x", got, want)
	}
	for _, v := range []byte{1, 2, 3, 5, 0x41, 0x42} {
		f := readOne(t, AppendVersionError(nil, v))
		resp, _, err := DecodeResponse(f)
		if err != nil {
			t.Fatal(err)
		}
		e := resp.(*ErrorMessage).Err
		if e.Code != cqlerr.ProtocolError || e.Message != UnsupportedVersionMessage(v) || f.Header.Stream != 0 {
			t.Fatalf("version %d: %v", v, e)
		}
	}
}
