"""token(k) computed by the server equals the driver's Murmur3 of the
serialized key, for single-column and composite partition keys."""

import struct
import unittest
import uuid

from cassandra import InvalidRequest
from cassandra.murmur3 import murmur3

import partita_env as env


def composite(*parts):
    """CompositeType bytes: per component a 2-byte length, the value, 0x00."""
    return b"".join(struct.pack(">H", len(p)) + p + b"\x00" for p in parts)


def text(s):
    return s.encode("utf-8")


def int32(i):
    return struct.pack(">i", i)


def int64(i):
    return struct.pack(">q", i)


class TokenTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = env.session()
        for name, ktype in (("tok_text", "text"), ("tok_int", "int"), ("tok_bigint", "bigint"), ("tok_uuid", "uuid")):
            cls.s.execute("CREATE TABLE %s (k %s PRIMARY KEY, v int)" % (name, ktype))
        cls.s.execute("CREATE TABLE tok_composite (a int, b text, v int, PRIMARY KEY ((a, b)))")
        cls.s.execute("CREATE TABLE tok_composite3 (a text, b bigint, d uuid, PRIMARY KEY ((a, b, d)))")

    def check(self, table, key_cols, values, serialized):
        insert = self.s.prepare(
            "INSERT INTO %s (%s) VALUES (%s)" % (table, ", ".join(key_cols), ", ".join("?" * len(key_cols)))
        )
        select = self.s.prepare(
            "SELECT token(%s) FROM %s WHERE %s"
            % (", ".join(key_cols), table, " AND ".join("%s = ?" % c for c in key_cols))
        )
        token_map = env.cluster().metadata.token_map
        for vals, key in zip(values, serialized):
            with self.subTest(table=table, key=vals):
                self.s.execute(insert, vals)
                got = self.s.execute(select, vals).one()[0]
                self.assertEqual(got, murmur3(key))
                self.assertEqual(got, token_map.token_class.from_key(key).value)
                # The driver routes on the same bytes.
                self.assertEqual(insert.bind(vals).routing_key, key)

    def test_text_keys(self):
        keys = ["a", "hello", "123", "中文键", "x" * 300]
        self.check("tok_text", ["k"], [(k,) for k in keys], [text(k) for k in keys])

    def test_int_keys(self):
        keys = [0, 1, 2, -1, 2**31 - 1, -(2**31)]
        self.check("tok_int", ["k"], [(k,) for k in keys], [int32(k) for k in keys])

    def test_bigint_keys(self):
        keys = [0, 1, -1, 2**63 - 1, -(2**63), 1234567890123]
        self.check("tok_bigint", ["k"], [(k,) for k in keys], [int64(k) for k in keys])

    def test_uuid_keys(self):
        keys = [uuid.UUID(int=0), uuid.UUID("ffffffff-ffff-ffff-ffff-ffffffffffff"), uuid.uuid4(), uuid.uuid1()]
        self.check("tok_uuid", ["k"], [(k,) for k in keys], [k.bytes for k in keys])

    def test_composite_keys(self):
        rows = [(1, "a", 0), (-5, "", 0), (2**31 - 1, "中文", 0)]  # an empty component is allowed
        self.check(
            "tok_composite",
            ["a", "b"],
            [(a, b) for a, b, _ in rows],
            [composite(int32(a), text(b)) for a, b, _ in rows],
        )
        u = uuid.uuid4()
        self.check(
            "tok_composite3",
            ["a", "b", "d"],
            [("x", 7, u)],
            [composite(text("x"), int64(7), u.bytes)],
        )

    def test_empty_single_column_key_is_rejected(self):
        # An empty partition key would own the minimum token; Cassandra refuses it.
        with self.assertRaises(InvalidRequest) as cm:
            self.s.execute("INSERT INTO tok_text (k, v) VALUES ('', 1)")
        self.assertIn("Key may not be empty", str(cm.exception))

    def test_known_vectors(self):
        # Cassandra's Murmur3Partitioner vectors (reference §7).
        self.s.execute("INSERT INTO tok_int (k, v) VALUES (1, 0)")
        self.assertEqual(self.s.execute("SELECT token(k) FROM tok_int WHERE k = 1").one()[0], -4069959284402364209)
        self.s.execute("INSERT INTO tok_composite (a, b) VALUES (1, 'a')")
        self.assertEqual(
            self.s.execute("SELECT token(a, b) FROM tok_composite WHERE a = 1 AND b = 'a'").one()[0],
            6516349416904725244,
        )

    def test_token_range_scan(self):
        for k in range(20):
            self.s.execute("INSERT INTO tok_int (k, v) VALUES (%s, %s)", (k + 1000, k))
        rows = list(self.s.execute("SELECT token(k), k FROM tok_int"))
        tokens = [r[0] for r in rows]
        self.assertEqual(tokens, sorted(tokens))
        mid = tokens[len(tokens) // 2]
        upper = list(self.s.execute("SELECT k FROM tok_int WHERE token(k) > %s", (mid,)))
        self.assertEqual({r.k for r in upper}, {r.k for r in rows if r[0] > mid})


if __name__ == "__main__":
    unittest.main()
