'use strict';

// Driver paging: 1,000 rows with fetchSize 7, each row seen exactly once.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { cassandra, freshKeyspace, prepared } = require('./partita');

const ROWS = 1000;
const FETCH = 7;
let client;

before(async () => {
  client = await freshKeyspace('node_paging');
  await client.execute('CREATE TABLE paging_one (p int, c int, v text, PRIMARY KEY (p, c))');
  await client.execute('CREATE TABLE paging_many (p int, c int, v text, PRIMARY KEY (p, c))');
  const order = Array.from({ length: ROWS }, (_, i) => (i * 389) % ROWS); // shuffled
  await cassandra.concurrent.executeConcurrent(client,
    'INSERT INTO paging_one (p, c, v) VALUES (1, ?, ?)', order.map((c) => [c, `v${c}`]), { concurrencyLevel: 32 });
  await cassandra.concurrent.executeConcurrent(client,
    'INSERT INTO paging_many (p, c, v) VALUES (?, ?, ?)', order.map((c) => [Math.floor(c / 10), c % 10, `v${c}`]), { concurrencyLevel: 32 });
});

after(async () => {
  await client?.shutdown();
});

const range = (n) => Array.from({ length: n }, (_, i) => i);

/** Reads page by page through pageState, checking every page's size. */
async function pages(query, params, options = {}) {
  const out = [];
  let pageState;
  for (;;) {
    const rs = await client.execute(query, params, { ...options, fetchSize: FETCH, pageState });
    assert.ok(rs.rowLength <= FETCH, `page of ${rs.rowLength} rows`);
    out.push(rs.rows);
    if (!rs.pageState) {
      return out;
    }
    assert.ok(rs.rowLength > 0, 'an empty page announced more pages');
    pageState = rs.pageState;
  }
}

test('async iteration over one partition', async () => {
  const rs = await client.execute('SELECT c, v FROM paging_one WHERE p = ?', [1], { prepare: true, fetchSize: FETCH });
  const got = [];
  for await (const row of rs) {
    got.push(row.c);
  }
  assert.deepEqual(got, range(ROWS));
});

test('eachRow with autoPage', async () => {
  const got = [];
  await new Promise((resolve, reject) => {
    client.eachRow('SELECT c FROM paging_one WHERE p = 1', [], { fetchSize: FETCH, autoPage: true },
      (_, row) => got.push(row.c), (err) => (err ? reject(err) : resolve()));
  });
  assert.deepEqual(got, range(ROWS));
});

test('explicit page states', async () => {
  const ps = await pages('SELECT c FROM paging_one WHERE p = 1', []);
  assert.ok(ps.length >= Math.floor(ROWS / FETCH));
  assert.deepEqual(ps.flat().map((r) => r.c), range(ROWS));
});

test('prepared and descending', async () => {
  const ps = await pages('SELECT c FROM paging_one WHERE p = ? ORDER BY c DESC', [1], prepared);
  assert.deepEqual(ps.flat().map((r) => r.c), range(ROWS).reverse());
});

test('with a LIMIT', async () => {
  const ps = await pages('SELECT c FROM paging_one WHERE p = 1 AND c >= 100 LIMIT 50', []);
  assert.deepEqual(ps.flat().map((r) => r.c), range(50).map((i) => i + 100));
});

test('full scan across partitions', async () => {
  const rows = [];
  for await (const row of await client.execute('SELECT token(p), p, c FROM paging_many', [], { fetchSize: FETCH })) {
    rows.push(row);
  }
  assert.equal(rows.length, ROWS);
  const keys = new Set(rows.map((r) => `${r.p}/${r.c}`));
  assert.equal(keys.size, ROWS, 'a row was returned twice');
  const tokens = rows.map((r) => r['system.token(p)']);
  for (let i = 1; i < tokens.length; i++) {
    assert.ok(tokens[i - 1].lessThanOrEqual(tokens[i]), 'partitions in token order');
  }
});
