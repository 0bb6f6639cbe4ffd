// Package protocol is the server side of the CQL native protocol, version 4
// (Apache Cassandra's doc/native_protocol_v4.spec; section numbers in
// comments refer to it). It turns the bytes a client sends into request
// messages and response messages into bytes. It knows nothing about CQL
// semantics, storage or sessions: the server decides what a request means.
//
// The flow for one connection is:
//
//	f, err := ReadFrame(r, DefaultMaxBody)   // header, then body (§1, §2)
//	req, err := DecodeRequest(f)             // envelope flags, then the message (§4.1)
//	dst = EncodeResponse(dst, f.Header.Stream, resp, warnings, nil) // §4.2
//
// Errors from ReadFrame tell the server how to react: io.EOF is a clean
// close; ErrTruncatedFrame a close in mid-frame; *UnsupportedVersionError
// carries the reply for version negotiation (AppendVersionError); and
// *FrameSizeError carries the stream to answer with a Protocol error before
// closing. Every other decoding failure is a *cqlerr.Error with code
// Protocol (0x000A), to be answered on the request's stream.
//
// Every message type also has the opposite direction (Encode for requests,
// Decode for responses) so that tests, fuzzers and a Go benchmark client can
// round-trip them.
//
// Invariants:
//  1. Client input never panics a decoder and is never read past the body:
//     every read is bounds-checked, a count taken from the wire never sizes
//     an allocation beyond what the remaining bytes can hold (rows without
//     columns, which take no bytes, are capped at maxEmptyRows), and type
//     options nest at most maxTypeDepth deep.
//  2. A malformed body yields a *cqlerr.Error with code Protocol; where
//     Cassandra defines the text (unknown opcode, consistency, batch kind,
//     out of bound timestamp, version) it is Cassandra's text.
//  3. Decoded messages alias Frame.Body: values, ids, tokens and paging
//     states are sub-slices, not copies. A body must stay untouched while
//     a message decoded from it is in use; ReadFrame allocates a fresh body
//     for every frame, and memory for a body only as its bytes arrive
//     (ReadBody), never for the length a header merely announces.
//  4. Encoders only append and always produce a well-formed frame: the
//     length field equals the body written; a [string] or [short bytes]
//     longer than 65535 bytes is cut (strings at a rune boundary), and a
//     Rows result writes exactly columns_count cells per row (missing cells
//     as null, extra cells dropped).
//  5. Only version 4 is spoken. A request of any other version gets the
//     exact reply of AppendVersionError (0x84 header, stream 0, Protocol
//     error whose text every target driver recognises) and a close.
//  6. Decode(Encode(m)) equals m for every message, except where the wire
//     cannot carry a distinction: STARTUP keys come back upper case, and a
//     type option does not say whether a collection is frozen.
//  7. Frame compression (§5, compress.go) is bounded like the frame: a
//     compressed body that declares more than the body limit is refused
//     before anything is allocated for it, and a corrupt one is a Protocol
//     error, never a panic (FuzzLZ4Decompress, FuzzSnappyDecompress).
package protocol
