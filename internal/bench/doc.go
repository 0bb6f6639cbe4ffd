// Package bench is the benchmark harness behind `partita-bench` (which
// `partita bench` runs): it drives Partita through a real driver (gocql, prepared statements, a fixed number
// of requests in flight) with the workloads of the seed documents, runs the
// same requests against PostgreSQL (through pgx), against Apache Cassandra
// 5.0 (the same CQL through the same gocql settings, on a node started with
// scripts/cassandra.sh) and, for writes, against raw Pebble, and reports
// throughput, HDR latency percentiles and the ratios between them as a
// table, JSON and charts.
//
// By default the Partita under test is `partita serve` in a child process
// (serverproc.go), so that the server's CPU time, heap allocations and
// resident set are read apart from the driver's, before and after every
// step (meter.go: /proc/<pid>/stat and the server's /metrics); Options.
// InProcess runs it inside this process instead (server.go).
//
// The numbers of one run are only comparable with each other: the machines
// this runs on are shared, so the figures that matter are ratios measured
// side by side in one run. It reports; it does not judge: a missed target is
// a line in the report, not a failure.
//
// Options.Target TargetGateway puts Partita under test as a gateway over an
// Apache Cassandra node (`serve --backend cassandra`, gateway.go) and runs
// the same workloads directly against that node, step by step, each timed
// read in rounds that alternate which system goes first: the figures that
// matter are the ratios gateway ÷ direct (targets_gateway.go).
//
// Layout: options.go (flags and sizes), workloads.go, wide.go,
// tombstones.go, lwt.go and split.go (the workloads as data: tables and
// steps), splitwatch.go (what the split workload asks the server's
// system_partita tables), runner.go (driving a step),
// partita.go (any CQL server: Partita, a Cassandra peer), postgres.go,
// cassandra.go and cassandrapeer.go (the Cassandra node and peer), and
// pebblefloor.go (the systems), gateway.go (the gateway target's node,
// keyspaces and interleaved runs), proc.go (the server processes it starts),
// serverproc.go (the Partita server process and its restart), meter.go
// (the server's CPU time and allocations per step), server.go (the
// in-process node and its restart), report.go, targets.go,
// targets_cassandra.go, targets_gateway.go and charts.go (the output).
//
// Invariants:
//  1. Every request's arguments are a pure function of the workload, the
//     step and the request's index, so every system receives the same rows
//     and the same reads. One exception: the split workload's 8-children
//     range is read from Partita's split, which runs first (invariant 2);
//     the other systems read that same range.
//  2. Each system runs a workload's steps in the same order, alone: the next
//     system starts only after the previous one finished the workload and,
//     for a Cassandra peer, its compactions (settler; bounded by a timeout
//     that is logged, not failed). The periodic-commit-log Cassandra runs
//     only the steps that write. The gateway target interleaves by step
//     instead: a step runs on the gateway and on the direct system, one
//     after the other, before the next step starts, and the node's
//     compactions are waited for after each write step.
//  3. While a step has requests left, exactly its concurrency (Options.
//     Concurrency, or 1 for a lone DELETE and for the split workload's
//     whole 8-children range) of them are in flight: one per
//     worker, each sending its next request when the last one is answered.
//     A worker records its latencies in its own histogram, merged when the
//     step ends.
//  4. A request that fails ends its step and marks the workload failed; the
//     run then exits non-zero. Figures are never reported for a step that
//     did not complete. One exception: in a timed step, a server's reply
//     that it gave up on the request (ReadTimeout, WriteTimeout,
//     ReadFailure, WriteFailure) is counted (Result.ServerErrors) and its
//     latency recorded, and the step goes on; in a counted step (all of
//     them write, idempotently) such a request is sent again, up to 5
//     attempts (Result.Resent).
//  5. The harness installs nothing itself: PostgreSQL is used only when its
//     server binaries are already present, in a throwaway cluster it
//     deletes; Cassandra only through scripts/cassandra.sh (whose install
//     resolves its jars into the user's cache, a no-op once they are
//     there), in a throwaway node directory it deletes.
//  6. No server it starts outlives it: Run stops PostgreSQL, the
//     Cassandra nodes and the Partita server process before returning, on errors and on interrupt
//     (context cancellation) too, and the kernel kills them if the harness
//     dies without doing so (Pdeathsig, from a thread that lives as long
//     as the server: proc.go).
package bench
