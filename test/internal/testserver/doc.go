// Package testserver runs a Partita node inside a test process: storage in a
// directory, the engine, and the CQL server on a free loopback port, wired as
// `partita serve` wires them (cmd/partita/serve.go).
//
// Invariants:
//  1. Start returns only once the listener is bound and the engine is open,
//     so a driver may connect as soon as it returns.
//  2. system.local advertises the address the listener is bound to, so
//     drivers that discover the node through it dial the same socket.
//  3. Stop is idempotent and closes the server, then the engine, then the
//     storage, so that a later Start on the same directory reopens the data.
package testserver
