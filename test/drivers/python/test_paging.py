"""Driver paging: 1,000 rows with fetch_size 7, each row seen exactly once."""

import unittest

from cassandra.concurrent import execute_concurrent_with_args
from cassandra.query import SimpleStatement

import partita_env as env

ROWS = 1000
FETCH = 7


class PagingTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = env.session()
        cls.s.execute("CREATE TABLE paging_one (p int, c int, v text, PRIMARY KEY (p, c))")
        cls.s.execute("CREATE TABLE paging_many (p int, c int, v text, PRIMARY KEY (p, c))")
        one = cls.s.prepare("INSERT INTO paging_one (p, c, v) VALUES (1, ?, ?)")
        many = cls.s.prepare("INSERT INTO paging_many (p, c, v) VALUES (?, ?, ?)")
        # Inserted in a shuffled order so that order on read is the server's.
        order = [(i * 389) % ROWS for i in range(ROWS)]
        for result in execute_concurrent_with_args(cls.s, one, [(c, "v%d" % c) for c in order], concurrency=32):
            assert result.success, result.result_or_exc
        args = [(c // 10, c % 10, "v%d" % c) for c in order]
        for result in execute_concurrent_with_args(cls.s, many, args, concurrency=32):
            assert result.success, result.result_or_exc

    def pages(self, statement, params=None):
        """Fetches page by page through paging_state, checking each page's size."""
        pages, state = [], None
        while True:
            rs = self.s.execute(statement, params, paging_state=state)
            page = list(rs.current_rows)
            self.assertLessEqual(len(page), FETCH)
            pages.append(page)
            state = rs.paging_state
            if not rs.has_more_pages:
                self.assertIsNone(state)
                return pages
            self.assertTrue(page, "an empty page that announces more pages")

    def test_single_partition_auto_paging(self):
        stmt = SimpleStatement("SELECT c, v FROM paging_one WHERE p = 1", fetch_size=FETCH)
        rows = list(self.s.execute(stmt))
        self.assertEqual([r.c for r in rows], list(range(ROWS)))
        self.assertEqual(rows[999].v, "v999")

    def test_single_partition_explicit_pages(self):
        stmt = SimpleStatement("SELECT c FROM paging_one WHERE p = 1", fetch_size=FETCH)
        pages = self.pages(stmt)
        self.assertGreaterEqual(len(pages), ROWS // FETCH)
        self.assertEqual([r.c for page in pages for r in page], list(range(ROWS)))

    def test_prepared_paging_descending(self):
        stmt = self.s.prepare("SELECT c FROM paging_one WHERE p = ? ORDER BY c DESC")
        stmt.fetch_size = FETCH
        pages = self.pages(stmt, (1,))
        self.assertEqual([r.c for page in pages for r in page], list(range(ROWS - 1, -1, -1)))

    def test_paging_with_limit(self):
        stmt = SimpleStatement("SELECT c FROM paging_one WHERE p = 1 AND c >= 100 LIMIT 50", fetch_size=FETCH)
        self.assertEqual([r.c for r in self.s.execute(stmt)], list(range(100, 150)))

    def test_full_scan_across_partitions(self):
        stmt = SimpleStatement("SELECT token(p), p, c FROM paging_many", fetch_size=FETCH)
        rows = list(self.s.execute(stmt))
        keys = [(r.p, r.c) for r in rows]
        self.assertEqual(len(keys), ROWS)
        self.assertEqual(len(set(keys)), ROWS, "a row was returned twice")
        self.assertEqual(set(keys), {(c // 10, c % 10) for c in range(ROWS)})
        tokens = [r[0] for r in rows]
        self.assertEqual(tokens, sorted(tokens), "a full scan returns partitions in token order")
        for p in range(ROWS // 10):
            cs = [c for (pp, c) in keys if pp == p]
            self.assertEqual(cs, list(range(10)))

    def test_count_over_pages(self):
        stmt = SimpleStatement("SELECT count(*) FROM paging_many", fetch_size=FETCH)
        self.assertEqual(self.s.execute(stmt).one()[0], ROWS)


if __name__ == "__main__":
    unittest.main()
