'use strict';

// Every scalar CQL type round-trips through prepared statements, and null.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { cassandra, freshKeyspace, timeUuid, prepared } = require('./partita');

const { Uuid, Long, Integer, BigDecimal, LocalDate, LocalTime, Duration, InetAddress } = cassandra.types;
let client;

const COLUMNS = [
  ['c_ascii', 'ascii'], ['c_text', 'text'], ['c_varchar', 'varchar'], ['c_int', 'int'], ['c_bigint', 'bigint'],
  ['c_smallint', 'smallint'], ['c_tinyint', 'tinyint'], ['c_varint', 'varint'], ['c_decimal', 'decimal'],
  ['c_float', 'float'], ['c_double', 'double'], ['c_boolean', 'boolean'], ['c_uuid', 'uuid'],
  ['c_timeuuid', 'timeuuid'], ['c_timestamp', 'timestamp'], ['c_date', 'date'], ['c_time', 'time'],
  ['c_duration', 'duration'], ['c_blob', 'blob'], ['c_inet', 'inet'],
];
const NAMES = COLUMNS.map(([n]) => n);
const INSERT = `INSERT INTO all_types (k, ${NAMES.join(', ')}) VALUES (?${', ?'.repeat(NAMES.length)})`;
const SELECT = `SELECT ${NAMES.join(', ')} FROM all_types WHERE k = ?`;

const TYPICAL = {
  c_ascii: 'plain ascii ~!',
  c_text: 'text: 中文, émoji 🎉',
  c_varchar: 'varchar too',
  c_int: 123456,
  c_bigint: Long.fromString('1234567890123'),
  c_smallint: -1234,
  c_tinyint: 42,
  c_varint: Integer.fromString('12345678901234567890123456789'),
  c_decimal: BigDecimal.fromString('-12345.678901234567890'),
  c_float: 1.5,
  c_double: Math.PI,
  c_boolean: true,
  c_uuid: Uuid.fromString('5d8b7a62-0d64-4b1c-9a8e-2f1b7f2a9c01'),
  c_timeuuid: timeUuid(new Date(Date.UTC(2025, 2, 8, 10, 15)), 7),
  c_timestamp: new Date(Date.UTC(2026, 0, 20, 6, 0, 0, 123)),
  c_date: LocalDate.fromString('2026-01-20'),
  c_time: LocalTime.fromString('23:59:58.999999999'),
  c_duration: new Duration(14, 3, Long.fromString('14400000000005')),
  c_blob: Buffer.from([0, 1, 0xfe, 0xff, 0x62]),
  c_inet: InetAddress.fromString('192.0.2.10'),
};

const EXTREMES = {
  c_ascii: '',
  c_text: '',
  c_varchar: `'quoted' "and" \\ back`,
  c_int: -2147483648,
  c_bigint: Long.MAX_VALUE,
  c_smallint: 32767,
  c_tinyint: -128,
  c_varint: Integer.fromString('-1606938044258990275541962092341162602522202993782792835301375'),
  c_decimal: BigDecimal.fromString('0.000000000000000000000000000001'),
  c_float: -Infinity,
  c_double: -Number.MAX_VALUE,
  c_boolean: false,
  c_uuid: Uuid.fromString('00000000-0000-0000-0000-000000000000'),
  c_timeuuid: timeUuid(new Date(Date.UTC(1970, 0, 1, 0, 0, 1)), 0x3fff),
  c_timestamp: new Date(Date.UTC(1900, 0, 1)),
  c_date: LocalDate.fromString('0001-01-01'),
  c_time: LocalTime.fromString('00:00:00'),
  c_duration: new Duration(-1, -2, Long.fromNumber(-3)),
  c_blob: Buffer.alloc(0),
  c_inet: InetAddress.fromString('2001:db8::ff00:42:8329'),
};

/** A comparable form of a driver value. */
function norm(v) {
  if (v === null || v === undefined) {
    return null;
  }
  if (Buffer.isBuffer(v)) {
    return `blob:${v.toString('hex')}`;
  }
  if (v instanceof Date) {
    return `date:${v.getTime()}`;
  }
  if (typeof v === 'object') {
    return `${v.constructor.name}:${v.toString()}`;
  }
  return v;
}

before(async () => {
  client = await freshKeyspace('node_types');
  await client.execute(`CREATE TABLE all_types (k int PRIMARY KEY, ${COLUMNS.map((c) => c.join(' ')).join(', ')})`);
});

after(async () => {
  await client?.shutdown();
});

async function roundTrip(k, values) {
  await client.execute(INSERT, [k, ...NAMES.map((n) => values[n])], prepared);
  // Prepared, and as a plain QUERY (with the key inlined: unprepared, the
  // driver would send a JS number as a double).
  const reads = [
    ['prepared', await client.execute(SELECT, [k], prepared)],
    ['query', await client.execute(SELECT.replace('?', String(k)))],
  ];
  for (const [how, rs] of reads) {
    const row = rs.first();
    for (const n of NAMES) {
      assert.deepEqual(norm(row[n]), norm(values[n]), `${n} (${how})`);
    }
  }
}

test('typical values', async () => {
  await roundTrip(1, TYPICAL);
});

test('extreme values', async () => {
  await roundTrip(2, EXTREMES);
});

test('nulls', async () => {
  const nulls = Object.fromEntries(NAMES.map((n) => [n, null]));
  await roundTrip(3, nulls);
  await client.execute('INSERT INTO all_types (k) VALUES (4)');
  const row = (await client.execute(SELECT, [4], prepared)).first();
  for (const n of NAMES) {
    assert.equal(row[n], null, n);
  }
  await roundTrip(5, TYPICAL);
  await roundTrip(5, nulls); // null overwrites a value
});

test('undefined is unset and leaves a column untouched', async () => {
  const insert = 'INSERT INTO all_types (k, c_text, c_int) VALUES (?, ?, ?)';
  await client.execute(insert, [8, 'kept', 1], prepared);
  await client.execute(insert, [8, undefined, 2], prepared); // protocol "not set" (-2)
  const row = (await client.execute('SELECT c_text, c_int FROM all_types WHERE k = 8')).first();
  assert.deepEqual([row.c_text, row.c_int], ['kept', 2]);
});

test('NaN and Infinity', async () => {
  await client.execute('INSERT INTO all_types (k, c_float, c_double) VALUES (?, ?, ?)', [6, NaN, Infinity], prepared);
  const row = (await client.execute('SELECT c_float, c_double FROM all_types WHERE k = 6')).first();
  assert.ok(Number.isNaN(row.c_float));
  assert.equal(row.c_double, Infinity);
});

test('result metadata carries the column types', async () => {
  const rs = await client.execute(SELECT, [1], prepared);
  const { dataTypes } = cassandra.types;
  const codes = rs.columns.map((c) => c.type.code);
  const want = [dataTypes.ascii, dataTypes.varchar, dataTypes.varchar, dataTypes.int, dataTypes.bigint,
    dataTypes.smallint, dataTypes.tinyint, dataTypes.varint, dataTypes.decimal, dataTypes.float, dataTypes.double,
    dataTypes.boolean, dataTypes.uuid, dataTypes.timeuuid, dataTypes.timestamp, dataTypes.date, dataTypes.time,
    dataTypes.custom, dataTypes.blob, dataTypes.inet];
  assert.deepEqual(codes, want);
  // v4 has no duration type id: Cassandra labels it a custom type.
  assert.equal(rs.columns[17].type.info, 'org.apache.cassandra.db.marshal.DurationType');
});
