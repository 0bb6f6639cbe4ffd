// Command partita runs and manages a Partita node. It only wires packages
// together: configuration (internal/config), storage, engine, the CQL
// server and the HTTP endpoints for /healthz and /metrics.
//
// Each subcommand lives in a file of its own (serve.go, version.go);
// root.go lists them. `partita bench` only runs the benchmark harness,
// cmd/partita-bench (bench.go), so that this binary links none of the
// harness's clients and charts.
//
// partita serve starts, in order: the HTTP listener (so /healthz answers
// 503 "not serving" while starting), the storage, the CQL listener, the
// engine and the CQL server, then logs one line containing
// "CQL listening on <host:port>" with the bound address. The CQL listener
// is bound before the engine opens because system.local must report the
// address and port clients really dial. SIGINT or SIGTERM stops the CQL
// server (in-flight requests finish, up to 30 s), then the engine, then
// the storage, and the process exits 0.
package main
