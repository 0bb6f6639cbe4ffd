"""Consistency levels a statement may not use, refused as Cassandra 5.0
refuses them (db/ConsistencyLevel.java: validateForRead, validateForWrite,
validateCounterForWrite, validateForCasCommit), and the ones it takes.
Every expectation here is what Cassandra 5.0.6 answered to this file (run
it with PARTITA_PORT pointing at a Cassandra node)."""

import unittest

from cassandra import ConsistencyLevel as CL
from cassandra import InvalidRequest
from cassandra.query import SimpleStatement

import partita_env as env


class ConsistencyTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = env.session()
        cls.s.execute("CREATE TABLE IF NOT EXISTS cl_t (k int, c int, v int, PRIMARY KEY (k, c))")
        cls.s.execute("CREATE TABLE IF NOT EXISTS cl_cnt (k int PRIMARY KEY, n counter)")
        cls.s.execute("INSERT INTO cl_t (k, c, v) VALUES (1, 1, 1)")

    def run_at(self, query, cl):
        return self.s.execute(SimpleStatement(query, consistency_level=cl))

    def refused(self, query, cl, message):
        with self.assertRaises(InvalidRequest) as ctx:
            self.run_at(query, cl)
        self.assertIn(message, str(ctx.exception))

    def test_any_is_for_writes_only(self):
        self.refused("SELECT * FROM cl_t WHERE k = 1", CL.ANY, "ANY ConsistencyLevel is only supported for writes")
        self.run_at("INSERT INTO cl_t (k, c, v) VALUES (1, 2, 2)", CL.ANY)
        self.refused("UPDATE cl_cnt SET n = n + 1 WHERE k = 1", CL.ANY,
                     "Consistency level ANY is not yet supported for counter table cl_cnt")
        # A conditional update commits at ANY; a counter batch is not checked.
        self.assertTrue(self.run_at("INSERT INTO cl_t (k, c, v) VALUES (1, 3, 3) IF NOT EXISTS", CL.ANY).was_applied)
        self.run_at("BEGIN COUNTER BATCH UPDATE cl_cnt SET n = n + 1 WHERE k = 2; APPLY BATCH", CL.ANY)

    def test_serial_is_for_conditions_and_reads(self):
        for cl in (CL.SERIAL, CL.LOCAL_SERIAL):
            self.refused("INSERT INTO cl_t (k, c, v) VALUES (1, 1, 1)", cl,
                         "You must use conditional updates for serializable writes")
            self.refused("DELETE FROM cl_t WHERE k = 9", cl, "You must use conditional updates for serializable writes")
            self.refused("UPDATE cl_cnt SET n = n + 1 WHERE k = 1", cl, "Counter operations are inherently non-serializable")
        self.refused("INSERT INTO cl_t (k, c, v) VALUES (1, 4, 4) IF NOT EXISTS", CL.SERIAL,
                     'SERIAL is not supported as conditional update commit consistency. Use ANY if you mean '
                     '"make sure it is accepted but I don\'t care how many replicas commit it for non-SERIAL reads"')
        self.refused("BEGIN BATCH INSERT INTO cl_t (k, c, v) VALUES (1, 4, 4) IF NOT EXISTS; APPLY BATCH", CL.LOCAL_SERIAL,
                     "LOCAL_SERIAL is not supported as conditional update commit consistency")
        # Reads at SERIAL, of one partition, of several, of a range; a
        # batch without conditions.
        self.assertEqual([r.c for r in self.run_at("SELECT * FROM cl_t WHERE k = 1 AND c = 1", CL.SERIAL)], [1])
        self.assertEqual([r.c for r in self.run_at("SELECT * FROM cl_t WHERE k IN (1, 2) AND c = 1", CL.SERIAL)], [1])
        self.assertEqual([r.c for r in self.run_at("SELECT * FROM cl_t WHERE c = 1 ALLOW FILTERING", CL.LOCAL_SERIAL)], [1])
        self.run_at("BEGIN BATCH INSERT INTO cl_t (k, c, v) VALUES (1, 1, 1); APPLY BATCH", CL.SERIAL)

    def test_each_quorum_needs_network_topology_for_conditions(self):
        self.refused("INSERT INTO cl_t (k, c, v) VALUES (1, 5, 5) IF NOT EXISTS", CL.EACH_QUORUM,
                     "consistency level EACH_QUORUM not compatible with replication strategy "
                     "(org.apache.cassandra.locator.SimpleStrategy)")
        self.assertEqual([r.c for r in self.run_at("SELECT * FROM cl_t WHERE k = 1 AND c = 1", CL.EACH_QUORUM)], [1])


if __name__ == "__main__":
    unittest.main()
