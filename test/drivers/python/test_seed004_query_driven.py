"""Seed 004: query-driven tables, the §7 accept/reject rules, buckets, batches,
tuple cursors and IN on partition key parts."""

import datetime
import heapq
import unittest
import uuid
import zlib
from concurrent.futures import ThreadPoolExecutor

from cassandra import InvalidRequest
from cassandra.query import BatchStatement, BatchType, SimpleStatement
from cassandra.util import Date, uuid_from_time

import partita_env as env

USER_EVENTS_BY_DAY = """CREATE TABLE IF NOT EXISTS user_events_by_day (
    user_id text,
    bucket_date date,
    event_time timestamp,
    event_id timeuuid,
    event_type text,
    payload text,
    PRIMARY KEY ((user_id, bucket_date), event_time, event_id)
) WITH CLUSTERING ORDER BY (
    event_time DESC,
    event_id ASC
);"""

DEVICE_EVENTS_BY_DAY = """CREATE TABLE device_events_by_day (
    device_id text,
    bucket_date date,
    event_time timestamp,
    event_id timeuuid,
    event_type text,
    payload text,
    PRIMARY KEY ((device_id, bucket_date), event_time, event_id)
) WITH CLUSTERING ORDER BY (
    event_time DESC,
    event_id ASC
);"""

USER_EVENTS_BY_HOUR = """CREATE TABLE user_events_by_hour (
    user_id text,
    bucket_hour timestamp,
    event_time timestamp,
    event_id timeuuid,
    event_type text,
    payload text,
    PRIMARY KEY ((user_id, bucket_hour), event_time, event_id)
) WITH CLUSTERING ORDER BY (
    event_time DESC,
    event_id ASC
);"""

ROOM_EVENTS = """CREATE TABLE room_events (
    room_id text,
    bucket int,
    event_time timestamp,
    event_id timeuuid,
    payload text,
    PRIMARY KEY ((room_id, bucket), event_time, event_id)
);"""

LOGIN_EVENTS_BY_DAY = """CREATE TABLE login_events_by_day (
    bucket_date date,
    event_time timestamp,
    event_id timeuuid,
    user_id text,
    payload text,
    PRIMARY KEY ((bucket_date), event_time, event_id)
);"""

ORDERS_BY_CUSTOMER = """CREATE TABLE orders_by_customer (
    customer_id text,
    order_id uuid,
    status text,
    created_at timestamp,
    PRIMARY KEY ((customer_id), order_id)
);"""

PAID_ORDERS_BY_CUSTOMER = """CREATE TABLE paid_orders_by_customer (
    customer_id text,
    created_at timestamp,
    order_id uuid,
    PRIMARY KEY ((customer_id), created_at, order_id)
);"""

LITERAL_EVENT_ID = uuid.UUID("8d7c3f20-0b7b-11f0-8f1e-000000000001")

FILTERING_MESSAGE = (
    "Cannot execute this query as it might involve data filtering and thus may have unpredictable "
    "performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING"
)


def at(hour, minute=0, second=0, day=8):
    return datetime.datetime(2025, 3, day, hour, minute, second)


def timeuuid(t, seq):
    """A deterministic timeuuid for time t (node and clock sequence fixed)."""
    return uuid_from_time(t, node=0x0000000000A1, clock_seq=seq)


def newest_first(t):
    """A sort key that orders datetimes newest first."""
    return datetime.datetime.max - t


def clustering_key(row):
    """(event_time DESC, event_id ASC) as a sort key for (event_time, event_id)
    pairs; a timeuuid orders by its time, then by its bytes."""
    return (newest_first(row[0]), row[1].time, row[1].bytes)


class SeedTablesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = env.session()
        for ddl in (
            USER_EVENTS_BY_DAY,
            DEVICE_EVENTS_BY_DAY,
            USER_EVENTS_BY_HOUR,
            ROOM_EVENTS,
            LOGIN_EVENTS_BY_DAY,
            ORDERS_BY_CUSTOMER,
            PAID_ORDERS_BY_CUSTOMER,
        ):
            cls.s.execute(ddl)
        cls.s.execute(USER_EVENTS_BY_DAY)  # IF NOT EXISTS: a no-op the second time

    def test_inserts_with_now_and_literal_timeuuid(self):
        self.s.execute("""INSERT INTO user_events_by_day (
    user_id, bucket_date, event_time, event_id,
    event_type, payload
) VALUES (
    'u-1001', '2025-03-08', '2025-03-08 10:15:00+0000',
    now(), 'login', '{"ip":"203.0.113.10"}'
);""")
        self.s.execute("""INSERT INTO device_events_by_day (
    device_id, bucket_date, event_time, event_id,
    event_type, payload
) VALUES (
    'device-9', '2025-03-08', '2025-03-08 10:15:00+0000',
    now(), 'login', '{"ip":"203.0.113.10"}'
);""")
        self.s.execute("""INSERT INTO user_events_by_day (
    user_id, bucket_date, event_time, event_id,
    event_type, payload
) VALUES (
    'u-1001', '2025-03-08', '2025-03-08 10:15:00+0000',
    8d7c3f20-0b7b-11f0-8f1e-000000000001,
    'login', '{"ip":"203.0.113.10"}'
);""")
        rows = list(
            self.s.execute(
                "SELECT event_time, event_id, event_type, payload FROM user_events_by_day "
                "WHERE user_id = 'u-1001' AND bucket_date = '2025-03-08' AND event_time = '2025-03-08 10:15:00+0000'"
            )
        )
        self.assertEqual(len(rows), 2)
        ids = [r.event_id for r in rows]
        self.assertIn(LITERAL_EVENT_ID, ids)
        generated = [i for i in ids if i != LITERAL_EVENT_ID][0]
        self.assertEqual(generated.version, 1)
        # now() is a timeuuid of the current time; the literal is from 2025.
        self.assertEqual(ids, [LITERAL_EVENT_ID, generated])
        self.assertTrue(all(r.payload == '{"ip":"203.0.113.10"}' for r in rows))
        device = self.s.execute(
            "SELECT event_id FROM device_events_by_day WHERE device_id = 'device-9' AND bucket_date = '2025-03-08'"
        ).one()
        self.assertNotEqual(device.event_id, generated)  # two now() calls, two timeuuids

    def _fill_user_day(self, user):
        insert = self.s.prepare(
            "INSERT INTO user_events_by_day (user_id, bucket_date, event_time, event_id, event_type, payload) "
            "VALUES (?, ?, ?, ?, ?, ?)"
        )
        rows = []
        for i in range(30):
            t = at(i % 24, (7 * i) % 60)
            for seq in (2, 1) if i % 5 == 0 else (1,):  # some shared event_times
                eid = timeuuid(t, seq)
                kind = "login" if i % 3 == 0 else "click"
                self.s.execute(insert, (user, "2025-03-08", t, eid, kind, "p%d" % i))
                rows.append((t, eid, kind))
        rows.sort(key=clustering_key)
        return rows

    def test_7_1_and_7_2_ranges_and_latest(self):
        want = self._fill_user_day("u-71")
        rows = list(
            self.s.execute("""SELECT event_time, event_id, event_type
FROM user_events_by_day
WHERE user_id = 'u-71'
  AND bucket_date = '2025-03-08'
  AND event_time >= '2025-03-08 00:00:00+0000'
  AND event_time <  '2025-03-09 00:00:00+0000'
LIMIT 100;""")
        )
        self.assertEqual([(r.event_time, r.event_id, r.event_type) for r in rows], want)

        rows = list(
            self.s.execute("""SELECT event_time, event_id, event_type, payload
FROM user_events_by_day
WHERE user_id = 'u-71'
  AND bucket_date = '2025-03-08'
LIMIT 20;""")
        )
        self.assertEqual([(r.event_time, r.event_id) for r in rows], [w[:2] for w in want[:20]])

        rows = list(
            self.s.execute(
                "SELECT event_time FROM user_events_by_day WHERE user_id = 'u-71' AND bucket_date = '2025-03-08' "
                "AND event_time >= '2025-03-08 10:00:00+0000' AND event_time < '2025-03-08 12:00:00+0000'"
            )
        )
        self.assertEqual(
            [r.event_time for r in rows], [w[0] for w in want if at(10) <= w[0] < at(12)]
        )

    def test_7_3_skipping_a_clustering_column(self):
        self._fill_user_day("u-73")
        target = timeuuid(at(5, 35), 1)  # i = 5: 05:35
        query = """SELECT *
FROM user_events_by_day
WHERE user_id = 'u-73'
  AND bucket_date = '2025-03-08'
  AND event_id = %s""" % target
        with self.assertRaises(InvalidRequest) as cm:
            self.s.execute(query + ";")
        # StatementRestrictions.processClusteringColumnsRestrictions
        self.assertIn(
            'PRIMARY KEY column "event_id" cannot be restricted as preceding column "event_time" is not restricted',
            str(cm.exception),
        )
        rows = list(self.s.execute(query + "\nALLOW FILTERING;"))
        self.assertEqual([(r.event_time, r.event_id) for r in rows], [(at(5, 35), target)])

    def test_7_4_no_partition_key(self):
        self.s.execute(
            "INSERT INTO user_events_by_day (user_id, bucket_date, event_time, event_id, event_type, payload) "
            "VALUES ('u-74', '2025-03-07', '2025-03-07 08:00:00+0000', %s, 'login', 'x')" % timeuuid(at(8, day=7), 9)
        )
        with self.assertRaises(InvalidRequest) as cm:
            self.s.execute("""SELECT *
FROM user_events_by_day
WHERE event_type = 'login';""")
        self.assertIn(FILTERING_MESSAGE, str(cm.exception))
        rows = list(self.s.execute("SELECT user_id, event_type FROM user_events_by_day WHERE event_type = 'login' ALLOW FILTERING"))
        self.assertTrue(rows)
        self.assertTrue(all(r.event_type == "login" for r in rows))
        self.assertIn("u-74", {r.user_id for r in rows})

    def test_login_events_by_day(self):
        insert = self.s.prepare(
            "INSERT INTO login_events_by_day (bucket_date, event_time, event_id, user_id, payload) VALUES (?, ?, ?, ?, ?)"
        )
        times = [at(h) for h in (9, 1, 17, 4)]
        for i, t in enumerate(times):
            self.s.execute(insert, ("2025-03-08", t, timeuuid(t, 1), "u-%d" % i, "{}"))
        self.s.execute(insert, ("2025-03-09", at(0, day=9), timeuuid(at(0, day=9), 1), "u-x", "{}"))
        rows = list(self.s.execute("SELECT event_time, user_id FROM login_events_by_day WHERE bucket_date = '2025-03-08'"))
        self.assertEqual([r.event_time for r in rows], sorted(times))
        self.assertEqual([r.user_id for r in rows], ["u-1", "u-3", "u-0", "u-2"])

    def test_hour_buckets_fan_out_and_merge(self):
        insert = self.s.prepare(
            "INSERT INTO user_events_by_hour (user_id, bucket_hour, event_time, event_id, event_type, payload) "
            "VALUES (?, ?, ?, ?, ?, ?)"
        )
        events = []
        for minute in range(0, 240, 13):  # 09:00 .. 12:54
            t = at(9) + datetime.timedelta(minutes=minute, seconds=17)
            bucket = t.replace(minute=0, second=0)
            eid = timeuuid(t, 1)
            self.s.execute(insert, ("u-1001", bucket, t, eid, "view", "m%d" % minute))
            events.append((t, eid))
        one_hour = list(
            self.s.execute("""SELECT *
FROM user_events_by_hour
WHERE user_id = 'u-1001'
  AND bucket_hour = '2025-03-08 10:00:00+0000'
LIMIT 100;""")
        )
        self.assertEqual([r.event_time for r in one_hour], sorted((t for t, _ in events if t.hour == 10), reverse=True))
        self.assertTrue(all(r.bucket_hour == at(10) for r in one_hour))

        # Three hours: one query per bucket, merged on (event_time, event_id).
        select = self.s.prepare("SELECT event_time, event_id FROM user_events_by_hour WHERE user_id = ? AND bucket_hour = ?")
        parts = [list(self.s.execute(select, ("u-1001", at(h)))) for h in (10, 11, 12)]
        merged = list(heapq.merge(*parts, key=lambda r: clustering_key((r.event_time, r.event_id))))
        want = sorted(((t, e) for t, e in events if 10 <= t.hour <= 12), key=clustering_key)
        self.assertEqual([(r.event_time, r.event_id) for r in merged], want)

    def test_room_events_sixteen_buckets(self):
        insert = self.s.prepare(
            "INSERT INTO room_events (room_id, bucket, event_time, event_id, payload) VALUES (?, ?, ?, ?, ?)"
        )
        written = []
        for i in range(100):
            t = at(20) + datetime.timedelta(seconds=i * 7)
            eid = timeuuid(t, i)
            bucket = zlib.crc32(eid.bytes) % 16  # bucket = hash(event_id) % 16
            self.s.execute(insert, ("room-9", bucket, t, eid, "msg %d" % i))
            written.append((t, eid, bucket))
        select = self.s.prepare("SELECT bucket, event_time, event_id FROM room_events WHERE room_id = ? AND bucket = ?")
        with ThreadPoolExecutor(max_workers=8) as pool:
            parts = list(pool.map(lambda b: list(self.s.execute(select, ("room-9", b))), range(16)))
        for b, rows in enumerate(parts):
            self.assertEqual([r.event_time for r in rows], sorted(t for t, _, wb in written if wb == b))
            self.assertTrue(all(r.bucket == b for r in rows))
        merged = list(heapq.merge(*parts, key=lambda r: r.event_time))
        self.assertEqual([(r.event_time, r.event_id) for r in merged], [(t, e) for t, e, _ in written])
        self.assertEqual(len({b for _, _, b in written}), 16)

    def test_orders_by_customer_and_paid_orders(self):
        orders = []
        for i in range(12):
            oid = uuid.uuid4()
            status = "PAID" if i % 3 == 0 else "PENDING"
            created = at(8) + datetime.timedelta(minutes=i)
            orders.append((oid, status, created))
            self.s.execute(
                "INSERT INTO orders_by_customer (customer_id, order_id, status, created_at) VALUES (%s, %s, %s, %s)",
                ("c-1", oid, status, created),
            )
            if status == "PAID":
                self.s.execute(
                    "INSERT INTO paid_orders_by_customer (customer_id, created_at, order_id) VALUES (%s, %s, %s)",
                    ("c-1", created, oid),
                )
        rows = list(self.s.execute("SELECT order_id FROM orders_by_customer WHERE customer_id = 'c-1'"))
        self.assertEqual(len(rows), 12)
        # A regular column is no index: filtering it needs ALLOW FILTERING.
        with self.assertRaises(InvalidRequest) as cm:
            self.s.execute("SELECT order_id FROM orders_by_customer WHERE customer_id = 'c-1' AND status = 'PAID'")
        self.assertIn(FILTERING_MESSAGE, str(cm.exception))
        rows = list(
            self.s.execute("SELECT order_id, status FROM orders_by_customer WHERE customer_id = 'c-1' AND status = 'PAID' ALLOW FILTERING")
        )
        self.assertEqual(sorted(r.order_id for r in rows), sorted(o for o, s, _ in orders if s == "PAID"))
        rows = list(self.s.execute("SELECT created_at, order_id FROM paid_orders_by_customer WHERE customer_id = 'c-1'"))
        self.assertEqual([(r.created_at, r.order_id) for r in rows], [(c, o) for o, s, c in orders if s == "PAID"])

    def test_logged_batch_across_two_query_tables(self):
        event_id = timeuuid(at(13, 30), 42)
        batch = BatchStatement(batch_type=BatchType.LOGGED)
        batch.add(
            self.s.prepare(
                "INSERT INTO user_events_by_day (user_id, bucket_date, event_time, event_id, event_type, payload) VALUES (?, ?, ?, ?, ?, ?)"
            ),
            ("u-batch", Date(datetime.date(2025, 3, 8)), at(13, 30), event_id, "purchase", "{}"),
        )
        batch.add(
            "INSERT INTO device_events_by_day (device_id, bucket_date, event_time, event_id, event_type, payload) "
            "VALUES (%s, %s, %s, %s, %s, %s)",
            ("device-batch", "2025-03-08", at(13, 30), event_id, "purchase", "{}"),
        )
        self.s.execute(batch)
        u = self.s.execute("SELECT event_id, event_type FROM user_events_by_day WHERE user_id = 'u-batch' AND bucket_date = '2025-03-08'").one()
        d = self.s.execute("SELECT event_id, event_type FROM device_events_by_day WHERE device_id = 'device-batch' AND bucket_date = '2025-03-08'").one()
        self.assertEqual((u.event_id, u.event_type), (event_id, "purchase"))
        self.assertEqual((d.event_id, d.event_type), (event_id, "purchase"))

        # The same as CQL text, one statement.
        other = timeuuid(at(13, 31), 43)
        self.s.execute("""BEGIN BATCH
  INSERT INTO user_events_by_day (user_id, bucket_date, event_time, event_id, event_type, payload)
    VALUES ('u-batch', '2025-03-08', '2025-03-08 13:31:00+0000', %(id)s, 'refund', '{}');
  INSERT INTO device_events_by_day (device_id, bucket_date, event_time, event_id, event_type, payload)
    VALUES ('device-batch', '2025-03-08', '2025-03-08 13:31:00+0000', %(id)s, 'refund', '{}');
APPLY BATCH;""" % {"id": other})
        for table, col, key in (("user_events_by_day", "user_id", "u-batch"), ("device_events_by_day", "device_id", "device-batch")):
            rows = list(self.s.execute("SELECT event_id FROM %s WHERE %s = '%s' AND bucket_date = '2025-03-08'" % (table, col, key)))
            self.assertEqual([r.event_id for r in rows], [other, event_id])

    def test_prepared_batch_text(self):
        # Cassandra prepares a BEGIN BATCH text since 1.2 (CASSANDRA-4202).
        event_id = timeuuid(at(13, 32), 44)
        stmt = self.s.prepare("""BEGIN BATCH
  INSERT INTO user_events_by_day (user_id, bucket_date, event_time, event_id, event_type, payload)
    VALUES ('u-batch-prepared', '2025-03-08', '2025-03-08 13:32:00+0000', ?, 'refund', '{}');
  INSERT INTO device_events_by_day (device_id, bucket_date, event_time, event_id, event_type, payload)
    VALUES ('device-batch-prepared', '2025-03-08', '2025-03-08 13:32:00+0000', ?, 'refund', '{}');
APPLY BATCH;""")
        self.s.execute(stmt, (event_id, event_id))
        row = self.s.execute(
            "SELECT event_id FROM device_events_by_day WHERE device_id = 'device-batch-prepared' AND bucket_date = '2025-03-08'"
        ).one()
        self.assertEqual(row.event_id, event_id)

    def test_tuple_cursor_paging(self):
        insert = self.s.prepare(
            "INSERT INTO user_events_by_day (user_id, bucket_date, event_time, event_id, event_type, payload) VALUES (?, ?, ?, ?, ?, ?)"
        )
        want = []
        for i in range(53):
            t = at(0) + datetime.timedelta(minutes=17 * i)
            eid = timeuuid(t, i)
            self.s.execute(insert, ("u-cursor", "2025-03-08", t, eid, "e", "p%d" % i))
            want.append((t, eid))
        want.sort(key=clustering_key)
        page_stmt = self.s.prepare("""SELECT event_time, event_id, event_type, payload
FROM user_events_by_day
WHERE user_id = 'u-cursor'
  AND bucket_date = '2025-03-08'
  AND (event_time, event_id) < (?, ?)
LIMIT 10;""")
        first = self.s.prepare(
            "SELECT event_time, event_id FROM user_events_by_day WHERE user_id = 'u-cursor' AND bucket_date = '2025-03-08' LIMIT 10"
        )
        seen = []
        page = list(self.s.execute(first))
        while page:
            self.assertLessEqual(len(page), 10)
            seen.extend((r.event_time, r.event_id) for r in page)
            last = page[-1]
            page = list(self.s.execute(page_stmt, (last.event_time, last.event_id)))
        self.assertEqual(seen, want)

    def test_tuple_relation_on_mixed_clustering_order(self):
        # A tuple relation compares values, not clustering positions: with
        # event_time DESC, event_id ASC, rows that share the cursor's time and
        # have a smaller id match '<' although they sort before the cursor.
        # (SelectMultiColumnRelationTest.testMixedOrderColumns1 in Cassandra.)
        t = at(6)
        ids = [timeuuid(t, seq) for seq in (1, 2, 3)]
        for eid in ids:
            self.s.execute(
                "INSERT INTO user_events_by_day (user_id, bucket_date, event_time, event_id, event_type) VALUES ('u-tuple', '2025-03-08', %s, %s, 'x')",
                (t, eid),
            )
        earlier = timeuuid(at(5), 1)
        self.s.execute(
            "INSERT INTO user_events_by_day (user_id, bucket_date, event_time, event_id, event_type) VALUES ('u-tuple', '2025-03-08', %s, %s, 'x')",
            (at(5), earlier),
        )
        rows = list(
            self.s.execute(
                "SELECT event_time, event_id FROM user_events_by_day WHERE user_id = 'u-tuple' AND bucket_date = '2025-03-08' "
                "AND (event_time, event_id) < (%s, %s)",
                (t, ids[2]),
            )
        )
        self.assertEqual([(r.event_time, r.event_id) for r in rows], [(t, ids[0]), (t, ids[1]), (at(5), earlier)])

    def test_in_on_partition_key_parts(self):
        insert = self.s.prepare(
            "INSERT INTO user_events_by_day (user_id, bucket_date, event_time, event_id, event_type, payload) VALUES (?, ?, ?, ?, ?, ?)"
        )
        want = {}
        for day in (7, 8, 9, 10):
            for hour in (3, 15, 9):
                t = at(hour, day=day)
                eid = timeuuid(t, day)
                self.s.execute(insert, ("u-in", datetime.date(2025, 3, day), t, eid, "e", ""))
                want.setdefault(day, []).append((t, eid))
        rows = list(
            self.s.execute(
                "SELECT bucket_date, event_time, event_id FROM user_events_by_day "
                "WHERE user_id = 'u-in' AND bucket_date IN ('2025-03-09', '2025-03-07', '2025-03-10')"
            )
        )
        by_day = {}
        for r in rows:
            by_day.setdefault(r.bucket_date.date().day, []).append((r.event_time, r.event_id))
        # Partitions may come in any order; within each, the clustering order holds.
        self.assertEqual(sorted(by_day), [7, 9, 10])
        for day, got in by_day.items():
            self.assertEqual(got, sorted(want[day], key=clustering_key))

        stmt = self.s.prepare(
            "SELECT event_time FROM user_events_by_day WHERE user_id = ? AND bucket_date IN (?, ?)"
        )
        rows = list(self.s.execute(stmt, ("u-in", datetime.date(2025, 3, 8), datetime.date(2025, 3, 8))))
        self.assertEqual(len(rows), 3)  # a repeated IN value names one partition

        # ORDER BY across the partitions of an IN sorts after the read, which
        # Cassandra refuses to do while paging (SelectStatement, CASSANDRA-6722).
        query = (
            "SELECT bucket_date, event_time FROM user_events_by_day "
            "WHERE user_id = 'u-in' AND bucket_date IN ('2025-03-09', '2025-03-07') ORDER BY event_time ASC"
        )
        with self.assertRaises(InvalidRequest) as cm:
            self.s.execute(query)
        self.assertIn("Cannot page queries with both ORDER BY and a IN restriction on the partition key", str(cm.exception))
        rows = list(self.s.execute(SimpleStatement(query, fetch_size=None)))
        self.assertEqual([r.event_time for r in rows], sorted(t for d in (7, 9) for t, _ in want[d]))


if __name__ == "__main__":
    unittest.main()
