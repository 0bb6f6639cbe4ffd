"""Driver paging: 1,000 rows with fetch_size 7, each row seen exactly once;
and automatic paging over a matrix of fetch sizes, table sizes and partition
layouts, each row seen exactly once and in the order Cassandra returns."""

import os
import struct
import unittest

from cassandra.concurrent import execute_concurrent, execute_concurrent_with_args
from cassandra.murmur3 import murmur3
from cassandra.query import BatchStatement, BatchType, SimpleStatement

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


# The matrix: every fetch size over every table size, with the rows in one
# partition and spread over min(MATRIX_PARTITIONS, rows) partitions.
MATRIX_FETCH = (1, 7, 5000)
# PARTITA_PAGING_MATRIX_ROWS (comma-separated) replaces the table sizes: a
# gateway over a Cassandra cluster reads every page from the cluster, and
# 10,000 rows at fetch size 1 are 30,000 round trips each way.
MATRIX_ROWS = tuple(int(n) for n in os.environ.get("PARTITA_PAGING_MATRIX_ROWS", "0,1,999,10000").split(","))
MATRIX_PARTITIONS = 100
# Rows per unlogged batch when loading; each batch stays in one partition.
LOAD_BATCH = 100


def matrix_layout(rows, spread):
    """The (p, c) keys of a matrix table: row i goes to partition i % n and
    clustering i // n, with n = 1 or min(MATRIX_PARTITIONS, rows)."""
    n = max(1, min(MATRIX_PARTITIONS, rows)) if spread else 1
    return [(i % n, i // n) for i in range(rows)]


def token_of_int(p):
    """Murmur3 token of an int partition key (its 4 big-endian bytes)."""
    return murmur3(struct.pack(">i", p))


class PagingMatrixTest(unittest.TestCase):
    """Automatic paging: fetch sizes 1, 7 and 5000 over tables of 0, 1, 999
    and 10,000 rows, in one partition and over up to 100 partitions. A
    single-partition read returns clustering order; a full scan returns
    partitions in token order and each partition's rows in clustering order
    (Cassandra's PartitionRangeReadCommand over Murmur3Partitioner)."""

    @classmethod
    def setUpClass(cls):
        cls.s = env.session()
        for rows in MATRIX_ROWS:
            for spread in (False, True):
                table = cls.table(rows, spread)
                cls.s.execute("CREATE TABLE %s (p int, c int, v text, PRIMARY KEY (p, c))" % table)
                cls.load(table, matrix_layout(rows, spread))

    @staticmethod
    def table(rows, spread):
        return "paging_m%d_%s" % (rows, "spread" if spread else "one")

    @classmethod
    def load(cls, table, keys):
        """Writes keys through prepared unlogged batches of one partition
        each, LOAD_BATCH rows at most, run concurrently; in reverse
        clustering order, so that the order on read is the server's."""
        insert = cls.s.prepare("INSERT INTO %s (p, c, v) VALUES (?, ?, ?)" % table)
        by_partition = {}
        for p, c in reversed(keys):
            by_partition.setdefault(p, []).append(c)
        batches = []
        for p, cs in by_partition.items():
            for i in range(0, len(cs), LOAD_BATCH):
                b = BatchStatement(batch_type=BatchType.UNLOGGED)
                for c in cs[i : i + LOAD_BATCH]:
                    b.add(insert, (p, c, "v%d-%d" % (p, c)))
                batches.append((b, None))
        for result in execute_concurrent(cls.s, batches, concurrency=16, raise_on_first_error=True):
            assert result.success, result.result_or_exc

    def scan(self, query, fetch):
        """Reads every row of query through the driver's automatic paging,
        page by page, checking each page's size; returns rows and pages."""
        rs = self.s.execute(SimpleStatement(query, fetch_size=fetch))
        rows, pages = [], 0
        while True:
            page = list(rs.current_rows)
            pages += 1
            self.assertLessEqual(len(page), fetch, "a page larger than the fetch size")
            rows.extend(page)
            if not rs.has_more_pages:
                return rows, pages
            # Only the last page may be short: Cassandra fills each page.
            self.assertEqual(len(page), fetch, "a short page before the last (after %d rows)" % len(rows))
            rs.fetch_next_page()

    def check_pages(self, rows, fetch, pages):
        # Cassandra may end with one empty page when the rows fill the last
        # page exactly; never more.
        full = max(1, -(-rows // fetch))
        self.assertIn(pages, (full, full + 1), "%d pages for %d rows at fetch size %d" % (pages, rows, fetch))

    def test_single_partition_clustering_order(self):
        for rows in MATRIX_ROWS:
            for fetch in MATRIX_FETCH:
                with self.subTest(rows=rows, fetch=fetch):
                    got, pages = self.scan("SELECT c, v FROM %s WHERE p = 0" % self.table(rows, False), fetch)
                    self.assertEqual([r.c for r in got], list(range(rows)))
                    self.assertEqual([r.v for r in got], ["v0-%d" % c for c in range(rows)])
                    self.check_pages(rows, fetch, pages)

    def test_full_scan_token_then_clustering_order(self):
        for rows in MATRIX_ROWS:
            for spread in (False, True):
                # Token order, then clustering order, from the driver's own
                # Murmur3 of each key.
                want = sorted(matrix_layout(rows, spread), key=lambda k: (token_of_int(k[0]), k[1]))
                for fetch in MATRIX_FETCH:
                    with self.subTest(rows=rows, spread=spread, fetch=fetch):
                        got, pages = self.scan("SELECT token(p), p, c, v FROM %s" % self.table(rows, spread), fetch)
                        keys = [(r.p, r.c) for r in got]
                        self.assertEqual(len(set(keys)), len(keys), "a row was returned twice")
                        self.assertEqual(set(keys), set(want), "rows missing or extra")
                        tokens = [r[0] for r in got]
                        self.assertTrue(
                            all(a <= b for a, b in zip(tokens, tokens[1:])), "tokens decrease along the scan"
                        )
                        self.assertEqual([r[0] for r in got], [token_of_int(p) for p, _ in keys])
                        self.assertEqual(keys, want, "not in token, then clustering, order")
                        self.assertEqual([r.v for r in got], ["v%d-%d" % k for k in keys])
                        self.check_pages(rows, fetch, pages)


if __name__ == "__main__":
    unittest.main()
