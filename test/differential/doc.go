// Package differential replays CQL against Partita and a real Apache
// Cassandra 5.0 node and compares the answers.
//
// TestReplayDatadriven runs every statement of every datadriven file in
// internal/engine/testdata on an in-process Partita (the cqltest harness)
// and on the reference node (over the native protocol, through the same
// codec and printer), one statement at a time: rows in order, column names
// and types, warnings, error codes and messages, [applied] results, and
// every page when the file pages. Commands that only Partita has (split,
// split-finish, restart) run on Partita alone: they must not change what a
// client sees, so the statements after them still compare.
//
// Differences kept on purpose are listed, each with its reason, in
// known_differences.txt (read by LoadKnown); any other difference fails the test, and so does a
// listed one that no longer differs, so the list stays exact.
//
// TestRandomSessions (random_test.go) runs random whole sessions (random
// schemas, writes, reads and refused statements; random_session_test.go)
// on both, shrinks the first difference of a session to a short repro and
// prints it with a datadriven case of Cassandra's answers. Divergences
// not fixed yet are listed with their repros in random_known.txt (read by
// LoadRandomKnown), which TestRandomKnownRepros replays to keep exact.
//
// The reference node comes from test/internal/cassandra (one per test
// binary); PARTITA_REFERENCE_ADDR=host:port points the test at a node
// started by hand instead.
package differential
