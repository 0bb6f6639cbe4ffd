'use strict';

// Seed 004: query-driven tables, the §7 accept/reject rules, buckets,
// batches, tuple cursors and IN on partition key parts.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { cassandra, freshKeyspace, timeUuid, prepared } = require('./partita');

const { Uuid, TimeUuid, responseErrorCodes } = cassandra.types;
let client;

const TABLES = [`CREATE TABLE IF NOT EXISTS user_events_by_day (
    user_id text,
    bucket_date date,
    event_time timestamp,
    event_id timeuuid,
    event_type text,
    payload text,
    PRIMARY KEY ((user_id, bucket_date), event_time, event_id)
) WITH CLUSTERING ORDER BY (
    event_time DESC,
    event_id ASC
);`, `CREATE TABLE device_events_by_day (
    device_id text,
    bucket_date date,
    event_time timestamp,
    event_id timeuuid,
    event_type text,
    payload text,
    PRIMARY KEY ((device_id, bucket_date), event_time, event_id)
) WITH CLUSTERING ORDER BY (
    event_time DESC,
    event_id ASC
);`, `CREATE TABLE user_events_by_hour (
    user_id text,
    bucket_hour timestamp,
    event_time timestamp,
    event_id timeuuid,
    event_type text,
    payload text,
    PRIMARY KEY ((user_id, bucket_hour), event_time, event_id)
) WITH CLUSTERING ORDER BY (
    event_time DESC,
    event_id ASC
);`, `CREATE TABLE room_events (
    room_id text,
    bucket int,
    event_time timestamp,
    event_id timeuuid,
    payload text,
    PRIMARY KEY ((room_id, bucket), event_time, event_id)
);`, `CREATE TABLE login_events_by_day (
    bucket_date date,
    event_time timestamp,
    event_id timeuuid,
    user_id text,
    payload text,
    PRIMARY KEY ((bucket_date), event_time, event_id)
);`, `CREATE TABLE orders_by_customer (
    customer_id text,
    order_id uuid,
    status text,
    created_at timestamp,
    PRIMARY KEY ((customer_id), order_id)
);`, `CREATE TABLE paid_orders_by_customer (
    customer_id text,
    created_at timestamp,
    order_id uuid,
    PRIMARY KEY ((customer_id), created_at, order_id)
);`];

// StatementRestrictions.REQUIRES_ALLOW_FILTERING_MESSAGE
const FILTERING = 'Cannot execute this query as it might involve data filtering and thus may have unpredictable ' +
  'performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING';

const INSERT_USER_DAY = 'INSERT INTO user_events_by_day (user_id, bucket_date, event_time, event_id, event_type, payload) VALUES (?, ?, ?, ?, ?, ?)';

before(async () => {
  client = await freshKeyspace('node_seed004');
  for (const ddl of TABLES) {
    await client.execute(ddl);
  }
  await client.execute(TABLES[0]); // IF NOT EXISTS: a no-op the second time
});

after(async () => {
  await client?.shutdown();
});

const at = (h, m = 0, s = 0, day = 8) => new Date(Date.UTC(2025, 2, day, h, m, s));

/** Orders [time, id] pairs as (event_time DESC, event_id ASC). */
function descAsc(a, b) {
  if (a[0].getTime() !== b[0].getTime()) {
    return b[0] - a[0];
  }
  return Buffer.compare(a[1].getBuffer(), b[1].getBuffer()); // same time: clock sequence order
}

const pairs = (rows) => rows.map((r) => [r.event_time.getTime(), r.event_id.toString()]);
const plain = (list) => list.map(([t, id]) => [t.getTime(), id.toString()]);

async function fillDay(user) {
  const written = [];
  for (let i = 0; i < 30; i++) {
    const t = at(i % 24, (7 * i) % 60);
    for (const seq of i % 5 === 0 ? [2, 1] : [1]) {
      const id = timeUuid(t, seq);
      await client.execute(INSERT_USER_DAY, [user, '2025-03-08', t, id, i % 3 === 0 ? 'login' : 'click', 'p'], prepared);
      written.push([t, id]);
    }
  }
  return written.sort(descAsc);
}

