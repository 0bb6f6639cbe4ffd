// Package cassandra runs real Apache Cassandra 5.0.6 nodes beside Partita
// for tests and measurements: one node (Launch, StartNode, Shared), or a
// cluster of nodes on 127.0.0.1, 127.0.0.2, ... (LaunchCluster,
// StartCluster), whose nodes fault tests crash and restart (Node.Crash,
// Node.Restart).
//
// scripts/cassandra.sh is the one source of truth for how a node is
// installed, configured and started (jars from Maven, JVM flags,
// cassandra.yaml); this package only chooses directories and ports, calls
// the script with --foreground so that the JVM is its own child process,
// and waits until the node answers CQL.
//
// A JVM node costs seconds to start and about 0.7 GB of memory, so a test
// binary should share one: its TestMain calls Main, and its tests call
// Shared. Differential tests and benchmarks that need an address get it
// from Node.Addr, or a gocql configuration pinned to the node from
// Node.NewCluster. Code outside test/ cannot import this package (Go's
// internal rule); it can run scripts/cassandra.sh itself, as this package
// does.
//
// Whether tests may skip: a test that needs Cassandra fails when Cassandra
// cannot start, with the reason. It skips only when PARTITA_NO_CASSANDRA=1
// is set and CI is not (CI=true, as CI services set it, makes every such
// test run).
//
// Invariants:
//  1. Launch and Restart return only once the node answered
//     `SELECT release_version FROM system.local` on its native port;
//     LaunchCluster only once every node did and each node's system.peers
//     lists all the others with their tokens (as ring members).
//  2. Stop, Kill and Crash signal only the process this package started
//     (the java process itself, which the script execs, held as an
//     *exec.Cmd and reaped by it, so its pid cannot have been reused), and
//     return once it has exited. Stop and Kill are idempotent and final;
//     Crash (SIGKILL) keeps the node's directory, and Restart starts the
//     node again on it with the same addresses and ports.
//  3. A node is killed when the test that started it ends (StartNode,
//     StartCluster) or when Main returns (Shared), whether tests passed or
//     failed. On Linux the JVM also gets SIGKILL if the test binary dies
//     without running its cleanups (Pdeathsig), so no JVM outlives it.
//  4. Ports left zero in Options are chosen free; a cluster's nodes share
//     one native port and one storage port on their distinct addresses, so
//     gocql, which dials every host it discovers on the configured port,
//     reaches all of them.
package cassandra
