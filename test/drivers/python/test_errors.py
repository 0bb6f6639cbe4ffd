"""Errors come back with their protocol class and the session keeps working."""

import unittest

from cassandra import AlreadyExists, InvalidRequest
from cassandra.protocol import SyntaxException

import partita_env as env


class ErrorsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = env.session()
        cls.s.execute("CREATE TABLE err_probe (k int PRIMARY KEY, v text)")
        cls.s.execute("INSERT INTO err_probe (k, v) VALUES (1, 'alive')")

    def assert_alive(self):
        self.assertEqual(self.s.execute("SELECT v FROM err_probe WHERE k = 1").one().v, "alive")

    def test_syntax_error(self):
        for query in ("SELEC * FROM err_probe", "SELECT * FROM err_probe WHERE", "INSERT INTO err_probe (k) VALUES (1"):
            with self.subTest(query=query):
                with self.assertRaises(SyntaxException) as cm:
                    self.s.execute(query)
                self.assert_alive()

    def test_syntax_error_on_prepare(self):
        with self.assertRaises(SyntaxException):
            self.s.prepare("SELECT * FROM err_probe WHERE k = ?? ")
        self.assert_alive()

    def test_invalid_queries(self):
        for query in (
            "SELECT * FROM no_such_table",
            "SELECT * FROM err_probe WHERE v = 'x'",
            "INSERT INTO err_probe (k, v) VALUES ('not an int', 'x')",
            "SELECT nope FROM err_probe WHERE k = 1",
            "INSERT INTO err_probe (v) VALUES ('no key')",
        ):
            with self.subTest(query=query):
                with self.assertRaises(InvalidRequest) as cm:
                    self.s.execute(query)
                self.assert_alive()

    def test_invalid_on_prepare(self):
        with self.assertRaises(InvalidRequest):
            self.s.prepare("SELECT * FROM no_such_table WHERE k = ?")
        self.assert_alive()

    def test_already_exists(self):
        with self.assertRaises(AlreadyExists) as cm:
            self.s.execute("CREATE TABLE err_probe (k int PRIMARY KEY)")
        self.assertEqual((cm.exception.keyspace, cm.exception.table), (env.KEYSPACE, "err_probe"))
        with self.assertRaises(AlreadyExists) as cm:
            self.s.execute(
                "CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}" % env.KEYSPACE
            )
        self.assertEqual(cm.exception.keyspace, env.KEYSPACE)
        self.assert_alive()

    def test_unknown_keyspace_in_use(self):
        with self.assertRaises(InvalidRequest):
            self.s.execute("SELECT * FROM no_such_keyspace.t")
        self.assert_alive()


if __name__ == "__main__":
    unittest.main()