test('INSERT with now() and a literal timeuuid', async () => {
  await client.execute(`INSERT INTO user_events_by_day (
    user_id, bucket_date, event_time, event_id,
    event_type, payload
) VALUES (
    'u-1001', '2025-03-08', '2025-03-08 10:15:00+0000',
    now(), 'login', '{"ip":"203.0.113.10"}'
);`);
  await client.execute(`INSERT INTO device_events_by_day (
    device_id, bucket_date, event_time, event_id,
    event_type, payload
) VALUES (
    'device-9', '2025-03-08', '2025-03-08 10:15:00+0000',
    now(), 'login', '{"ip":"203.0.113.10"}'
);`);
  await client.execute(`INSERT INTO user_events_by_day (
    user_id, bucket_date, event_time, event_id,
    event_type, payload
) VALUES (
    'u-1001', '2025-03-08', '2025-03-08 10:15:00+0000',
    8d7c3f20-0b7b-11f0-8f1e-000000000001,
    'login', '{"ip":"203.0.113.10"}'
);`);
  const rows = (await client.execute("SELECT event_id, payload FROM user_events_by_day WHERE user_id = 'u-1001' AND bucket_date = '2025-03-08'")).rows;
  assert.equal(rows.length, 2);
  assert.equal(rows[0].event_id.toString(), '8d7c3f20-0b7b-11f0-8f1e-000000000001');
  assert.ok(rows[1].event_id instanceof TimeUuid);
  assert.ok(rows[1].event_id.getDate() > rows[0].event_id.getDate());
  assert.equal(rows[0].payload, '{"ip":"203.0.113.10"}');
});

test('7.1 range and 7.2 latest', async () => {
  const want = await fillDay('u-71');
  let rs = await client.execute(`SELECT event_time, event_id, event_type
FROM user_events_by_day
WHERE user_id = 'u-71'
  AND bucket_date = '2025-03-08'
  AND event_time >= '2025-03-08 00:00:00+0000'
  AND event_time <  '2025-03-09 00:00:00+0000'
LIMIT 100;`);
  assert.deepEqual(pairs(rs.rows), plain(want));
  rs = await client.execute(`SELECT event_time, event_id, event_type, payload
FROM user_events_by_day
WHERE user_id = 'u-71'
  AND bucket_date = '2025-03-08'
LIMIT 20;`);
  assert.deepEqual(pairs(rs.rows), plain(want.slice(0, 20)));
});

test('7.3 skipping a clustering column', async () => {
  await fillDay('u-73');
  const target = timeUuid(at(5, 35), 1);
  const q = `SELECT *
FROM user_events_by_day
WHERE user_id = 'u-73'
  AND bucket_date = '2025-03-08'
  AND event_id = ${target}`;
  await assert.rejects(client.execute(q + ';'), (err) => {
    assert.equal(err.code, responseErrorCodes.invalid);
    assert.equal(err.message, 'PRIMARY KEY column "event_id" cannot be restricted as preceding column "event_time" is not restricted');
    return true;
  });
  const rs = await client.execute(q + '\nALLOW FILTERING;');
  assert.deepEqual(pairs(rs.rows), [[at(5, 35).getTime(), target.toString()]]);
});

test('7.4 no partition key', async () => {
  await fillDay('u-74');
  await assert.rejects(client.execute("SELECT *\nFROM user_events_by_day\nWHERE event_type = 'login';"), (err) => {
    assert.equal(err.code, responseErrorCodes.invalid);
    assert.equal(err.message, FILTERING);
    return true;
  });
  const rows = (await client.execute("SELECT user_id, event_type FROM user_events_by_day WHERE event_type = 'login' ALLOW FILTERING")).rows;
  assert.ok(rows.some((r) => r.user_id === 'u-74'));
  assert.ok(rows.every((r) => r.event_type === 'login'));
});

test('login_events_by_day', async () => {
  const times = [at(9), at(1), at(17), at(4)];
  for (const [i, t] of times.entries()) {
    await client.execute('INSERT INTO login_events_by_day (bucket_date, event_time, event_id, user_id, payload) VALUES (?, ?, ?, ?, ?)',
      ['2025-03-08', t, timeUuid(t, 1), `u-${i}`, '{}'], prepared);
  }
  const rows = (await client.execute("SELECT user_id FROM login_events_by_day WHERE bucket_date = '2025-03-08'")).rows;
  assert.deepEqual(rows.map((r) => r.user_id), ['u-1', 'u-3', 'u-0', 'u-2']);
});

