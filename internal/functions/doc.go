// Package functions holds CQL's native scalar functions (cql3/functions in
// Cassandra): their names, overloads, return types and implementations.
// Package plan resolves a call to one overload; package exec runs it.
//
// Invariants:
//  1. An implementation receives serialized arguments of exactly its
//     declared types (nil for null) and returns a serialized value of its
//     return type; it never panics on any input.
//  2. Non-deterministic functions (now(), uuid(), current*()) are marked so
//     the planner never folds them into constants.
package functions
