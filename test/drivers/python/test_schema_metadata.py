"""The driver's own schema metadata: keyspaces, tables, columns, and its
refresh after DDL, both our own and another client's (SCHEMA_CHANGE events)."""

import unittest

import partita_env as env


class SchemaMetadataTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = env.session()
        cls.s.execute(
            """CREATE TABLE meta_events (
    asset_id text,
    day date,
    event_ts timestamp,
    seq int,
    payload text,
    tags set<text>,
    PRIMARY KEY ((asset_id, day), event_ts, seq)
) WITH CLUSTERING ORDER BY (event_ts DESC, seq ASC)"""
        )

    def meta(self):
        return env.cluster().metadata

    def test_keyspace_and_tables_are_listed(self):
        ks = self.meta().keyspaces[env.KEYSPACE]
        self.assertEqual(ks.replication_strategy.name, "SimpleStrategy")
        self.assertIn("meta_events", ks.tables)
        for name in ("system", "system_schema"):
            self.assertIn(name, self.meta().keyspaces)

    def test_columns_and_keys(self):
        t = self.meta().keyspaces[env.KEYSPACE].tables["meta_events"]
        self.assertEqual([c.name for c in t.partition_key], ["asset_id", "day"])
        self.assertEqual([c.name for c in t.clustering_key], ["event_ts", "seq"])
        self.assertEqual([c.is_reversed for c in t.clustering_key], [True, False])
        types = {name: col.cql_type for name, col in t.columns.items()}
        self.assertEqual(
            types,
            {
                "asset_id": "text",
                "day": "date",
                "event_ts": "timestamp",
                "seq": "int",
                "payload": "text",
                "tags": "set<text>",
            },
        )
        # The columns in Cassandra's order: partition key, clustering, then the rest by name.
        self.assertEqual(list(t.columns), ["asset_id", "day", "event_ts", "seq", "payload", "tags"])
        cql = t.as_cql_query()
        self.assertIn("PRIMARY KEY ((asset_id, day), event_ts, seq)", cql)
        self.assertIn("CLUSTERING ORDER BY (event_ts DESC, seq ASC)", cql)

    def test_own_ddl_refreshes_metadata(self):
        self.s.execute("CREATE TABLE meta_created (k int PRIMARY KEY, v text)")
        self.assertIn("meta_created", self.meta().keyspaces[env.KEYSPACE].tables)
        self.s.execute("ALTER TABLE meta_created ADD extra bigint")
        cols = self.meta().keyspaces[env.KEYSPACE].tables["meta_created"].columns
        self.assertEqual(cols["extra"].cql_type, "bigint")
        self.s.execute("DROP TABLE meta_created")
        self.assertNotIn("meta_created", self.meta().keyspaces[env.KEYSPACE].tables)

    def test_other_clients_ddl_arrives_as_schema_events(self):
        other = env.new_cluster()
        try:
            o = other.connect(env.KEYSPACE)
            o.execute("CREATE TABLE meta_remote (k int PRIMARY KEY, v text)")
            tables = lambda: self.meta().keyspaces[env.KEYSPACE].tables  # noqa: E731
            self.assertTrue(env.wait_for(lambda: "meta_remote" in tables()), "CREATE TABLE not seen")
            o.execute("ALTER TABLE meta_remote ADD note text")
            self.assertTrue(
                env.wait_for(lambda: "note" in tables()["meta_remote"].columns), "ALTER TABLE not seen"
            )
            o.execute(
                "CREATE KEYSPACE py_remote_ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"
            )
            self.assertTrue(env.wait_for(lambda: "py_remote_ks" in self.meta().keyspaces), "CREATE KEYSPACE not seen")
            o.execute("CREATE TYPE py_remote_ks.address (street text, zip int)")
            self.assertTrue(
                env.wait_for(lambda: "address" in self.meta().keyspaces["py_remote_ks"].user_types),
                "CREATE TYPE not seen",
            )
            o.execute("DROP KEYSPACE py_remote_ks")
            self.assertTrue(env.wait_for(lambda: "py_remote_ks" not in self.meta().keyspaces), "DROP KEYSPACE not seen")
        finally:
            other.shutdown()


if __name__ == "__main__":
    unittest.main()
