'use strict';

// Seeds 000, 001 and 003: their tables and queries as written, through the
// Node.js driver.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { cassandra, freshKeyspace, prepared } = require('./partita');

const { Uuid } = cassandra.types;
let client;

before(async () => {
  client = await freshKeyspace('node_seeds');
});

after(async () => {
  await client?.shutdown();
});

const utc = (y, mo, d, h = 0, mi = 0, s = 0) => new Date(Date.UTC(y, mo - 1, d, h, mi, s));
const times = (rows, col) => rows.map((r) => r[col].getTime());

test('seed 000: notes_by_user in clustering order', async () => {
  await client.execute(`CREATE TABLE notes_by_user (
    user_id    uuid,        -- partition key
    created_at timestamp,   -- clustering key
    note_id    uuid,        -- clustering key
    content    text,
    PRIMARY KEY (user_id, created_at, note_id)
);`);
  const user = Uuid.random();
  const n1 = Uuid.fromString('00000000-0000-4000-8000-000000000001');
  const n2 = Uuid.fromString('00000000-0000-4000-8000-000000000002');
  const at = (m) => utc(2026, 10, 8, 9, m);
  const insert = 'INSERT INTO notes_by_user (user_id, created_at, note_id, content) VALUES (?, ?, ?, ?)';
  for (const [created, note, content] of [[at(3), n1, 'third'], [at(1), n2, 'first-b'], [at(2), n1, 'second'], [at(1), n1, 'first-a']]) {
    await client.execute(insert, [user, created, note, content], prepared);
  }
  await client.execute(insert, [Uuid.random(), at(0), n1, 'someone else'], prepared);
  let rs = await client.execute('SELECT created_at, note_id, content FROM notes_by_user WHERE user_id = ?', [user], prepared);
  assert.deepEqual(rs.rows.map((r) => r.content), ['first-a', 'first-b', 'second', 'third']);
  assert.deepEqual(times(rs.rows, 'created_at'), [at(1), at(1), at(2), at(3)].map((d) => d.getTime()));
  await client.execute(insert, [user, at(2), n1, 'second, edited'], prepared);
  rs = await client.execute('SELECT content FROM notes_by_user WHERE user_id = ? ORDER BY created_at DESC, note_id DESC LIMIT 3', [user], prepared);
  assert.deepEqual(rs.rows.map((r) => r.content), ['third', 'second, edited', 'first-b']);
});

test('seed 000: the three key forms', async () => {
  await client.execute('CREATE TABLE key_a (a int, b int, c int, v text, PRIMARY KEY (a))');
  await client.execute('CREATE TABLE key_a_b_c (a int, b int, c int, v text, PRIMARY KEY (a, b, c))');
  await client.execute('CREATE TABLE key_ab_c (a int, b int, c int, v text, PRIMARY KEY ((a, b), c))');
  for (const b of [0, 1, 2]) {
    await client.execute('INSERT INTO key_a (a, b, c, v) VALUES (1, ?, 0, ?)', [b, `v${b}`], prepared);
  }
  assert.deepEqual((await client.execute('SELECT v FROM key_a WHERE a = 1')).rows.map((r) => r.v), ['v2']);
  for (const [b, c] of [[2, 1], [1, 2], [1, 1], [2, 0]]) {
    await client.execute('INSERT INTO key_a_b_c (a, b, c, v) VALUES (7, ?, ?, ?)', [b, c, 'x'], prepared);
  }
  let rs = await client.execute('SELECT b, c FROM key_a_b_c WHERE a = 7');
  assert.deepEqual(rs.rows.map((r) => [r.b, r.c]), [[1, 1], [1, 2], [2, 0], [2, 1]]);
  for (const [a, b, c] of [[1, 1, 2], [1, 1, 1], [1, 2, 1]]) {
    await client.execute('INSERT INTO key_ab_c (a, b, c, v) VALUES (?, ?, ?, ?)', [a, b, c, 'x'], prepared);
  }
  rs = await client.execute('SELECT c FROM key_ab_c WHERE a = 1 AND b = 1');
  assert.deepEqual(rs.rows.map((r) => r.c), [1, 2]);
  await assert.rejects(client.execute('SELECT c FROM key_ab_c WHERE a = 1'),
    (err) => err.code === cassandra.types.responseErrorCodes.invalid);
  const meta = await client.metadata.getTable('node_seeds', 'key_ab_c');
  assert.deepEqual(meta.partitionKeys.map((c) => c.name), ['a', 'b']);
  assert.deepEqual(meta.clusteringKeys.map((c) => c.name), ['c']);
});

