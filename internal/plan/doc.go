// Package plan turns a parsed statement into a plan: plain data that says
// what to read or write, with every name resolved against one schema
// snapshot, every literal converted to its column's type, every bind
// marker typed, and every rule of Cassandra's restriction analysis
// (cql3/restrictions/StatementRestrictions.java) checked, with Cassandra's
// messages. Package exec runs plans; nothing here touches data.
//
// Invariants:
//  1. A plan never changes after it is built and may be executed many
//     times, concurrently, with different bound values.
//  2. Terms are typed by their receiver (the column or parameter that takes
//     them), exactly as Cassandra prepares terms against a receiver.
//  3. Bind variables are numbered in order of appearance; each has the
//     column specification a PREPARE result reports for it.
//  4. A statement that Cassandra rejects is rejected here, before any data
//     is read or written.
package plan
