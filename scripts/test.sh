#!/usr/bin/env bash
# Runs every test of the repository on a fresh Debian 12 machine with Go,
# Node.js 20 and npm: installs the Python driver (Debian's python3-cassandra),
# PostgreSQL 15 (the benchmark harness's peer, used by its smoke test), and
# and a Java 17 JDK and Maven (the reference Apache Cassandra and the Java
# driver suite) when they are missing, cqlsh from PyPI into a virtual
# environment, the Node.js driver from test/drivers/node's package-lock.json
# and Cassandra's jars (scripts/cassandra.sh install), then runs go vet and
# go test over the whole module. The Python, Node.js and Java suites run
# inside go test (test/e2e TestPythonDriver, TestNodeDriver, TestJavaDriver),
# each against an in-process node; the reference and differential tests
# (test/reference, test/differential) start Cassandra nodes themselves.
#
# Last, every Go fuzz target runs for FUZZ_TIME (2s) each.
#
# Environment: GO_TEST_FLAGS adds flags to go test (for example -race or
# -run); GO_TEST_TIMEOUT overrides the overall go test timeout (30m);
# FUZZ_TIME sets each fuzz target's time (a go test -fuzztime value).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ -x /usr/local/go/bin/go ]] && ! command -v go >/dev/null; then
	export PATH="/usr/local/go/bin:$PATH"
fi

step() { printf '\n==> %s\n' "$*"; }

# as_root runs a command as root, through sudo only when not root already.
as_root() {
	if [[ $(id -u) -eq 0 ]]; then
		"$@"
	else
		sudo "$@"
	fi
}

missing=()
/usr/bin/python3 -c 'import cassandra' 2>/dev/null || missing+=(python3-cassandra)
/usr/bin/python3 -c 'import lz4.block' 2>/dev/null || missing+=(python3-lz4)
/usr/bin/python3 -c 'import snappy' 2>/dev/null || missing+=(python3-snappy)
[[ -x /usr/lib/postgresql/15/bin/postgres ]] || missing+=(postgresql-15)
command -v javac >/dev/null || missing+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null || missing+=(maven)
command -v chromium >/dev/null || missing+=(chromium)
if ((${#missing[@]} > 0)); then
	step "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	as_root apt-get update -q
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi
/usr/bin/python3 -c 'import cassandra; print("python3-cassandra", cassandra.__version__)'

# cqlsh 6.2 from PyPI with the Python driver 3.30 it needs (Debian's 3.25
# lacks VectorType), in a virtual environment outside the repository.
cqlsh_venv="${PARTITA_CQLSH_VENV:-$HOME/.cache/partita/cqlsh-venv}"
if [[ ! -x "$cqlsh_venv/bin/cqlsh" ]]; then
	step "installing cqlsh 6.2.2 from PyPI into $cqlsh_venv"
	if ! python3 -m venv "$cqlsh_venv"; then
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv
		rm -rf "$cqlsh_venv"
		python3 -m venv "$cqlsh_venv"
	fi
	"$cqlsh_venv/bin/pip" install -q cqlsh==6.2.2
fi
export PARTITA_CQLSH="$cqlsh_venv/bin/cqlsh"

step "installing the Node.js driver (npm ci)"
(cd test/drivers/node && npm ci --no-audit --no-fund)

step "installing Apache Cassandra 5.0.6 for the reference tests (scripts/cassandra.sh install)"
scripts/cassandra.sh install

step "go vet ./..."
go vet ./...

step "go test ./..."
# shellcheck disable=SC2086 # GO_TEST_FLAGS is a list of flags
go test -timeout "${GO_TEST_TIMEOUT:-30m}" ${GO_TEST_FLAGS:-} ./...
# third_party/zstd is a module of its own (go.mod replaces Pebble's cgo
# zstd binding with it), which ./... does not reach.
(cd third_party/zstd && go vet ./... && go test ./...)

# Every Fuzz* target of the module, found by name, for FUZZ_TIME each. Each
# package's test binary is built once with the fuzzing instrumentation
# (go test -c -fuzz) and run once per target in the package's directory,
# with go test's corpus cache, as go test -fuzz would run it. A failing
# target fails the script; its input is saved under the package's
# testdata/fuzz, where plain go test replays it from then on.
fuzz_time="${FUZZ_TIME:-2s}"
step "fuzzing each Fuzz target for $fuzz_time"
fuzz_start=$SECONDS
fuzz_bin=$(mktemp -d)
trap 'rm -rf "$fuzz_bin"' EXIT
fuzz_cache="$(go env GOCACHE)/fuzz"
fuzz_targets=0
# fuzz_target DIR BINARY PACKAGE NAME runs one target. Go 1.26's fuzzing
# coordinator can fail a run with a bare "context deadline exceeded" when
# the fuzz time ends while a worker is busy on a loaded machine
# (go.dev/issue/75804); such a failure, with no failing input written and
# no seed failing, runs once more, and if it ends so again the target is
# counted as fuzzed for its whole time without a finding (CI saw it twice
# in a row). Any other failure fails the script.
fuzz_target() {
	local log="$fuzz_bin/fuzz.log"
	for attempt in 1 2; do
		if (cd "$1" && "$2" -test.run '^$' -test.fuzz "^${4}\$" -test.fuzztime "$fuzz_time" \
			-test.fuzzcachedir "$fuzz_cache/$3") >"$log" 2>&1; then
			cat "$log"
			return 0
		fi
		cat "$log"
		if grep -qE "Failing input written|failure while testing seed corpus" "$log" ||
			! grep -q "context deadline exceeded" "$log"; then
			return 1
		fi
		if ((attempt == 2)); then
			echo "$3 $4: the fuzzing deadline race of go.dev/issue/75804 again, no input written: fuzzed for its time without a finding"
			return 0
		fi
		echo "$3 $4: the fuzzing deadline race of go.dev/issue/75804, no input written; running it again"
	done
}
fuzz_dirs=$(grep -rlE --include='*_test.go' --exclude-dir=node_modules '^func Fuzz[A-Za-z0-9_]+\(' cmd internal test |
	xargs -n1 dirname | sort -u)
for dir in $fuzz_dirs; do
	pkg=$(go list "./$dir")
	bin="$fuzz_bin/${pkg//\//_}.test"
	go test -c -fuzz . -o "$bin" "./$dir"
	for name in $(grep -hoE '^func Fuzz[A-Za-z0-9_]+\(' "$dir"/*_test.go | sed -E 's/^func (Fuzz[A-Za-z0-9_]+)\($/\1/' | sort -u); do
		echo "--- $pkg $name"
		fuzz_target "$dir" "$bin" "$pkg" "$name"
		fuzz_targets=$((fuzz_targets + 1))
	done
done
if ((fuzz_targets == 0)); then
	echo "no Fuzz target found" >&2
	exit 1
fi
echo "fuzzed $fuzz_targets targets in $((SECONDS - fuzz_start)) s"
