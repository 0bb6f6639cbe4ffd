"""Connection helpers shared by the Python driver suite.

The suite talks to a running Partita (or Cassandra) node at PARTITA_HOST
(default 127.0.0.1) and PARTITA_PORT (default 9042) through the driver with
its default settings: only the contact point and the port are given.

Every module works in the keyspace KEYSPACE, which the first caller of
session() drops and recreates, so a run starts from an empty keyspace.
"""

import atexit
import os
import threading
import time

from cassandra.cluster import Cluster

HOST = os.environ.get("PARTITA_HOST", "127.0.0.1")
PORT = int(os.environ.get("PARTITA_PORT", "9042"))
KEYSPACE = "py_suite"

_lock = threading.Lock()
_shared = {}


def new_cluster():
    """A Cluster with the driver's defaults, pointed at the node under test."""
    return Cluster([HOST], port=PORT)


def session():
    """The suite's shared session, connected and switched to KEYSPACE."""
    with _lock:
        if "session" not in _shared:
            cluster = new_cluster()
            s = cluster.connect()
            s.execute("DROP KEYSPACE IF EXISTS %s" % KEYSPACE)
            s.execute(
                "CREATE KEYSPACE %s WITH replication = "
                "{'class': 'SimpleStrategy', 'replication_factor': 1}" % KEYSPACE
            )
            s.set_keyspace(KEYSPACE)
            atexit.register(cluster.shutdown)
            _shared["cluster"] = cluster
            _shared["session"] = s
        return _shared["session"]


def cluster():
    """The Cluster behind session()."""
    session()
    return _shared["cluster"]


def wait_for(predicate, timeout=60.0, interval=0.1):
    """Polls predicate until it returns a truthy value or timeout passes.

    The default bounds a lost schema event, not an expected delay (the
    driver refreshes its metadata up to two seconds after the event; a
    loaded machine only makes that longer), so it is generous.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)
