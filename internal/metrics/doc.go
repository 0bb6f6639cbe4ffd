// Package metrics owns the process's Prometheus registry and the metrics of
// the CQL server, and serves them for /metrics.
//
// Other packages add their own collectors to the same registry
// (Metrics.Registry.MustRegister), so one scrape shows everything.
//
// Invariants:
//  1. Every metric name starts with "partita_"; the server's start with
//     "partita_cql_".
//  2. Label values come from small fixed sets (opcode names, error codes),
//     never from client input, so cardinality stays bounded.
package metrics
