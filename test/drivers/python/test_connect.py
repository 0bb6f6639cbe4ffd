"""Connecting, system.local, keyspaces and USE through the Python driver."""

import unittest

from cassandra.protocol import ConfigurationException

import partita_env as env


class ConnectTest(unittest.TestCase):
    def test_connect_reads_system_local(self):
        cluster = env.new_cluster()
        try:
            s = cluster.connect()
            row = s.execute("SELECT cluster_name, release_version, data_center FROM system.local").one()
            self.assertTrue(row.release_version.startswith("4."), row.release_version)
            self.assertEqual(row.data_center, "datacenter1")
            self.assertEqual(cluster.metadata.cluster_name, row.cluster_name)
            hosts = cluster.metadata.all_hosts()
            self.assertEqual(len(hosts), 1)
            self.assertEqual(hosts[0].datacenter, "datacenter1")
            self.assertTrue(hosts[0].is_up)
            self.assertEqual(cluster.metadata.partitioner, "org.apache.cassandra.dht.Murmur3Partitioner")
        finally:
            cluster.shutdown()

    def test_create_and_drop_keyspace(self):
        s = env.session()
        s.execute(
            "CREATE KEYSPACE py_created WITH replication = "
            "{'class': 'NetworkTopologyStrategy', 'datacenter1': 1} AND durable_writes = true"
        )
        try:
            ks = env.cluster().metadata.keyspaces["py_created"]
            self.assertEqual(ks.replication_strategy.name, "NetworkTopologyStrategy")
            self.assertTrue(ks.durable_writes)
            names = [r.keyspace_name for r in s.execute("SELECT keyspace_name FROM system_schema.keyspaces")]
            self.assertIn("py_created", names)
        finally:
            s.execute("DROP KEYSPACE py_created")
        self.assertNotIn("py_created", env.cluster().metadata.keyspaces)

    def test_seed_keyspace_with_unknown_datacenter_is_rejected(self):
        # Seed 004 §7 writes 'dc1': 3. A single node of Cassandra 4.x lives in
        # datacenter1 and rejects unknown data centers (NetworkTopologyStrategy
        # .validateOptions, CASSANDRA-12681) with a configuration error.
        s = env.session()
        s.execute("DROP KEYSPACE IF EXISTS app")  # IF NOT EXISTS skips validation of an existing one
        with self.assertRaises(ConfigurationException) as cm:
            s.execute(
                """CREATE KEYSPACE IF NOT EXISTS app
WITH replication = {
    'class': 'NetworkTopologyStrategy',
    'dc1': 3
};"""
            )
        self.assertIn("dc1", str(cm.exception))
        s.execute("SELECT release_version FROM system.local")  # the session still works

    def test_use_keyspace(self):
        s = env.session()
        s.execute("CREATE TABLE IF NOT EXISTS use_probe (k int PRIMARY KEY, v text)")
        s.execute("INSERT INTO use_probe (k, v) VALUES (1, 'one')")
        cluster = env.new_cluster()
        try:
            other = cluster.connect()
            self.assertIsNone(other.keyspace)
            other.execute("USE %s" % env.KEYSPACE)
            self.assertEqual(other.keyspace, env.KEYSPACE)
            self.assertEqual(other.execute("SELECT v FROM use_probe WHERE k = 1").one().v, "one")
            other.execute('USE "%s"' % env.KEYSPACE)
            connected = cluster.connect(env.KEYSPACE)
            self.assertEqual(connected.execute("SELECT v FROM use_probe WHERE k = 1").one().v, "one")
        finally:
            cluster.shutdown()


if __name__ == "__main__":
    unittest.main()
