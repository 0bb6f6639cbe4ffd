package protocol

import (
	"fmt"

	"github.com/partita-db/partita/internal/cqlerr"
)

// UnsupportedVersionMessage is the text of the version negotiation error.
// It is Cassandra 3.x's wording, not 4.x's ("supported versions are
// (...)"): gocql v2 parses the greatest version out of exactly this
// ending, Python looks for "unsupported protocol version" and Node for
// "Invalid or unsupported protocol version" (reference §1.4).
func UnsupportedVersionMessage(version byte) string {
	return fmt.Sprintf("Invalid or unsupported protocol version (%d); the lowest supported version is 3 and the greatest is 4", version)
}

// AppendVersionError appends the reply to a request of an unsupported
// version: header version byte 0x84 (so drivers step down to 4), stream 0
// (the only stream every target driver accepts it on), opcode ERROR, code
// Protocol (0x000A) and UnsupportedVersionMessage. The server closes the
// connection after writing it.
func AppendVersionError(dst []byte, version byte) []byte {
	msg := &ErrorMessage{Err: cqlerr.Protocolf("%s", UnsupportedVersionMessage(version))}
	return AppendResponse(dst, 0, msg, ResponseEnvelope{})
}
