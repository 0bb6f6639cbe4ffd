package protocol

import (
	"fmt"
	"strings"

	"github.com/partita-db/partita/internal/cqlerr"
)

// SupportedVersions lists the protocol versions the server speaks, in
// Cassandra's "<number>/<description>" form (transport/ProtocolVersion.java
// toString), as SUPPORTED's PROTOCOL_VERSIONS and the version error show it.
var SupportedVersions = []string{"4/v4"}

// UnsupportedVersionMessage is the text of the version negotiation error:
// Cassandra 4/5's wording (transport/ProtocolVersion.java
// invalidVersionMessage) with Partita's set of versions, so that it never
// names a version the server refuses. Drivers negotiate down without
// parsing the list: gocql takes the version byte of the reply's header
// (0x84) when its 3.x pattern ("the lowest supported version is ...") does
// not match, Python looks for "unsupported protocol version", and the Java
// and Node drivers for "Invalid or unsupported protocol version", then try
// their next lower version (reference §1.4).
func UnsupportedVersionMessage(version byte) string {
	return fmt.Sprintf("Invalid or unsupported protocol version (%d); supported versions are (%s)",
		version, strings.Join(SupportedVersions, ", "))
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
