"""Seed 000: notes_by_user, the three primary key forms and time buckets."""

import datetime
import unittest
import uuid

from cassandra import InvalidRequest

import partita_env as env


def ts(minute, second=0):
    return datetime.datetime(2026, 10, 8, 9, minute, second)


class NotesByUserTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = env.session()
        cls.s.execute(
            """CREATE TABLE notes_by_user (
    user_id    uuid,        -- partition key
    created_at timestamp,   -- clustering key
    note_id    uuid,        -- clustering key
    content    text,
    PRIMARY KEY (user_id, created_at, note_id)
);"""
        )

    def test_rows_come_back_in_clustering_order(self):
        user, other = uuid.uuid4(), uuid.uuid4()
        n1 = uuid.UUID("00000000-0000-4000-8000-000000000001")
        n2 = uuid.UUID("00000000-0000-4000-8000-000000000002")
        insert = self.s.prepare(
            "INSERT INTO notes_by_user (user_id, created_at, note_id, content) VALUES (?, ?, ?, ?)"
        )
        # Written out of order; two notes share a created_at and sort by note_id.
        for created, note, content in [
            (ts(3), n1, "third"),
            (ts(1), n2, "first-b"),
            (ts(2), n1, "second"),
            (ts(1), n1, "first-a"),
        ]:
            self.s.execute(insert, (user, created, note, content))
        self.s.execute(insert, (other, ts(0), n1, "someone else"))

        rows = list(self.s.execute("SELECT created_at, note_id, content FROM notes_by_user WHERE user_id = %s", (user,)))
        self.assertEqual([r.content for r in rows], ["first-a", "first-b", "second", "third"])
        self.assertEqual([r.created_at for r in rows], [ts(1), ts(1), ts(2), ts(3)])

        # Overwriting the same full primary key updates the row, it adds none.
        self.s.execute(insert, (user, ts(2), n1, "second, edited"))
        rows = list(self.s.execute("SELECT content FROM notes_by_user WHERE user_id = %s", (user,)))
        self.assertEqual([r.content for r in rows], ["first-a", "first-b", "second, edited", "third"])

        rows = list(
            self.s.execute(
                "SELECT content FROM notes_by_user WHERE user_id = %s AND created_at > %s AND created_at <= %s",
                (user, ts(1), ts(3)),
            )
        )
        self.assertEqual([r.content for r in rows], ["second, edited", "third"])
        rows = list(
            self.s.execute(
                "SELECT content FROM notes_by_user WHERE user_id = %s ORDER BY created_at DESC, note_id DESC LIMIT 3",
                (user,),
            )
        )
        self.assertEqual([r.content for r in rows], ["third", "second, edited", "first-b"])


class KeyFormsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = env.session()
        cls.s.execute("CREATE TABLE key_a (a int, b int, c int, v text, PRIMARY KEY (a))")
        cls.s.execute("CREATE TABLE key_a_b_c (a int, b int, c int, v text, PRIMARY KEY (a, b, c))")
        cls.s.execute("CREATE TABLE key_ab_c (a int, b int, c int, v text, PRIMARY KEY ((a, b), c))")

    def test_single_column_key_holds_one_row(self):
        for b in range(3):
            self.s.execute("INSERT INTO key_a (a, b, c, v) VALUES (1, %s, 0, %s)", (b, "v%d" % b))
        rows = list(self.s.execute("SELECT a, b, v FROM key_a WHERE a = 1"))
        self.assertEqual([(r.a, r.b, r.v) for r in rows], [(1, 2, "v2")])
        meta = env.cluster().metadata.keyspaces[env.KEYSPACE].tables["key_a"]
        self.assertEqual([c.name for c in meta.partition_key], ["a"])
        self.assertEqual(meta.clustering_key, [])

    def test_partition_key_and_two_clustering_columns(self):
        for b, c in [(2, 1), (1, 2), (1, 1), (2, 0)]:
            self.s.execute("INSERT INTO key_a_b_c (a, b, c, v) VALUES (7, %s, %s, %s)", (b, c, "%d%d" % (b, c)))
        rows = list(self.s.execute("SELECT b, c FROM key_a_b_c WHERE a = 7"))
        self.assertEqual([(r.b, r.c) for r in rows], [(1, 1), (1, 2), (2, 0), (2, 1)])
        rows = list(self.s.execute("SELECT c FROM key_a_b_c WHERE a = 7 AND b = 2"))
        self.assertEqual([r.c for r in rows], [0, 1])
        meta = env.cluster().metadata.keyspaces[env.KEYSPACE].tables["key_a_b_c"]
        self.assertEqual([c.name for c in meta.partition_key], ["a"])
        self.assertEqual([c.name for c in meta.clustering_key], ["b", "c"])

    def test_composite_partition_key(self):
        for a, b, c in [(1, 1, 2), (1, 1, 1), (1, 2, 1)]:
            self.s.execute("INSERT INTO key_ab_c (a, b, c, v) VALUES (%s, %s, %s, 'x')", (a, b, c))
        rows = list(self.s.execute("SELECT c FROM key_ab_c WHERE a = 1 AND b = 1"))
        self.assertEqual([r.c for r in rows], [1, 2])
        # Half a composite key does not name a partition.
        with self.assertRaises(InvalidRequest):
            self.s.execute("SELECT c FROM key_ab_c WHERE a = 1")
        meta = env.cluster().metadata.keyspaces[env.KEYSPACE].tables["key_ab_c"]
        self.assertEqual([c.name for c in meta.partition_key], ["a", "b"])
        self.assertEqual([c.name for c in meta.clustering_key], ["c"])


class TimeBucketsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = env.session()
        cls.s.execute(
            """CREATE TABLE readings_by_device_day (
    device_id text,
    day text,
    timestamp timestamp,
    value double,
    PRIMARY KEY ((device_id, day), timestamp)
)"""
        )
        cls.s.execute(
            """CREATE TABLE notes_by_user_year (
    user_id uuid,
    year int,
    created_at timestamp,
    content text,
    PRIMARY KEY ((user_id, year), created_at)
)"""
        )

    def test_day_bucket(self):
        insert = self.s.prepare("INSERT INTO readings_by_device_day (device_id, day, timestamp, value) VALUES (?, ?, ?, ?)")
        for day in ("2026-10-07", "2026-10-08"):
            for hour in (23, 5, 12):
                d = datetime.date.fromisoformat(day)
                self.s.execute(insert, ("dev-1", day, datetime.datetime(d.year, d.month, d.day, hour), float(hour)))
        rows = list(
            self.s.execute("SELECT timestamp, value FROM readings_by_device_day WHERE device_id = 'dev-1' AND day = '2026-10-08'")
        )
        self.assertEqual([r.timestamp.hour for r in rows], [5, 12, 23])
        self.assertTrue(all(r.timestamp.day == 8 for r in rows))
        rows = list(
            self.s.execute(
                "SELECT value FROM readings_by_device_day WHERE device_id = 'dev-1' AND day = '2026-10-08' "
                "AND timestamp >= '2026-10-08 06:00:00+0000'"
            )
        )
        self.assertEqual([r.value for r in rows], [12.0, 23.0])

    def test_user_year_bucket(self):
        user = uuid.uuid4()
        insert = self.s.prepare("INSERT INTO notes_by_user_year (user_id, year, created_at, content) VALUES (?, ?, ?, ?)")
        for year in (2025, 2026):
            for month in (12, 1, 6):
                self.s.execute(insert, (user, year, datetime.datetime(year, month, 1), "%d-%02d" % (year, month)))
        select = self.s.prepare("SELECT content FROM notes_by_user_year WHERE user_id = ? AND year = ?")
        self.assertEqual([r.content for r in self.s.execute(select, (user, 2026))], ["2026-01", "2026-06", "2026-12"])
        self.assertEqual([r.content for r in self.s.execute(select, (user, 2025))], ["2025-01", "2025-06", "2025-12"])
        self.assertEqual(list(self.s.execute(select, (user, 2024))), [])


if __name__ == "__main__":
    unittest.main()
