"""Logs in through the Python driver's PlainTextAuthProvider.

Run by test/e2e (TestPythonDriverAuth) against a node started with
authenticator: PasswordAuthenticator, whose superuser is cassandra/cassandra;
not part of the unittest discovery of this suite (its node has no
authentication).
"""

import os
import sys
import unittest

from cassandra.auth import PlainTextAuthProvider
from cassandra.cluster import Cluster, NoHostAvailable

HOST = os.environ.get("PARTITA_HOST", "127.0.0.1")
PORT = int(os.environ.get("PARTITA_PORT", "9042"))


def cluster(user=None, password=None):
    auth = PlainTextAuthProvider(username=user, password=password) if user is not None else None
    return Cluster([HOST], port=PORT, auth_provider=auth)


class AuthTest(unittest.TestCase):
    def login_error(self, user, password):
        c = cluster(user, password)
        try:
            with self.assertRaises(NoHostAvailable) as cm:
                c.connect()
            return str(cm.exception)
        finally:
            c.shutdown()

    def test_login(self):
        c = cluster("cassandra", "cassandra")
        s = c.connect()
        try:
            s.execute("CREATE ROLE IF NOT EXISTS py WITH PASSWORD = 'py pw' AND LOGIN = true")
            rows = list(s.execute("LIST ROLES"))
            self.assertEqual([r.role for r in rows], ["cassandra", "py"])
            self.assertEqual(rows[0].super, True)
            row = s.execute("SELECT role, can_login, is_superuser FROM system_auth.roles WHERE role = 'py'").one()
            self.assertEqual((row.role, row.can_login, row.is_superuser), ("py", True, False))
        finally:
            c.shutdown()
        c = cluster("py", "py pw")
        s = c.connect()
        try:
            prepared = s.prepare("SELECT release_version FROM system.local WHERE key = ?")
            self.assertTrue(s.execute(prepared, ["local"]).one().release_version)
        finally:
            c.shutdown()

    def test_wrong_password(self):
        self.assertIn("Provided username cassandra and/or password are incorrect",
                      self.login_error("cassandra", "nope"))

    def test_no_credentials(self):
        c = cluster()
        try:
            with self.assertRaises(NoHostAvailable) as cm:
                c.connect()
            self.assertIn("requires authentication", str(cm.exception))
        finally:
            c.shutdown()


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    sys.exit(0 if result.wasSuccessful() else 1)
