"""Every scalar CQL type round-trips through prepared statements, and null."""

import datetime
import ipaddress
import math
import unittest
import uuid
from decimal import Decimal

from cassandra.query import UNSET_VALUE
from cassandra.util import Date, Duration, Time, uuid_from_time

import partita_env as env

COLUMNS = [
    ("c_ascii", "ascii"),
    ("c_text", "text"),
    ("c_varchar", "varchar"),
    ("c_int", "int"),
    ("c_bigint", "bigint"),
    ("c_smallint", "smallint"),
    ("c_tinyint", "tinyint"),
    ("c_varint", "varint"),
    ("c_decimal", "decimal"),
    ("c_float", "float"),
    ("c_double", "double"),
    ("c_boolean", "boolean"),
    ("c_uuid", "uuid"),
    ("c_timeuuid", "timeuuid"),
    ("c_timestamp", "timestamp"),
    ("c_date", "date"),
    ("c_time", "time"),
    ("c_duration", "duration"),
    ("c_blob", "blob"),
    ("c_inet", "inet"),
]
NAMES = [name for name, _ in COLUMNS]

TYPICAL = {
    "c_ascii": "plain ascii ~!",
    "c_text": "text: 中文, émoji 🎉",
    "c_varchar": "varchar too",
    "c_int": 123456,
    "c_bigint": 1234567890123,
    "c_smallint": -1234,
    "c_tinyint": 42,
    "c_varint": 12345678901234567890123456789,
    "c_decimal": Decimal("-12345.678901234567890"),
    "c_float": 1.5,
    "c_double": 3.141592653589793,
    "c_boolean": True,
    "c_uuid": uuid.UUID("5d8b7a62-0d64-4b1c-9a8e-2f1b7f2a9c01"),
    "c_timeuuid": uuid_from_time(datetime.datetime(2025, 3, 8, 10, 15), node=0x1, clock_seq=7),
    "c_timestamp": datetime.datetime(2026, 1, 20, 6, 0, 0, 123000),
    "c_date": Date(datetime.date(2026, 1, 20)),
    "c_time": Time(datetime.time(23, 59, 58, 999999)),
    "c_duration": Duration(months=14, days=3, nanoseconds=4 * 3600 * 10**9 + 5),
    "c_blob": b"\x00\x01\xfe\xffbinary",
    "c_inet": "192.0.2.10",
}

EXTREMES = {
    "c_ascii": "",
    "c_text": "",
    "c_varchar": "'quoted' \"and\" \\ back",
    "c_int": -(2**31),
    "c_bigint": 2**63 - 1,
    "c_smallint": 2**15 - 1,
    "c_tinyint": -(2**7),
    "c_varint": -(2**200) + 1,
    "c_decimal": Decimal("1E-30"),
    "c_float": float("-inf"),
    "c_double": -1.7976931348623157e308,
    "c_boolean": False,
    "c_uuid": uuid.UUID(int=0),
    "c_timeuuid": uuid_from_time(datetime.datetime(1970, 1, 1, 0, 0, 1), node=0xFFFFFFFFFFFF, clock_seq=0x3FFF),
    "c_timestamp": datetime.datetime(1900, 1, 1, 0, 0, 0),
    "c_date": Date(datetime.date(1, 1, 1)),
    "c_time": Time(0),
    "c_duration": Duration(months=-1, days=-2, nanoseconds=-3),
    "c_blob": b"",
    "c_inet": "2001:db8::ff00:42:8329",
}


def normalise(name, value):
    """Maps what the driver returns onto what the test wrote."""
    if name == "c_inet" and value is not None:
        return str(ipaddress.ip_address(value))
    return value


class TypesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = env.session()
        cols = ",\n    ".join("%s %s" % c for c in COLUMNS)
        cls.s.execute("CREATE TABLE all_types (\n    k int PRIMARY KEY,\n    %s\n)" % cols)
        cls.insert = cls.s.prepare(
            "INSERT INTO all_types (k, %s) VALUES (?, %s)" % (", ".join(NAMES), ", ".join("?" * len(NAMES)))
        )
        cls.select = cls.s.prepare("SELECT %s FROM all_types WHERE k = ?" % ", ".join(NAMES))

    def roundtrip(self, k, values):
        self.s.execute(self.insert, [k] + [values[n] for n in NAMES])
        prepared = self.s.execute(self.select, (k,)).one()
        simple = self.s.execute("SELECT %s FROM all_types WHERE k = %d" % (", ".join(NAMES), k)).one()
        for row in (prepared, simple):
            for name in NAMES:
                with self.subTest(k=k, column=name):
                    self.assertEqual(normalise(name, getattr(row, name)), values[name])

    def test_typical_values(self):
        self.roundtrip(1, TYPICAL)

    def test_extreme_values(self):
        self.roundtrip(2, EXTREMES)

    def test_nulls(self):
        self.roundtrip(3, {n: None for n in NAMES})
        # Columns never written read as null too.
        self.s.execute("INSERT INTO all_types (k) VALUES (4)")
        row = self.s.execute(self.select, (4,)).one()
        self.assertTrue(all(v is None for v in row))

    def test_null_overwrites_a_value(self):
        self.roundtrip(5, TYPICAL)
        self.roundtrip(5, {n: None for n in NAMES})

    def test_unset_leaves_a_column_untouched(self):
        insert = self.s.prepare("INSERT INTO all_types (k, c_text, c_int) VALUES (?, ?, ?)")
        self.s.execute(insert, (8, "kept", 1))
        self.s.execute(insert, (8, UNSET_VALUE, 2))  # protocol "not set" (-2)
        row = self.s.execute("SELECT c_text, c_int FROM all_types WHERE k = 8").one()
        self.assertEqual((row.c_text, row.c_int), ("kept", 2))

    def test_special_floats(self):
        self.s.execute(
            "INSERT INTO all_types (k, c_float, c_double) VALUES (6, %s, %s)", (float("nan"), float("inf"))
        )
        row = self.s.execute("SELECT c_float, c_double FROM all_types WHERE k = 6").one()
        self.assertTrue(math.isnan(row.c_float))
        self.assertEqual(row.c_double, float("inf"))

    def test_simple_statement_parameters_are_inlined_literals(self):
        # Unprepared parameters reach the server as CQL literals (the
        # driver's encoder); duration has no literal encoder in the driver.
        values = dict(TYPICAL)
        names = [n for n in NAMES if n != "c_duration"]
        self.s.execute(
            "INSERT INTO all_types (k, %s) VALUES (7, %s)" % (", ".join(names), ", ".join(["%s"] * len(names))),
            [values[n] for n in names],
        )
        self.s.execute("UPDATE all_types SET c_duration = 1y2mo3w4d5h6m7s8ms9us10ns WHERE k = 7")
        row = self.s.execute(self.select, (7,)).one()
        for name in names:
            with self.subTest(column=name):
                self.assertEqual(normalise(name, getattr(row, name)), values[name])
        self.assertEqual(
            row.c_duration,
            Duration(14, 25, ((5 * 60 + 6) * 60 + 7) * 10**9 + 8 * 10**6 + 9 * 10**3 + 10),
        )

    def test_result_metadata_types(self):
        rs = self.s.execute(self.select, (1,))
        got = [t.typename for t in rs.column_types]
        want = [
            "ascii", "varchar", "varchar", "int", "bigint", "smallint", "tinyint", "varint", "decimal",
            "float", "double", "boolean", "uuid", "timeuuid", "timestamp", "date", "time", "duration",
            "blob", "inet",
        ]
        self.assertEqual(got, want)


if __name__ == "__main__":
    unittest.main()
