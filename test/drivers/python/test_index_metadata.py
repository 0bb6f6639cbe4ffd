"""Secondary indexes as the driver's metadata shows them: names, kinds,
targets and options from system_schema.indexes, and the CREATE INDEX
statements the driver rebuilds from them (entries(), keys(), values() and
full() targets, a static column, a quoted column, a storage-attached index
with an option). Checked against a Cassandra 5.0.6 node with the same
statements."""

import unittest

import partita_env as env


class IndexMetadataTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = env.session()
        cls.s.execute(
            'CREATE TABLE meta_indexed (k int, c int, m map<text, int>, fl frozen<list<int>>, '
            's int static, v text, "Odd Name" int, PRIMARY KEY (k, c))'
        )
        for q in (
            "CREATE INDEX ON meta_indexed (entries(m))",
            "CREATE INDEX ON meta_indexed (keys(m))",
            "CREATE INDEX meta_mv ON meta_indexed (values(m))",
            "CREATE INDEX ON meta_indexed (full(fl))",
            "CREATE INDEX ON meta_indexed (s)",
            'CREATE INDEX ON meta_indexed ("Odd Name")',
            "CREATE CUSTOM INDEX meta_vs ON meta_indexed (v) USING 'StorageAttachedIndex' "
            "WITH OPTIONS = {'case_sensitive': 'false'}",
        ):
            cls.s.execute(q)
        env.cluster().refresh_schema_metadata()

    def test_indexes(self):
        ks = env.cluster().metadata.keyspaces[env.KEYSPACE]
        got = {
            name: (ix.kind, dict(ix.index_options), ix.as_cql_query())
            for name, ix in ks.tables["meta_indexed"].indexes.items()
        }
        t = env.KEYSPACE + ".meta_indexed"
        self.assertEqual(
            got,
            {
                "meta_indexed_m_idx": ("COMPOSITES", {"target": "entries(m)"},
                                       "CREATE INDEX meta_indexed_m_idx ON %s (entries(m))" % t),
                "meta_indexed_m_idx_1": ("COMPOSITES", {"target": "keys(m)"},
                                         "CREATE INDEX meta_indexed_m_idx_1 ON %s (keys(m))" % t),
                "meta_mv": ("COMPOSITES", {"target": "values(m)"}, "CREATE INDEX meta_mv ON %s (values(m))" % t),
                "meta_indexed_fl_idx": ("COMPOSITES", {"target": "full(fl)"},
                                        "CREATE INDEX meta_indexed_fl_idx ON %s (full(fl))" % t),
                "meta_indexed_s_idx": ("COMPOSITES", {"target": "s"}, "CREATE INDEX meta_indexed_s_idx ON %s (s)" % t),
                "meta_indexed_OddName_idx": ("COMPOSITES", {"target": '"Odd Name"'},
                                             'CREATE INDEX "meta_indexed_OddName_idx" ON %s ("Odd Name")' % t),
                "meta_vs": (
                    "CUSTOM",
                    {"target": "v", "class_name": "StorageAttachedIndex", "case_sensitive": "false"},
                    "CREATE CUSTOM INDEX meta_vs ON %s (v) USING 'StorageAttachedIndex' "
                    "WITH OPTIONS = {'case_sensitive': 'false'}" % t,
                ),
            },
        )
        self.assertEqual(set(ks.indexes), set(got))


if __name__ == "__main__":
    unittest.main()
