// Package partitaproc runs the built `partita` binary as a child process of
// a test: built once per test binary, started with the arguments a test
// gives, killed with any signal, its standard error kept for the test's
// messages.
//
// Invariants:
//  1. Start returns only once the process has logged the address its CQL
//     server is bound to, so a driver may connect as soon as it returns.
//  2. A process still running when its test ends is killed and waited
//     for; no child outlives its test.
//  3. The binary is built from this module's cmd/partita, so it holds the
//     code under test; RemoveBinary (called by TestMain) deletes it.
package partitaproc
