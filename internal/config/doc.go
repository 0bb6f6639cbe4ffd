// Package config reads the node's YAML configuration file and maps it onto
// the configurations of the engine and the CQL server.
//
// Option names follow cassandra.yaml wherever Cassandra has the option, so
// that an operator's habits and snippets carry over; the rest are Partita's
// own. Sizes are written as Cassandra 4.1 writes them: a non-negative
// integer and a unit, B, KiB, MiB or GiB, case sensitive ("16MiB"); only 0
// may omit the unit (config/DataStorageSpec.java).
//
// Invariants:
//  1. An unknown option is an error that names it: a misspelt option is
//     never silently ignored.
//  2. A Config returned by Load or Default has passed Validate.
//  3. Options absent from the file (or null) keep their default.
package config
