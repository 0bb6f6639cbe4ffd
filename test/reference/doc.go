// Package reference checks that Apache Cassandra 5.0.6, the reference
// Partita is measured against, runs here: one node shared by the test
// binary (TestCassandraSingleNode, the smoke test) and a three-node cluster
// on 127.0.0.1-3 (TestCassandraCluster), on which the gateway's node-crash
// test also runs (GatewaySurvivesNodeCrash: partita serve --backend
// cassandra, one node killed with SIGKILL under QUORUM traffic and a split,
// restarted, nothing lost). The package itself is empty and
// everything lives in its tests (package reference_test), which start the
// nodes through test/internal/cassandra and scripts/cassandra.sh.
//
// The tests fail when Cassandra cannot start; outside CI they skip when
// PARTITA_NO_CASSANDRA=1 is set.
package reference
