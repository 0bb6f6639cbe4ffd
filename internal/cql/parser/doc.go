// Package parser turns CQL text into ast statements. It follows Cassandra
// 5.0's grammar (src/antlr/Lexer.g, Parser.g, Cql.g) with a hand-written
// lexer and a recursive-descent parser whose functions each quote the rule
// they implement. Syntax errors carry Cassandra's ANTLR-style text
// (src/java/org/apache/cassandra/cql3/ErrorCollector.java), for example
//
//	line 1:9 mismatched input 'FORM' expecting K_FROM (SELECT * [FORM]...)
//
// and the messages Cassandra's grammar actions report while parsing
// ("Bind variables cannot be used for table names", "Multiple definition
// for property x", ...). Checks that need the schema, and those Cassandra
// makes as InvalidRequest while building a CREATE TABLE (duplicate columns,
// several PRIMARY KEYs), are left to the planner. Literals are not
// converted: terms stay syntactic.
//
// Statements outside Partita's scope (roles, permissions, functions,
// aggregates, materialized views, triggers, identities) parse to
// ast.Unsupported without further checking.
//
// Invariants:
//
//  1. Parse, ParseAll and Split never panic. Every error is a *cqlerr.Error
//     with code SyntaxError. (Internally a failure unwinds with a panic
//     that run recovers; it never leaves the package. A panic from a bug
//     would surface as a Server error, which the fuzz test rejects.)
//  2. No tree is deeper than 64 nested levels of collections, tuples,
//     function calls, casts, types, parenthesised relations, negations or
//     chained operators: deeper input is a syntax error, so code that
//     recurses over a parsed tree cannot exhaust the stack.
//  3. The statement's canonical form (ast Format) parses back to an equal
//     tree, positions aside; the tests check this over the testdata corpus
//     and under fuzzing.
//  4. Bind markers are numbered from 0 in order of appearance within each
//     statement; a repeated USING option that would drop a marker is an
//     error, so every number is in the tree.
//  5. A keyword is reserved exactly when Cassandra 5.0 reserves it
//     (reserved_keywords.txt); the others work unquoted as names wherever
//     Parser.g allows them, and ast.IsReservedWord agrees with the table.
//
// Known differences from Cassandra: a trailing `--` or `//` comment needs
// no final newline; SCHEMA is accepted for KEYSPACE in CREATE, ALTER and
// DROP; the error snippet ends at the offending token, where ANTLR ends it
// at the furthest token its lookahead read.
package parser
