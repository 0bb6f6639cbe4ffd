// Package functions holds CQL's native scalar functions (cql3/functions in
// Cassandra): their names, overloads, return types and implementations,
// the arithmetic operators (operators.go: + - * / % and unary minus over
// numbers, timestamp and date ± duration, text concatenation, as
// OperationFcts overloads), and casts. Package plan resolves a call or an
// operation to one overload; package exec runs it.
//
// Invariants:
//  1. An implementation receives serialized arguments of exactly its
//     declared types (nil for null) and returns a serialized value of its
//     return type; it never panics on any input.
//  2. Non-deterministic functions (now(), uuid(), current*()) are marked so
//     the planner never folds them into constants.
package functions
