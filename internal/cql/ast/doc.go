// Package ast holds the syntax tree of CQL statements as plain data: what
// internal/cql/parser produces and internal/plan consumes. Nodes are
// syntactic; names are not resolved, literals are not converted to values
// and types are not checked. Every node prints itself as canonical CQL with
// Format/String.
//
// Invariants:
//
//  1. Round trip: for every statement s the parser accepts, parsing
//     s.String() yields a tree equal to s except for positions.
//  2. Every node carries the Pos of its first token (zero for nodes the
//     parser did not produce).
//  3. Identifiers are stored as Cassandra compares them: unquoted names
//     lower-cased, quoted names verbatim with "" unescaped. Format quotes a
//     name whenever printing it bare would change its meaning.
//  4. Value positions (VALUES, SET right-hand sides, WHERE and IF values,
//     USING, LIMIT, property values) hold only value expressions: Literal,
//     Null, BindMarker, FunctionCall, TypeCast, Cast, collection, UDT and
//     tuple literals, Negation, BinaryOp and, after IN, InList. The
//     selector-only nodes (ColumnRef, CountRows, WriteTimeOrTTL, FieldAccess,
//     ElementAccess, SliceAccess) appear only inside Select.Selectors and
//     Select.GroupBy.
//  5. BindMarker.Index numbers the markers of one statement 0, 1, 2, ... in
//     order of appearance, as Cassandra numbers bind variables; a BATCH
//     numbers across all of its statements.
//  6. The package imports nothing from Partita.
package ast
