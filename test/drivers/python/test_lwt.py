"""Lightweight transactions: seed 004's order_state example (§5.3), read back
through the driver's was_applied and the columns of the current row that a
failed condition returns; serial consistency set on the statement.

Cassandra's result of a conditional write is one row: [applied], and when
not applied the current values (ModificationStatement.buildCasResultSet):
every column for IF NOT EXISTS, the conditions' columns for IF col = v, and
[applied] alone when no row exists to show."""

import unittest

from cassandra import ConsistencyLevel
from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile
from cassandra.query import SimpleStatement

import partita_env as env

# The seed gives order_state's columns and their values; its key is
# order_id, the only column the WHERE clause names.
ORDER_STATE = """CREATE TABLE order_state (
    order_id text PRIMARY KEY,
    version int,
    state text
)"""

INSERT_IF_NOT_EXISTS = """INSERT INTO order_state (
    order_id, version, state
) VALUES (
    'order-1', 3, 'PAID'
) IF NOT EXISTS;"""

UPDATE_IF_VERSION_3 = """UPDATE order_state
SET state = 'SHIPPED', version = 4
WHERE order_id = 'order-1'
IF version = 3;"""


class OrderStateTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = env.session()
        cls.s.execute(ORDER_STATE)

    def row(self, order_id):
        return self.s.execute("SELECT order_id, version, state FROM order_state WHERE order_id = %s", (order_id,)).one()

    def test_seed_version_check(self):
        # The first INSERT IF NOT EXISTS applies and returns [applied] alone.
        rs = self.s.execute(INSERT_IF_NOT_EXISTS)
        self.assertTrue(rs.was_applied)
        self.assertEqual(rs.column_names, ["[applied]"])
        self.assertEqual(tuple(self.row("order-1")), ("order-1", 3, "PAID"))

        # Again: not applied, with the row that exists, every column of it.
        rs = self.s.execute(INSERT_IF_NOT_EXISTS)
        self.assertFalse(rs.was_applied)
        self.assertEqual(rs.column_names, ["[applied]", "order_id", "state", "version"])
        current = rs.one()
        self.assertEqual((current.order_id, current.state, current.version), ("order-1", "PAID", 3))
        self.assertEqual(tuple(self.row("order-1")), ("order-1", 3, "PAID"))

        # "IF version = 3" holds: the state machine moves to SHIPPED, version 4.
        rs = self.s.execute(UPDATE_IF_VERSION_3)
        self.assertTrue(rs.was_applied)
        self.assertEqual(rs.column_names, ["[applied]"])
        self.assertEqual(tuple(self.row("order-1")), ("order-1", 4, "SHIPPED"))

        # The same update again: the version is no longer 3, so it does not
        # apply, and the result says why: the current version, 4. The seed:
        # the application must check this result, not the request's success.
        rs = self.s.execute(UPDATE_IF_VERSION_3)
        self.assertFalse(rs.was_applied)
        self.assertEqual(rs.column_names, ["[applied]", "version"])
        self.assertEqual(rs.one().version, 4)
        self.assertEqual(tuple(self.row("order-1")), ("order-1", 4, "SHIPPED"))

    def test_prepared_version_check(self):
        insert = self.s.prepare(
            "INSERT INTO order_state (order_id, version, state) VALUES (?, ?, ?) IF NOT EXISTS"
        )
        update = self.s.prepare("UPDATE order_state SET state = ?, version = ? WHERE order_id = ? IF version = ?")
        self.assertTrue(self.s.execute(insert, ("order-2", 3, "PAID")).was_applied)
        rs = self.s.execute(insert, ("order-2", 9, "LOST"))
        self.assertFalse(rs.was_applied)
        self.assertEqual((rs.one().state, rs.one().version), ("PAID", 3))
        self.assertTrue(self.s.execute(update, ("SHIPPED", 4, "order-2", 3)).was_applied)
        rs = self.s.execute(update, ("SHIPPED", 4, "order-2", 3))
        self.assertFalse(rs.was_applied)
        self.assertEqual(rs.one().version, 4)
        self.assertEqual(tuple(self.row("order-2")), ("order-2", 4, "SHIPPED"))

    def test_if_exists(self):
        rs = self.s.execute("UPDATE order_state SET state = 'X' WHERE order_id = 'order-none' IF EXISTS")
        self.assertFalse(rs.was_applied)
        self.assertEqual(rs.column_names, ["[applied]"])
        self.assertIsNone(self.row("order-none"))
        self.s.execute("INSERT INTO order_state (order_id, version, state) VALUES ('order-3', 1, 'NEW')")
        self.assertTrue(
            self.s.execute("UPDATE order_state SET state = 'PAID' WHERE order_id = 'order-3' IF EXISTS").was_applied
        )
        self.assertEqual(self.row("order-3").state, "PAID")
        self.assertTrue(self.s.execute("DELETE FROM order_state WHERE order_id = 'order-3' IF EXISTS").was_applied)
        self.assertIsNone(self.row("order-3"))
        self.assertFalse(self.s.execute("DELETE FROM order_state WHERE order_id = 'order-3' IF EXISTS").was_applied)

    def test_condition_on_missing_row(self):
        # ModificationStatement.buildCasResultSet (src/java/org/apache/
        # cassandra/cql3/statements/ModificationStatement.java) merges the
        # current row into the result only when the read found one (merge
        # returns [applied] alone for an empty right side).
        rs = self.s.execute("UPDATE order_state SET state = 'X' WHERE order_id = 'order-missing' IF version = 1")
        self.assertFalse(rs.was_applied)
        self.assertEqual(rs.column_names, ["[applied]"])
        self.assertIsNone(self.row("order-missing"))

    def test_serial_consistency(self):
        self.s.execute("INSERT INTO order_state (order_id, version, state) VALUES ('order-4', 0, 'NEW')")
        update = self.s.prepare("UPDATE order_state SET version = ? WHERE order_id = 'order-4' IF version = ?")
        version = 0
        for level in (ConsistencyLevel.SERIAL, ConsistencyLevel.LOCAL_SERIAL):
            with self.subTest(level=ConsistencyLevel.value_to_name[level]):
                # A simple statement and a bound one, each carrying the level.
                simple = SimpleStatement(
                    "UPDATE order_state SET version = %d WHERE order_id = 'order-4' IF version = %d"
                    % (version + 1, version),
                    serial_consistency_level=level,
                )
                self.assertEqual(simple.serial_consistency_level, level)
                rs = self.s.execute(simple)
                self.assertTrue(rs.was_applied)
                self.assertEqual(rs.response_future.message.serial_consistency_level, level)
                version += 1
                bound = update.bind((version + 1, version))
                bound.serial_consistency_level = level
                self.assertTrue(self.s.execute(bound).was_applied)
                version += 1
                # Stale: not applied, and the current version comes back.
                bound = update.bind((version + 1, version - 1))
                bound.serial_consistency_level = level
                rs = self.s.execute(bound)
                self.assertFalse(rs.was_applied)
                self.assertEqual(rs.one().version, version)
                # A read at the serial level sees the last applied version.
                read = SimpleStatement(
                    "SELECT version FROM order_state WHERE order_id = 'order-4'", consistency_level=level
                )
                self.assertEqual(self.s.execute(read).one().version, version)
        self.assertEqual(self.row("order-4").version, 4)

    def test_serial_consistency_of_execution_profile(self):
        # The execution profile's serial level is what the driver sends when
        # the statement leaves it unset.
        profile = ExecutionProfile(serial_consistency_level=ConsistencyLevel.LOCAL_SERIAL)
        cluster = Cluster([env.HOST], port=env.PORT, execution_profiles={EXEC_PROFILE_DEFAULT: profile})
        s = cluster.connect(env.KEYSPACE)
        try:
            s.execute("INSERT INTO order_state (order_id, version, state) VALUES ('order-5', 1, 'NEW')")
            rs = s.execute("UPDATE order_state SET version = 2 WHERE order_id = 'order-5' IF version = 1")
            self.assertTrue(rs.was_applied)
            self.assertEqual(rs.response_future.message.serial_consistency_level, ConsistencyLevel.LOCAL_SERIAL)
        finally:
            cluster.shutdown()
        self.assertEqual(self.row("order-5").version, 2)


if __name__ == "__main__":
    unittest.main()
