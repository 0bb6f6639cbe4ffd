'use strict';

// Connection helpers shared by the Node.js driver suite.
//
// The suite talks to a node at PARTITA_HOST (default 127.0.0.1) and
// PARTITA_PORT (default 9042) through cassandra-driver with its default
// settings: only the contact point, the port and the local data center are
// given. node --test runs each file in its own process, possibly at the same
// time as others, so every file works in a keyspace of its own.

const cassandra = require('cassandra-driver');

const host = process.env.PARTITA_HOST || '127.0.0.1';
const port = Number(process.env.PARTITA_PORT || '9042');

/** A client with the driver's defaults, pointed at the node under test. */
function newClient(keyspace) {
  const options = {
    contactPoints: [host],
    localDataCenter: 'datacenter1',
    protocolOptions: { port },
  };
  if (keyspace) {
    options.keyspace = keyspace;
  }
  return new cassandra.Client(options);
}

/**
 * Drops and recreates keyspace, then returns a connected client using it.
 * @param {string} keyspace
 */
async function freshKeyspace(keyspace) {
  const admin = newClient();
  try {
    await admin.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
    await admin.execute(
      `CREATE KEYSPACE ${keyspace} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
  } finally {
    await admin.shutdown();
  }
  const client = newClient(keyspace);
  await client.connect();
  return client;
}

/**
 * Polls predicate every 100 ms until it returns truthy or timeoutMs passes.
 * The default bounds a lost schema event, not an expected delay (the driver
 * refreshes its metadata about a second after the event; a loaded machine
 * only makes that longer), so it is generous.
 */
async function waitFor(predicate, timeoutMs = 60000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await predicate();
    if (value || Date.now() >= deadline) {
      return value;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A deterministic version-1 uuid for date (ms precision) and a clock sequence. */
function timeUuid(date, seq) {
  const node = Buffer.from([0, 0, 0, 0, 0, 0xa1]);
  const clock = Buffer.from([0x80 | ((seq >> 8) & 0x3f), seq & 0xff]);
  return cassandra.types.TimeUuid.fromDate(date, 0, node, clock);
}

const prepared = { prepare: true };

module.exports = { cassandra, host, port, newClient, freshKeyspace, waitFor, timeUuid, prepared };