test('hour buckets, fanned out and merged', async () => {
  const all = [];
  for (let m = 0; m < 240; m += 13) {
    const t = new Date(at(9).getTime() + m * 60000 + 17000);
    const bucket = new Date(Math.floor(t.getTime() / 3600000) * 3600000);
    const id = timeUuid(t, 1);
    await client.execute('INSERT INTO user_events_by_hour (user_id, bucket_hour, event_time, event_id, event_type, payload) VALUES (?, ?, ?, ?, ?, ?)',
      ['u-1001', bucket, t, id, 'view', ''], prepared);
    all.push([t, id]);
  }
  all.sort(descAsc);
  const inHours = (lo, hi) => plain(all.filter(([t]) => t.getUTCHours() >= lo && t.getUTCHours() <= hi));
  const rs = await client.execute(`SELECT *
FROM user_events_by_hour
WHERE user_id = 'u-1001'
  AND bucket_hour = '2025-03-08 10:00:00+0000'
LIMIT 100;`);
  assert.deepEqual(pairs(rs.rows), inHours(10, 10));
  const parts = await Promise.all([10, 11, 12].map((h) =>
    client.execute('SELECT event_time, event_id FROM user_events_by_hour WHERE user_id = ? AND bucket_hour = ?', ['u-1001', at(h)], prepared)));
  const merged = parts.flatMap((p) => p.rows).sort((a, b) => b.event_time - a.event_time);
  assert.deepEqual(pairs(merged), inHours(10, 12));
});

test('room_events with 16 buckets', async () => {
  const written = [];
  for (let i = 0; i < 100; i++) {
    const t = new Date(at(20).getTime() + i * 7000);
    const id = timeUuid(t, i);
    const bucket = crypto.createHash('md5').update(id.getBuffer()).digest()[0] % 16; // hash(event_id) % 16
    await client.execute('INSERT INTO room_events (room_id, bucket, event_time, event_id, payload) VALUES (?, ?, ?, ?, ?)',
      ['room-9', bucket, t, id, 'msg'], prepared);
    written.push({ t, id, bucket });
  }
  const parts = await Promise.all(Array.from({ length: 16 }, (_, b) =>
    client.execute('SELECT bucket, event_time, event_id FROM room_events WHERE room_id = ? AND bucket = ?', ['room-9', b], prepared)));
  parts.forEach((rs, b) => {
    assert.deepEqual(pairs(rs.rows), written.filter((w) => w.bucket === b).map((w) => [w.t.getTime(), w.id.toString()]));
  });
  const merged = parts.flatMap((p) => p.rows).sort((a, b) => a.event_time - b.event_time);
  assert.deepEqual(pairs(merged), written.map((w) => [w.t.getTime(), w.id.toString()]));
  assert.equal(new Set(written.map((w) => w.bucket)).size, 16);
});

test('orders_by_customer and paid_orders_by_customer', async () => {
  const orders = [];
  for (let i = 0; i < 12; i++) {
    const o = { id: Uuid.random(), status: i % 3 === 0 ? 'PAID' : 'PENDING', created: at(8, i) };
    orders.push(o);
    await client.execute('INSERT INTO orders_by_customer (customer_id, order_id, status, created_at) VALUES (?, ?, ?, ?)',
      ['c-1', o.id, o.status, o.created], prepared);
    if (o.status === 'PAID') {
      await client.execute('INSERT INTO paid_orders_by_customer (customer_id, created_at, order_id) VALUES (?, ?, ?)',
        ['c-1', o.created, o.id], prepared);
    }
  }
  await assert.rejects(client.execute("SELECT order_id FROM orders_by_customer WHERE customer_id = 'c-1' AND status = 'PAID'"),
    (err) => err.code === responseErrorCodes.invalid && err.message === FILTERING);
  const paid = orders.filter((o) => o.status === 'PAID');
  let rows = (await client.execute("SELECT order_id FROM orders_by_customer WHERE customer_id = 'c-1' AND status = 'PAID' ALLOW FILTERING")).rows;
  assert.deepEqual(rows.map((r) => r.order_id.toString()).sort(), paid.map((o) => o.id.toString()).sort());
  rows = (await client.execute("SELECT created_at, order_id FROM paid_orders_by_customer WHERE customer_id = 'c-1'")).rows;
  assert.deepEqual(rows.map((r) => r.order_id.toString()), paid.map((o) => o.id.toString()));
});

