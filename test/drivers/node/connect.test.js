'use strict';

// Connecting, system.local, keyspaces, USE and errors through the Node.js driver.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { cassandra, newClient, freshKeyspace } = require('./partita');

const { responseErrorCodes } = cassandra.types;
const KS = 'node_connect';
let client;

before(async () => {
  client = await freshKeyspace(KS);
  await client.execute('CREATE TABLE probe (k int PRIMARY KEY, v text)');
  await client.execute("INSERT INTO probe (k, v) VALUES (1, 'alive')");
});

after(async () => {
  await client?.shutdown();
});

async function assertAlive() {
  const rs = await client.execute('SELECT v FROM probe WHERE k = 1');
  assert.equal(rs.first().v, 'alive');
}

test('connects and reads system.local', async () => {
  const c = newClient();
  try {
    await c.connect();
    const row = (await c.execute('SELECT cluster_name, release_version, data_center FROM system.local')).first();
    assert.match(row.release_version, /^4\./);
    assert.equal(row.data_center, 'datacenter1');
    const hosts = c.hosts.values();
    assert.equal(hosts.length, 1);
    assert.equal(hosts[0].datacenter, 'datacenter1');
    assert.ok(hosts[0].isUp());
    assert.ok(c.metadata.keyspaces.system_schema, 'system_schema listed');
  } finally {
    await c.shutdown();
  }
});

test('creates and drops a keyspace', async () => {
  await client.execute(
    "CREATE KEYSPACE node_created WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': 1}");
  const ks = client.metadata.keyspaces.node_created;
  assert.ok(ks, 'keyspace in metadata after CREATE');
  assert.equal(ks.strategy, 'org.apache.cassandra.locator.NetworkTopologyStrategy');
  await client.execute('DROP KEYSPACE node_created');
  assert.equal(client.metadata.keyspaces.node_created, undefined);
});

test("seed 004's keyspace with an unknown data center is a configuration error", async () => {
  // A single Cassandra 4.x node lives in datacenter1 and rejects 'dc1'
  // (NetworkTopologyStrategy.validateOptions, CASSANDRA-12681).
  await client.execute('DROP KEYSPACE IF EXISTS app');
  await assert.rejects(
    client.execute(`CREATE KEYSPACE IF NOT EXISTS app
WITH replication = {
    'class': 'NetworkTopologyStrategy',
    'dc1': 3
};`),
    (err) => err.code === responseErrorCodes.configError);
  await assertAlive();
});

test('USE keyspace', async () => {
  const c = newClient();
  try {
    const rs = await c.execute(`USE ${KS}`);
    assert.ok(rs);
    assert.equal(c.keyspace, KS);
    const row = (await c.execute('SELECT v FROM probe WHERE k = 1')).first();
    assert.equal(row.v, 'alive');
  } finally {
    await c.shutdown();
  }
  const withKs = newClient(KS);
  try {
    assert.equal((await withKs.execute('SELECT v FROM probe WHERE k = ?', [1], { prepare: true })).first().v, 'alive');
  } finally {
    await withKs.shutdown();
  }
});

test('syntax errors', async () => {
  for (const query of ['SELEC * FROM probe', 'SELECT * FROM probe WHERE', 'INSERT INTO probe (k) VALUES (1']) {
    await assert.rejects(client.execute(query), (err) => {
      assert.ok(err instanceof cassandra.errors.ResponseError, String(err));
      assert.equal(err.code, responseErrorCodes.syntaxError, `${query}: ${err.message}`);
      return true;
    });
    await assertAlive();
  }
  await assert.rejects(client.execute('SELECT * FROM probe WHERE k = ??', [1], { prepare: true }),
    (err) => err.code === responseErrorCodes.syntaxError);
  await assertAlive();
});

test('invalid queries', async () => {
  const queries = [
    'SELECT * FROM no_such_table',
    'SELECT * FROM no_such_keyspace.t',
    "SELECT * FROM probe WHERE v = 'x'",
    "INSERT INTO probe (k, v) VALUES ('not an int', 'x')",
    'SELECT nope FROM probe WHERE k = 1',
    "INSERT INTO probe (v) VALUES ('no key')",
  ];
  for (const query of queries) {
    for (const options of [{}, { prepare: true }]) {
      await assert.rejects(client.execute(query, [], options), (err) => {
        assert.equal(err.code, responseErrorCodes.invalid, `${query}: ${err.message}`);
        return true;
      });
      await assertAlive();
    }
  }
  await assert.rejects(client.execute("SELECT * FROM probe WHERE v = 'x'"),
    (err) => err.message.includes('ALLOW FILTERING'));
});

test('already exists', async () => {
  await assert.rejects(client.execute('CREATE TABLE probe (k int PRIMARY KEY)'), (err) => {
    assert.equal(err.code, responseErrorCodes.alreadyExists);
    assert.equal(err.keyspace, KS);
    assert.equal(err.table, 'probe');
    return true;
  });
  await assertAlive();
});

test('bound values on QUERY and named markers', async () => {
  // Unprepared with values: the QUERY message carries them (hints type them).
  await client.execute('INSERT INTO probe (k, v) VALUES (?, ?)', [2, 'two'], { hints: ['int', 'text'] });
  // Named values (flag 0x40) on an unprepared QUERY, and named markers prepared.
  await client.execute('INSERT INTO probe (k, v) VALUES (:k, :v)', { k: 3, v: 'three' }, { hints: { k: 'int', v: 'text' } });
  let rs = await client.execute('SELECT v FROM probe WHERE k = :key', { key: 2 }, { prepare: true });
  assert.equal(rs.first().v, 'two');
  rs = await client.execute('SELECT k, v FROM probe WHERE k IN (?, ?)', [3, 1], { hints: ['int', 'int'] });
  assert.deepEqual(rs.rows.map((r) => r.v).sort(), ['alive', 'three']);
  await client.execute('DELETE FROM probe WHERE k IN (2, 3)');
});