test('seed 000: time buckets', async () => {
  await client.execute(`CREATE TABLE readings_by_device_day (
    device_id text,
    day text,
    timestamp timestamp,
    value double,
    PRIMARY KEY ((device_id, day), timestamp)
)`);
  await client.execute(`CREATE TABLE notes_by_user_year (
    user_id uuid,
    year int,
    created_at timestamp,
    content text,
    PRIMARY KEY ((user_id, year), created_at)
)`);
  for (const day of [7, 8]) {
    for (const hour of [23, 5, 12]) {
      await client.execute('INSERT INTO readings_by_device_day (device_id, day, timestamp, value) VALUES (?, ?, ?, ?)',
        ['dev-1', `2026-10-0${day}`, utc(2026, 10, day, hour), hour], prepared);
    }
  }
  const rs = await client.execute("SELECT timestamp, value FROM readings_by_device_day WHERE device_id = 'dev-1' AND day = '2026-10-08'");
  assert.deepEqual(rs.rows.map((r) => r.value), [5, 12, 23]);
  const user = Uuid.random();
  for (const year of [2025, 2026]) {
    for (const month of [12, 1, 6]) {
      await client.execute('INSERT INTO notes_by_user_year (user_id, year, created_at, content) VALUES (?, ?, ?, ?)',
        [user, year, utc(year, month, 1), `${year}-${String(month).padStart(2, '0')}`], prepared);
    }
  }
  const rows = (await client.execute('SELECT content FROM notes_by_user_year WHERE user_id = ? AND year = ?', [user, 2026], prepared)).rows;
  assert.deepEqual(rows.map((r) => r.content), ['2026-01', '2026-06', '2026-12']);
});

test('seed 001: iot_data_error and iot_data_optimized', async () => {
  await client.execute(`
-- Wrong: device_id alone as the partition key puts a device's whole history in one partition
CREATE TABLE IF NOT EXISTS iot_data_error (
    device_id text,          -- device id
    time timestamp,          -- report time
    temperature float,       -- temperature
    humidity float,         -- humidity
    voltage float,          -- voltage
    signal_strength float,   -- signal strength
    PRIMARY KEY (device_id)  -- wrong partition key, no time dimension
);`);
  await client.execute(`
-- Better: (device_id, year_month) gives each device one partition per month
CREATE TABLE IF NOT EXISTS iot_data_optimized (
    device_id text,          -- device id (partition key, business dimension)
    year_month text,         -- time dimension (yyyyMM, e.g. 202405)
    time timestamp,          -- report time (clustering key)
    temperature float,       -- only the columns the query needs
    PRIMARY KEY ((device_id, year_month), time) -- the parenthesised columns form one partition key
);`);
  for (let m = 0; m < 5; m++) {
    await client.execute('INSERT INTO iot_data_error (device_id, time, temperature) VALUES (?, ?, ?)',
      ['device_123', utc(2024, 5, 1, 0, m), 20 + m], prepared);
  }
  let rs = await client.execute("SELECT time, temperature FROM iot_data_error WHERE device_id = 'device_123'");
  assert.equal(rs.rowLength, 1);
  assert.equal(rs.first().temperature, 24);

  for (let day = 15; day >= 1; day--) {
    await client.execute('INSERT INTO iot_data_optimized (device_id, year_month, time, temperature) VALUES (?, ?, ?, ?)',
      ['device_123', '202405', utc(2024, 5, day, 12), 10 + 0.5 * day], prepared);
  }
  await client.execute("INSERT INTO iot_data_optimized (device_id, year_month, time, temperature) VALUES ('device_123', '202406', '2024-06-01', 99)");
  rs = await client.execute(`SELECT time, temperature 
FROM iot_data_optimized 
WHERE device_id = 'device_123' 
  AND year_month = '202405' 
ORDER BY time DESC -- the clustering key already orders by time: read it backwards
LIMIT 10; -- bound the rows read`);
  assert.deepEqual(rs.columns.map((c) => c.name), ['time', 'temperature']);
  const days = [15, 14, 13, 12, 11, 10, 9, 8, 7, 6];
  assert.deepEqual(times(rs.rows, 'time'), days.map((d) => utc(2024, 5, d, 12).getTime()));
  assert.deepEqual(rs.rows.map((r) => r.temperature), days.map((d) => 10 + 0.5 * d));
});

const SPLIT_ROWS = [
  `INSERT INTO partition_split_metadata (asset_id, day, shard, start_ts, end_ts, state)
VALUES ('asset-42', '2026-01-20', 0, '2026-01-20T00:00:00Z', '2026-01-20T06:00:00Z', 'active');`,
  `INSERT INTO partition_split_metadata (asset_id, day, shard, start_ts, end_ts, state)
VALUES ('asset-42', '2026-01-20', 1, '2026-01-20T06:00:00Z', '2026-01-20T12:00:00Z', 'active');`,
  `INSERT INTO partition_split_metadata (asset_id, day, shard, start_ts, end_ts, state)
VALUES ('asset-42', '2026-01-20', 2, '2026-01-20T12:00:00Z', '2026-01-20T18:00:00Z', 'active');`,
  `INSERT INTO partition_split_metadata (asset_id, day, shard, start_ts, end_ts, state)
VALUES ('asset-42', '2026-01-20', 3, '2026-01-20T18:00:00Z', '2026-01-21T00:00:00Z', 'active');`,
];

