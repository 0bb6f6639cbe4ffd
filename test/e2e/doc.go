// Package e2e holds Partita's end-to-end suites; the package itself is empty
// and everything lives in its tests (package e2e_test).
//
// The tests talk to a real node through real drivers, each with its default
// settings:
//   - gocql (github.com/gocql/gocql) against an in-process node, running the
//     examples of the seed documents (the product's minimum acceptance set:
//     their tables and queries as written; test/internal/seeds, which
//     test/clusterstore also runs through a gateway over Cassandra), every
//     scalar type, paging (also of GROUP BY, whose pages hold whole
//     groups), schema metadata and events, errors and token routing, lightweight
//     transactions under contention (16 clients incrementing one cell by
//     compare-and-set lose no update, also with skewed client clocks; a
//     history of concurrent ones and SERIAL reads checked linearizable with
//     porcupine), list operations that read before writing (checked
//     linearizable the same way) and counters incremented concurrently, or
//     with client timestamps going backwards, that lose no increment;
//   - the built binary, for durability: rows acknowledged before a kill -9
//     are all there after a restart on the same directory, logged batches
//     across two tables survive 20 kills all or nothing, and a SIGTERM
//     stops the node cleanly;
//   - the built binary under load: 1,000 native-protocol connections open
//     at once, all answered, with the server's RSS and goroutines measured
//     idle (TestLoadConnections), and a mixed load of reads, writes,
//     lightweight transactions, deletes, connection churn and a forced
//     split, after whose warm-up RSS, goroutines and descriptors must stay
//     flat (TestSoak: 60 s, PARTITA_SOAK_DURATION=10m for the full run);
//   - TestPythonDriver, TestNodeDriver and TestJavaDriver, which start an
//     in-process node and run the suites under test/drivers/python
//     (Debian's python3-cassandra), test/drivers/node (npm
//     cassandra-driver) and test/drivers/java (the Java driver 4.x, through
//     Maven) against it; the Java driver's PlainTextAuthProvider and TLS
//     (PKCS12 stores made at run time) against nodes with
//     PasswordAuthenticator and client_encryption_options
//     (TestJavaAuthTLS).
//
// Invariants:
//  1. Every test works in keyspaces and tables of its own, so tests may run
//     in any order against the shared node.
//  2. A missing driver fails the runner, with the command that installs it;
//     it is never a skip.
//  3. Where Partita differs from Cassandra the test is written anyway and
//     skipped with a message starting "BUG:".
package e2e
