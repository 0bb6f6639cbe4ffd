// Command partita-bench is the benchmark harness (internal/bench): the seed
// documents' workloads through gocql against Partita, side by side with
// PostgreSQL, Apache Cassandra and raw Pebble.
//
// It is a command of its own so that the server binary (cmd/partita) neither
// compiles nor links the harness's clients and plotting libraries (pgx,
// gonum/plot, the HDR histograms, the progress bars); `partita bench` runs
// this command (cmd/partita/bench.go).
//
// By default (--server-process) the harness builds cmd/partita, or takes
// --server-bin, and starts `partita serve` as a child process with its own
// data directory and ports, so that the server's CPU time, allocations and
// resident set are measured apart from the driver's. --in-process runs the
// server inside the harness instead, and --cql-addr targets a running one.
package main