/** Seed 003's read path: shards from metadata, concurrent LIMIT ? reads, merge. */
async function readEvents(assetId, day, start, end, limit) {
  let shards = (await client.execute('SELECT shard, start_ts, end_ts FROM partition_split_metadata WHERE asset_id = ? AND day = ?',
    [assetId, day], prepared)).rows;
  if (shards.length === 0) {
    shards = [{ shard: 0, start_ts: start, end_ts: end }];
  }
  const reads = [];
  for (const s of shards) {
    const from = new Date(Math.max(start, s.start_ts));
    const to = new Date(Math.min(end, s.end_ts));
    if (from >= to) {
      continue;
    }
    reads.push(client.execute(`SELECT event_ts, payload
FROM events_by_asset_day_shard
WHERE asset_id = ? AND day = ? AND shard = ?
  AND event_ts >= ? AND event_ts < ?
LIMIT ?`, [assetId, day, s.shard, from, to, limit], prepared));
  }
  const rows = (await Promise.all(reads)).flatMap((rs) => rs.rows);
  rows.sort((a, b) => b.event_ts - a.event_ts);
  return rows.slice(0, limit);
}

test('seed 003: events_by_asset_day, split metadata and the fan-out read', async () => {
  await client.execute(`CREATE TABLE events_by_asset_day (
  asset_id text,
  day date,
  event_ts timestamp,
  payload text,
  PRIMARY KEY ((asset_id, day), event_ts)
) WITH CLUSTERING ORDER BY (event_ts DESC);`);
  await client.execute(`CREATE TABLE events_by_asset_day_shard (
  asset_id text,
  day date,
  shard int,
  event_ts timestamp,
  payload text,
  PRIMARY KEY ((asset_id, day, shard), event_ts)
) WITH CLUSTERING ORDER BY (event_ts DESC);`);
  await client.execute(`CREATE TABLE partition_split_metadata (
  asset_id text,
  day date,
  shard int,
  start_ts timestamp,
  end_ts timestamp,
  state text,
  PRIMARY KEY ((asset_id, day), shard)
);`);
  const events = Array.from({ length: 72 }, (_, i) => new Date(utc(2026, 1, 20).getTime() + i * 20 * 60000));
  const newest = [...events].reverse().map((d) => d.getTime());
  for (const ts of events) {
    await client.execute('INSERT INTO events_by_asset_day (asset_id, day, event_ts, payload) VALUES (?, ?, ?, ?)',
      ['asset-7', '2026-01-20', ts, 'x'], prepared);
  }
  let rs = await client.execute("SELECT event_ts FROM events_by_asset_day WHERE asset_id = 'asset-7' AND day = '2026-01-20' LIMIT 5");
  assert.deepEqual(times(rs.rows, 'event_ts'), newest.slice(0, 5));

  for (const stmt of SPLIT_ROWS) {
    await client.execute(stmt);
  }
  rs = await client.execute("SELECT shard, start_ts FROM partition_split_metadata WHERE asset_id = 'asset-42' AND day = '2026-01-20'");
  assert.deepEqual(rs.rows.map((r) => r.shard), [0, 1, 2, 3]);
  assert.equal(rs.rows[1].start_ts.toISOString(), '2026-01-20T06:00:00.000Z');

  for (const ts of events) {
    await client.execute('INSERT INTO events_by_asset_day_shard (asset_id, day, shard, event_ts, payload) VALUES (?, ?, ?, ?, ?)',
      ['asset-42', '2026-01-20', Math.floor(ts.getUTCHours() / 6), ts, 'e'], prepared);
  }
  const start = utc(2026, 1, 20, 10);
  const end = utc(2026, 1, 20, 14);
  const want = newest.filter((t) => t >= start.getTime() && t < end.getTime());
  assert.deepEqual(times(await readEvents('asset-42', '2026-01-20', start, end, 20), 'event_ts'), want);
  assert.deepEqual(times(await readEvents('asset-42', '2026-01-20', start, end, 5), 'event_ts'), want.slice(0, 5));
  assert.deepEqual(times(await readEvents('asset-42', '2026-01-20', utc(2026, 1, 20), utc(2026, 1, 21), 100), 'event_ts'), newest);
});
