// Package cqlerr is Partita's single error vocabulary: every error that can
// reach a client carries the native protocol error code it is sent with
// (native_protocol_v4.spec §9) and, where Cassandra defines one, Cassandra's
// message text.
//
// Invariants:
//  1. Code decides how a client reacts; callers compare errors by Code (or
//     with errors.As), never by message text.
//  2. An error that is not a *Error reaches the client as Server error
//     (0x0000); such an error is a bug in Partita, not in the request.
package cqlerr
