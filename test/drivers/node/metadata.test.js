'use strict';

// The driver's own schema metadata and its refresh on SCHEMA_CHANGE events;
// token() against the driver's Murmur3 tokenizer.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { cassandra, newClient, freshKeyspace, waitFor, prepared } = require('./partita');

const KS = 'node_metadata';
let client;

before(async () => {
  client = await freshKeyspace(KS);
  await client.execute(`CREATE TABLE meta_events (
    asset_id text,
    day date,
    event_ts timestamp,
    seq int,
    payload text,
    tags set<text>,
    PRIMARY KEY ((asset_id, day), event_ts, seq)
) WITH CLUSTERING ORDER BY (event_ts DESC, seq ASC)`);
});

after(async () => {
  await client?.shutdown();
});

test('keyspaces, tables and columns', async () => {
  const ks = client.metadata.keyspaces[KS];
  assert.ok(ks, 'keyspace listed');
  assert.equal(ks.strategy, 'org.apache.cassandra.locator.SimpleStrategy');
  assert.deepEqual(ks.strategyOptions, { replication_factor: '1' });
  const t = await client.metadata.getTable(KS, 'meta_events');
  assert.ok(t, 'table described');
  assert.deepEqual(t.partitionKeys.map((c) => c.name), ['asset_id', 'day']);
  assert.deepEqual(t.clusteringKeys.map((c) => c.name), ['event_ts', 'seq']);
  assert.deepEqual(t.clusteringOrder, ['DESC', 'ASC']);
  const { dataTypes } = cassandra.types;
  const types = Object.fromEntries(t.columns.map((c) => [c.name, c.type.code]));
  assert.deepEqual(types, {
    asset_id: dataTypes.text, day: dataTypes.date, event_ts: dataTypes.timestamp, seq: dataTypes.int,
    payload: dataTypes.text, tags: dataTypes.set,
  });
  assert.equal(t.columnsByName.tags.type.info.code, dataTypes.text);
  assert.equal(await client.metadata.getTable(KS, 'no_such_table'), null);
});

test("another client's DDL arrives through schema events", async () => {
  const other = newClient(KS);
  try {
    await other.execute('CREATE TABLE meta_remote (k int PRIMARY KEY, v text)');
    assert.ok(await waitFor(() => client.metadata.getTable(KS, 'meta_remote')), 'CREATE TABLE not seen');
    await other.execute('ALTER TABLE meta_remote ADD note text');
    assert.ok(await waitFor(async () => {
      const t = await client.metadata.getTable(KS, 'meta_remote');
      return t && t.columnsByName.note;
    }), 'ALTER TABLE not seen');
    await other.execute("CREATE KEYSPACE node_remote_ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
    assert.ok(await waitFor(() => client.metadata.keyspaces.node_remote_ks), 'CREATE KEYSPACE not seen');
    await other.execute('CREATE TYPE node_remote_ks.address (street text, zip int)');
    assert.ok(await waitFor(() => client.metadata.getUdt('node_remote_ks', 'address')), 'CREATE TYPE not seen');
    await other.execute('DROP KEYSPACE node_remote_ks');
    assert.ok(await waitFor(() => !client.metadata.keyspaces.node_remote_ks), 'DROP KEYSPACE not seen');
  } finally {
    await other.shutdown();
  }
});

/** CompositeType bytes: per component a 2-byte length, the value, 0x00. */
function composite(...parts) {
  return Buffer.concat(parts.flatMap((p) => {
    const len = Buffer.alloc(2);
    len.writeUInt16BE(p.length);
    return [len, p, Buffer.from([0])];
  }));
}

test('token() equals the driver tokenizer', async () => {
  await client.execute('CREATE TABLE tok (a int, b text, v int, PRIMARY KEY ((a, b)))');
  await client.execute('CREATE TABLE tok_text (k text PRIMARY KEY, v int)');
  const Encoder = require('cassandra-driver/lib/encoder');
  const encoder = new Encoder(4, {});
  const enc = (value, type) => encoder.encode(value, type);
  const { dataTypes } = cassandra.types;
  for (const [a, b] of [[1, 'a'], [-5, ''], [2147483647, '中文']]) {
    await client.execute('INSERT INTO tok (a, b, v) VALUES (?, ?, 0)', [a, b], prepared);
    const got = (await client.execute('SELECT token(a, b) FROM tok WHERE a = ? AND b = ?', [a, b], prepared)).first();
    const want = client.metadata.newToken(composite(enc(a, dataTypes.int), enc(b, dataTypes.varchar)));
    assert.equal(got['system.token(a, b)'].toString(), want.getValue().toString(), `(${a}, ${b})`);
  }
  for (const k of ['hello', '123']) {
    await client.execute('INSERT INTO tok_text (k, v) VALUES (?, 0)', [k], prepared);
    const got = (await client.execute('SELECT token(k) FROM tok_text WHERE k = ?', [k], prepared)).first();
    assert.equal(got['system.token(k)'].toString(), client.metadata.newToken(Buffer.from(k)).getValue().toString());
  }
  // Cassandra's vector (Python driver test_metadata): "123".
  const rs = await client.execute("SELECT token(k) FROM tok_text WHERE k = '123'");
  assert.equal(rs.first()['system.token(k)'].toString(), '-7468325962851647638');
});
