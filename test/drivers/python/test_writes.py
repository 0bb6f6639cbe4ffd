"""UPDATE, collection set operations and DELETE of cells, rows, ranges and
partitions, read back through the driver."""

import unittest

import partita_env as env


class WritesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = env.session()
        cls.s.execute(
            "CREATE TABLE writes_probe (p int, c int, v text, n int, tags set<text>, attrs map<text, int>, "
            "PRIMARY KEY (p, c))"
        )

    def cs(self, p):
        return [r.c for r in self.s.execute("SELECT c FROM writes_probe WHERE p = %s", (p,))]

    def test_update_is_an_upsert(self):
        self.s.execute("UPDATE writes_probe SET v = 'new', n = 1 WHERE p = 1 AND c = 1")
        row = self.s.execute("SELECT v, n FROM writes_probe WHERE p = 1 AND c = 1").one()
        self.assertEqual((row.v, row.n), ("new", 1))
        self.s.execute("UPDATE writes_probe SET n = 2 WHERE p = 1 AND c = 1")
        row = self.s.execute("SELECT v, n FROM writes_probe WHERE p = 1 AND c = 1").one()
        self.assertEqual((row.v, row.n), ("new", 2))

    def test_collection_operations(self):
        self.s.execute("INSERT INTO writes_probe (p, c, tags, attrs) VALUES (2, 1, {'a', 'b'}, {'x': 1})")
        self.s.execute("UPDATE writes_probe SET tags = tags + {'c'}, attrs['y'] = 2 WHERE p = 2 AND c = 1")
        self.s.execute("UPDATE writes_probe SET tags = tags - {'a'} WHERE p = 2 AND c = 1")
        row = self.s.execute("SELECT tags, attrs FROM writes_probe WHERE p = 2 AND c = 1").one()
        self.assertEqual(set(row.tags), {"b", "c"})
        self.assertEqual(dict(row.attrs), {"x": 1, "y": 2})
        self.s.execute("DELETE attrs['x'] FROM writes_probe WHERE p = 2 AND c = 1")
        self.s.execute("UPDATE writes_probe SET tags = tags - {'b', 'c'} WHERE p = 2 AND c = 1")
        row = self.s.execute("SELECT tags, attrs FROM writes_probe WHERE p = 2 AND c = 1").one()
        self.assertIsNone(row.tags)  # an empty collection reads as null
        self.assertEqual(dict(row.attrs), {"y": 2})

    def test_delete_cell_row_range_partition(self):
        insert = self.s.prepare("INSERT INTO writes_probe (p, c, v) VALUES (?, ?, ?)")
        for p in (3, 4):
            for c in range(10):
                self.s.execute(insert, (p, c, "v%d" % c))
        self.s.execute("DELETE v FROM writes_probe WHERE p = 3 AND c = 0")
        row = self.s.execute("SELECT c, v FROM writes_probe WHERE p = 3 AND c = 0").one()
        self.assertEqual((row.c, row.v), (0, None))  # the INSERT's row marker keeps the row
        self.s.execute("DELETE FROM writes_probe WHERE p = 3 AND c = 1")
        self.assertEqual(self.cs(3), [0, 2, 3, 4, 5, 6, 7, 8, 9])
        self.s.execute("DELETE FROM writes_probe WHERE p = 3 AND c >= 4 AND c < 8")
        self.assertEqual(self.cs(3), [0, 2, 3, 8, 9])
        self.s.execute("DELETE FROM writes_probe WHERE p = 4")
        self.assertEqual(self.cs(4), [])
        # A write after the partition deletion is visible again.
        self.s.execute(insert, (4, 5, "back"))
        self.assertEqual(self.cs(4), [5])

    def test_using_timestamp_last_write_wins(self):
        self.s.execute("INSERT INTO writes_probe (p, c, v) VALUES (5, 1, 'newer') USING TIMESTAMP 2000")
        self.s.execute("INSERT INTO writes_probe (p, c, v) VALUES (5, 1, 'older') USING TIMESTAMP 1000")
        row = self.s.execute("SELECT v, writetime(v) FROM writes_probe WHERE p = 5 AND c = 1").one()
        self.assertEqual((row[0], row[1]), ("newer", 2000))


if __name__ == "__main__":
    unittest.main()
