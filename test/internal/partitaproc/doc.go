// Package partitaproc builds cmd/partita once per test binary and runs
// `partita serve` as a child process of the test, as an operator would run
// it: flags and a configuration file, logs on standard error, the listening
// lines as the way to learn its ports.
//
// Invariants:
//  1. Start returns only once the process logged "CQL listening on" (and,
//     when its flags give a non-empty --http-addr, "HTTP listening on"), so
//     a driver may connect as soon as it returns.
//  2. The process is killed, if still running, when the test that started
//     it ends; Signal signals only that process (the test's own unreaped
//     child, so its pid cannot have been reused).
//  3. Remove, called from TestMain once the tests ended, deletes the built
//     binary.
package partitaproc
