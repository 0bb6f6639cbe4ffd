"""Connects through the Python driver with an ssl_context.

Run by internal/server (TestTLSPythonDriver) against a node with
client_encryption_options enabled and require_client_auth; the test makes
the CA and certificates at run time and names them in PARTITA_TLS_CA (the
CA that signed the node's certificate), PARTITA_TLS_CERT and
PARTITA_TLS_KEY (a client certificate the node trusts). Not part of the
unittest discovery of this suite (its node speaks plain text).
"""

import os
import ssl
import sys
import unittest

from cassandra.cluster import Cluster, NoHostAvailable

HOST = os.environ.get("PARTITA_HOST", "127.0.0.1")
PORT = int(os.environ.get("PARTITA_PORT", "9042"))
CA = os.environ.get("PARTITA_TLS_CA", "")
CERT = os.environ.get("PARTITA_TLS_CERT", "")
KEY = os.environ.get("PARTITA_TLS_KEY", "")


def context(client_cert=True):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(CA)
    ctx.check_hostname = True
    if client_cert:
        ctx.load_cert_chain(CERT, KEY)
    return ctx


def cluster(ssl_context=None):
    # server_hostname: the node's certificate names its IP address.
    opts = {"server_hostname": HOST} if ssl_context is not None else None
    return Cluster([HOST], port=PORT, ssl_context=ssl_context, ssl_options=opts)


class TLSTest(unittest.TestCase):
    def refused(self, c):
        try:
            with self.assertRaises(NoHostAvailable):
                c.connect()
        finally:
            c.shutdown()

    def test_client_certificate(self):
        c = cluster(context())
        try:
            s = c.connect()
            row = s.execute("SELECT release_version FROM system.local").one()
            self.assertTrue(row.release_version)
            prepared = s.prepare("SELECT key FROM system.local WHERE key = ?")
            self.assertEqual(s.execute(prepared, ["local"]).one().key, "local")
        finally:
            c.shutdown()

    def test_no_client_certificate_refused(self):
        self.refused(cluster(context(client_cert=False)))

    def test_plain_refused(self):
        self.refused(cluster())


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    sys.exit(0 if result.wasSuccessful() else 1)