test('logged batch across two query tables', async () => {
  const id = timeUuid(at(13, 30), 42);
  await client.batch([
    { query: INSERT_USER_DAY, params: ['u-batch', '2025-03-08', at(13, 30), id, 'purchase', '{}'] },
    {
      query: 'INSERT INTO device_events_by_day (device_id, bucket_date, event_time, event_id, event_type, payload) VALUES (?, ?, ?, ?, ?, ?)',
      params: ['device-batch', '2025-03-08', at(13, 30), id, 'purchase', '{}'],
    },
  ], { prepare: true, logged: true });
  for (const [table, col, key] of [['user_events_by_day', 'user_id', 'u-batch'], ['device_events_by_day', 'device_id', 'device-batch']]) {
    const rs = await client.execute(`SELECT event_time, event_id, event_type FROM ${table} WHERE ${col} = ? AND bucket_date = ?`, [key, '2025-03-08'], prepared);
    assert.deepEqual(pairs(rs.rows), [[at(13, 30).getTime(), id.toString()]]);
    assert.equal(rs.first().event_type, 'purchase');
  }
});

test('logged batch as prepared CQL text', async () => {
  // Cassandra prepares a BEGIN BATCH text since 1.2 (CASSANDRA-4202).
  const id = timeUuid(at(13, 31), 43);
  const query = `BEGIN BATCH
  INSERT INTO user_events_by_day (user_id, bucket_date, event_time, event_id, event_type, payload)
    VALUES ('u-batch-text', '2025-03-08', '2025-03-08 13:31:00+0000', ?, 'refund', '{}');
  INSERT INTO device_events_by_day (device_id, bucket_date, event_time, event_id, event_type, payload)
    VALUES ('device-batch-text', '2025-03-08', '2025-03-08 13:31:00+0000', ?, 'refund', '{}');
APPLY BATCH;`;
  await client.execute(query, [id, id], prepared);
  const rs = await client.execute("SELECT event_id FROM device_events_by_day WHERE device_id = 'device-batch-text' AND bucket_date = '2025-03-08'");
  assert.equal(rs.first().event_id.toString(), id.toString());
});

test('tuple cursor paging', async () => {
  const want = [];
  for (let i = 0; i < 53; i++) {
    const t = new Date(at(0).getTime() + 17 * i * 60000);
    const id = timeUuid(t, i);
    await client.execute(INSERT_USER_DAY, ['u-cursor', '2025-03-08', t, id, 'e', ''], prepared);
    want.push([t, id]);
  }
  want.sort(descAsc);
  const seen = [];
  let page = (await client.execute("SELECT event_time, event_id FROM user_events_by_day WHERE user_id = 'u-cursor' AND bucket_date = '2025-03-08' LIMIT 10")).rows;
  while (page.length > 0) {
    assert.ok(page.length <= 10);
    seen.push(...page);
    const last = page[page.length - 1];
    page = (await client.execute(`SELECT event_time, event_id
FROM user_events_by_day
WHERE user_id = 'u-cursor'
  AND bucket_date = '2025-03-08'
  AND (event_time, event_id) < (?, ?)
LIMIT 10;`, [last.event_time, last.event_id], prepared)).rows;
  }
  assert.deepEqual(pairs(seen), plain(want));
});

test('IN on partition key parts', async () => {
  const want = {};
  for (const day of [7, 8, 9, 10]) {
    const date = `2025-03-${String(day).padStart(2, '0')}`;
    want[date] = [];
    for (const h of [3, 15, 9]) {
      const t = at(h, 0, 0, day);
      const id = timeUuid(t, day);
      await client.execute(INSERT_USER_DAY, ['u-in', date, t, id, 'e', ''], prepared);
      want[date].push([t, id]);
    }
    want[date].sort(descAsc);
  }
  const rs = await client.execute('SELECT bucket_date, event_time, event_id FROM user_events_by_day WHERE user_id = ? AND bucket_date IN (?, ?, ?)',
    ['u-in', '2025-03-09', '2025-03-07', '2025-03-10'], prepared);
  const got = {};
  for (const r of rs.rows) {
    (got[r.bucket_date.toString()] ||= []).push(r);
  }
  // Partitions may come in any order; within each the clustering order holds.
  assert.deepEqual(Object.keys(got).sort(), ['2025-03-07', '2025-03-09', '2025-03-10']);
  for (const [date, rows] of Object.entries(got)) {
    assert.deepEqual(pairs(rows), plain(want[date]));
  }
});
