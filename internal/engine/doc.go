// Package engine runs CQL statements for client sessions: it keeps each
// session's keyspace, caches prepared statements, and takes every statement
// through parse → plan → exec, returning protocol-free results.
//
// Invariants:
//  1. A prepared statement id is the MD5 of the keyspace it was prepared in
//     and its text, so ids are stable across restarts and connections.
//  2. A plan is bound to the schema version it was made against; executing
//     it after a schema change re-plans it first.
//  3. Errors returned are *cqlerr.Error values with Cassandra's codes.
//  4. A statement runs within its request timeout (timeout.go), and the
//     guardrails and the partition write-rate guard judge a write before
//     any of it is applied: a write they refuse, or one abandoned at its
//     timeout, has written nothing (but for the later statements of a
//     counter batch, which are applied one by one).
package engine
