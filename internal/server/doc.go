// Package server is the CQL native protocol v4 server: it accepts TCP
// connections, performs the OPTIONS/STARTUP/REGISTER handshake, runs
// QUERY, PREPARE, EXECUTE and BATCH through one engine session per
// connection, and pushes SCHEMA_CHANGE events to connections that asked
// for them. Frames are read and written with package protocol; nothing here
// knows CQL.
//
// Each connection has three kinds of goroutine: one reader, which reads a
// frame, answers connection-level messages (OPTIONS, STARTUP, REGISTER and
// anything malformed) itself and hands engine requests to workers; the
// workers, kept for the connection's life and never more than its request
// slots, which run requests concurrently and may finish them in any order
// (replies carry the request's stream id, so drivers match them); and one
// writer, which serialises response frames and flushes when its queue runs
// dry, so that pipelined replies share a system call.
//
// Invariants:
//  1. At most Config.MaxInFlightPerConn requests of one connection execute
//     at once. The reader takes a slot before starting a request and stops
//     reading the socket while none is free, so a fast client is slowed by
//     TCP flow control, never by an unbounded number of goroutines or
//     buffered frames.
//  2. Connection state (whether STARTUP succeeded) is read and written only
//     by the reader goroutine; the event registrations, read by the event
//     fan-out, are atomic.
//  3. Only the writer goroutine writes to the socket. Every frame it writes
//     is complete, so replies from concurrent requests never interleave.
//  4. A request never takes down more than its own reply: a panic in a
//     handler is recovered, logged with its stack and answered with a Server
//     error (0x0000); the connection and all others go on.
//  5. The connection is closed after a reply only when the byte stream can
//     no longer be trusted or spoken: an unsupported protocol version
//     (answered on stream 0 with version byte 0x84, reference §1.4) and a
//     frame larger than MaxFrameSize (answered on its stream). Malformed
//     bodies, unknown opcodes and out-of-order messages get a Protocol
//     error (0x000A) on their stream and the connection stays open: the
//     frame's length kept the byte stream in step. (Cassandra 4 answers
//     out-of-order messages the same way but closes a v4 connection after
//     a body it cannot decode, transport/ExceptionHandlers; staying open
//     costs a well-behaved driver nothing.)
//  6. Shutdown stops accepting and reading, lets requests already read
//     finish and their replies be written, then closes; when its context
//     ends first, the remaining connections are closed at once.
//  7. Request bodies cost memory only as their bytes arrive
//     (protocol.ReadBody), never for the length a header announces, and
//     every byte of body the server holds, from its arrival until the
//     request is answered, is counted against Config.MaxRequestDataInFlight
//     and, per client address, MaxRequestDataInFlightPerIP (requestBudget).
//     A connection that finds no room stops reading (backpressure) until
//     some is freed or its own executing requests have finished, or, if it
//     sent THROW_ON_OVERLOAD=1, has the request skipped and answered with
//     Overloaded (0x1001), as in Cassandra. A connection with nothing
//     executing always reads on, so the budget can be passed by at most one
//     frame per such connection, and only with bytes its client really
//     sent; no waiting reader waits on another one.
//  8. The replies waiting for a connection's writer are bounded by
//     Config.MaxQueuedReplyBytes, give or take one reply: the reader reads
//     no frame, and a worker runs no request, while the queued replies and
//     those the running requests are expected to add (awaitReplyRoom)
//     would pass it; the first request runs whenever the queue is within
//     it. The expectation is an estimate, so a burst of replies larger than
//     the connection's recent ones can pass the bound by the number of
//     requests running times their excess. A client that takes no reply
//     bytes for WriteTimeout is disconnected, which frees them all.
//  9. At most Config.MaxConcurrentConnections connections are served at
//     once, and MaxConcurrentConnectionsPerIP from one client address
//     (connLimits): a connection over either is closed as soon as it is
//     accepted, before anything is read or sent, as Cassandra's
//     ConnectionLimitHandler does; every connection counted is released
//     exactly once, when it is done (Server.connDone).
package server
