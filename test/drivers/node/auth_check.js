'use strict';

// Logs in through cassandra-driver's PlainTextAuthProvider. Run by test/e2e
// (TestNodeDriverAuth) against a node started with authenticator:
// PasswordAuthenticator whose superuser is cassandra/cassandra; not a
// *.test.js file, so the suite's own node (without authentication) does
// not run it.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const cassandra = require('cassandra-driver');

const host = process.env.PARTITA_HOST || '127.0.0.1';
const port = Number(process.env.PARTITA_PORT || '9042');

function client(user, password) {
  const options = { contactPoints: [host], localDataCenter: 'datacenter1', protocolOptions: { port } };
  if (user !== undefined) {
    options.authProvider = new cassandra.auth.PlainTextAuthProvider(user, password);
  }
  return new cassandra.Client(options);
}

test('logs in and runs prepared statements as a new role', async () => {
  const admin = client('cassandra', 'cassandra');
  try {
    await admin.execute("CREATE ROLE IF NOT EXISTS node WITH PASSWORD = 'node pw' AND LOGIN = true");
    const rs = await admin.execute('LIST ROLES');
    assert.deepEqual(rs.rows.map((r) => r.role), ['cassandra', 'node']);
  } finally {
    await admin.shutdown();
  }
  const app = client('node', 'node pw');
  try {
    const rs = await app.execute('SELECT release_version FROM system.local WHERE key = ?', ['local'], { prepare: true });
    assert.ok(rs.first().release_version);
  } finally {
    await app.shutdown();
  }
});

test('wrong credentials are refused with Cassandra message', async () => {
  const c = client('cassandra', 'nope');
  try {
    await assert.rejects(c.connect(), (err) => {
      const inner = Object.values(err.innerErrors || {}).map((e) => e.message).join(' ');
      assert.match(inner, /Provided username cassandra and\/or password are incorrect/);
      return true;
    });
  } finally {
    await c.shutdown();
  }
});

test('no credentials: the driver sees that the node requires them', async () => {
  const c = client();
  try {
    await assert.rejects(c.connect(), (err) => {
      const inner = Object.values(err.innerErrors || {}).map((e) => e.message).join(' ');
      assert.match(inner, /requires authentication/);
      return true;
    });
  } finally {
    await c.shutdown();
  }
});
