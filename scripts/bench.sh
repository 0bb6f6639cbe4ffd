#!/usr/bin/env bash
# Runs the Go benchmarks beside the hot code (frame codec, parser, planner,
# key encoding, merge operator, storage reads and writes, the engine's write
# and read paths, split reads and backfill) in benchstat's input format:
#
#   scripts/bench.sh > new.txt && benchstat old.txt new.txt
#
# Environment: COUNT (default 6) runs of each benchmark, BENCHTIME (default
# 1s), BENCH (default .) a -bench pattern, PKGS the packages (default every
# package under internal/ except the bench harness, whose end-to-end
# workloads run with `go run ./cmd/partita-bench`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [[ -x /usr/local/go/bin/go ]] && ! command -v go >/dev/null; then
	export PATH="/usr/local/go/bin:$PATH"
fi
pkgs=${PKGS:-$(go list ./internal/... | grep -v /internal/bench)}
# shellcheck disable=SC2086 # pkgs is a list
exec go test -run '^$' -bench "${BENCH:-.}" -benchmem -count "${COUNT:-6}" -benchtime "${BENCHTIME:-1s}" $pkgs
