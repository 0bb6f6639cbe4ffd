package bench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/split"
)

// Workload names, in the order `all` runs them.
const (
	WorkloadIoT        = "iot"
	WorkloadUserEvents = "user-events"
	WorkloadHotAsset   = "hot-asset"
	WorkloadWide       = "wide"
	WorkloadTombstones = "tombstones"
	WorkloadLWT        = "lwt"
	WorkloadSplit      = "split"
)

// Workloads lists every workload in the order `all` runs them.
var Workloads = []string{WorkloadIoT, WorkloadUserEvents, WorkloadHotAsset, WorkloadWide, WorkloadTombstones, WorkloadLWT, WorkloadSplit}

// Peer names. Options.Peer lists any of the first three, comma-separated,
// or PeerNone.
const (
	PeerPostgres = "postgres"
	// PeerCassandra is Apache Cassandra 5.0 with commitlog_sync: batch,
	// which acknowledges a write once it is synced, as Partita does: the
	// peer the targets are set against.
	PeerCassandra = "cassandra"
	// PeerCassandraPeriodic is Cassandra's default durability
	// (commitlog_sync: periodic, synced every 10 s): it runs only the
	// steps that write, since reads do not depend on the commit log.
	PeerCassandraPeriodic = "cassandra-periodic"
	PeerNone              = "none"
)

// Targets: what Options.Target puts under test.
const (
	// TargetNode is Partita on its embedded store (the default).
	TargetNode = "node"
	// TargetGateway is Partita as a gateway over an Apache Cassandra node
	// (`serve --backend cassandra`), side by side with the same node read
	// and written directly (gateway.go).
	TargetGateway = "gateway"
)

// gatewayWorkloads are the workloads the gateway target runs by default:
// the seed workloads, then the split workload (through the gateway only).
var gatewayWorkloads = []string{WorkloadIoT, WorkloadUserEvents, WorkloadHotAsset, WorkloadSplit}

// referenceAddrEnv names the environment variable that points tests and
// the gateway target at a running Cassandra node.
const referenceAddrEnv = "PARTITA_REFERENCE_ADDR"

// peerNames are the peers in the order they run, after Partita.
var peerNames = []string{PeerPostgres, PeerCassandra, PeerCassandraPeriodic}

// DefaultCassandraHeap is the Cassandra peer's heap (-Xms and -Xmx): the
// floor of the default heap of Cassandra's cassandra-env.sh, max(min(½
// RAM, 1 GiB), min(¼ RAM, 8 GiB)), which a machine with 2 to 4 GiB gets.
// The machines this runs on would get more, which a benchmark sharing
// them with other jobs cannot spare.
const DefaultCassandraHeap = "1g"

// DefaultPostgresBin is where Debian's postgresql-15 package puts initdb and
// postgres.
const DefaultPostgresBin = "/usr/lib/postgresql/15/bin"

// Options configure a run. Zero sizes take the defaults of the mode (quick
// or full) in Resolve.
type Options struct {
	// Workloads to run, by name; empty or "all" runs every workload.
	Workloads []string
	// Quick selects small sizes: a smoke test of the harness, not a
	// measurement.
	Quick bool
	// CQLAddr targets an existing server (host:port); empty starts one on
	// a free loopback port with a temporary data directory: a child
	// process running `partita serve` (the default), or, with InProcess,
	// a node inside this process.
	CQLAddr string
	// InProcess runs the server inside the harness: its CPU time,
	// allocations and resident set are then not told apart from the
	// driver's, and are not reported per step.
	InProcess bool
	// ServerBin is the partita binary the child process runs; empty builds
	// cmd/partita with the go tool (inside this module).
	ServerBin string
	// Connections is the driver's connections to the server (gocql
	// NumConns).
	Connections int
	// Concurrency is the number of requests in flight, for every system.
	Concurrency int
	// Duration is how long each read step runs.
	Duration time.Duration
	// Rows is the number of rows each ingest workload (iot, user-events,
	// hot-asset) writes.
	Rows int
	// WideRows is the width the wide workload grows its partition to.
	WideRows int
	// TombstoneRows is the number of range-deleted rows in front of the
	// slice of the tombstones workload.
	TombstoneRows int
	// LWTKeys is the number of rows the lwt workload's updates contend on.
	LWTKeys int
	// SplitRows is the number of rows the split workload's ingest writes
	// to its hot partition; SplitOtherRows the rows of each of the 199
	// other assets, written interleaved with them; SplitMaxRows the
	// partition.split.max_rows the table is given when splitting is
	// enabled.
	SplitRows      int
	SplitOtherRows int
	SplitMaxRows   int
	// OutDir receives results.json and the charts; empty writes nothing.
	OutDir string
	// Peer lists the peers, comma-separated (PeerPostgres,
	// PeerCassandra, PeerCassandraPeriodic), or is PeerNone; empty means
	// PeerPostgres when PostgreSQL is installed, else PeerNone. Resolve
	// rewrites it in run order.
	Peer string
	// PostgresBin is the directory holding initdb and postgres.
	PostgresBin string
	// CassandraScript is scripts/cassandra.sh, which installs and starts
	// the Cassandra peers; empty means $PARTITA_CASSANDRA_SCRIPT, else the
	// script of the module the working directory is in.
	CassandraScript string
	// CassandraHeap is the Cassandra peers' heap, as -Xmx takes it (both
	// -Xms and -Xmx, as cassandra-env.sh sets them); empty means
	// DefaultCassandraHeap.
	CassandraHeap string
	// PebbleFloor also writes every ingest step's rows as raw Pebble batches.
	PebbleFloor bool
	// CPUProfileDir, when set, receives one CPU profile per Partita step:
	// of the server process (from its /admin/cpuprofile), or, in-process,
	// of this process.
	CPUProfileDir string
	// Progress receives the progress bars (stderr); nil shows none.
	Progress io.Writer
	// Log receives one line per step and notes; nil discards them.
	Log io.Writer

	// Target is TargetNode (empty means it) or TargetGateway.
	Target string
	// ClusterAddr is the Cassandra node (host:port) the gateway target's
	// gateway stores its data on and the direct system talks to; empty
	// means $PARTITA_REFERENCE_ADDR, else a throwaway node started with
	// CassandraScript.
	ClusterAddr string
	// SingleGateway starts the gateway with --backend-single-gateway: no
	// leases on read-modify-writes, and split states kept as metadata,
	// whose backfill moves a chunk without waiting a lease and a drain
	// (docs/design/splitting.md "Several gateways").
	SingleGateway bool
	// Rounds is how many times the gateway target runs each timed read on
	// each system, alternating which goes first (default 1).
	Rounds int

	// splitTiming, when set, replaces the server's split detector timing
	// (Resolve sets it for quick runs; tests shorten it); a child process
	// gets it through serve's hidden --split-window and --split-tick.
	splitTiming splitTiming
}

// splitTiming is how often the server's split detector runs (tick) and how
// long a partition must stay over the limit before it splits (window).
type splitTiming struct {
	window, tick time.Duration
}

// serverSplitTiming is the split detector timing of the server under
// test: the in-process server's, or the defaults for an external one.
func (o Options) serverSplitTiming() splitTiming {
	if o.CQLAddr != "" {
		return splitTiming{}.orDefault()
	}
	return o.splitTiming.orDefault()
}

// orDefault fills what is unset with the server defaults.
func (t splitTiming) orDefault() splitTiming {
	if t.window <= 0 {
		t.window = split.DefaultPolicy().Window
	}
	if t.tick <= 0 {
		t.tick = engine.DefaultConfig().SplitTick
	}
	return t
}

// Sizes of the two modes.
const (
	quickRows          = 10_000
	fullRows           = 200_000
	quickWideRows      = 20_000
	fullWideRows       = 5_000_000
	quickTombstoneRows = 20_000
	fullTombstoneRows  = 1_000_000
	quickDuration      = 2 * time.Second
	fullDuration       = 10 * time.Second
	defaultLWTKeys     = 8

	quickSplitRows      = 50_000
	fullSplitRows       = 2_000_000
	quickSplitOtherRows = 50
	fullSplitOtherRows  = 40_000
	quickSplitMaxRows   = 5_000
	fullSplitMaxRows    = 100_000
	// quickSplitWindow is the in-process server's split hysteresis window
	// in quick runs (the server default, 10 s, in full runs): a smoke test
	// that waits 10 s twice, for the split and for any follow-up, would
	// not stay under a minute.
	quickSplitWindow = 2 * time.Second
)

// PostgresAvailable reports whether initdb and postgres exist in dir.
func PostgresAvailable(dir string) bool {
	for _, name := range []string{"initdb", "postgres"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.IsDir() {
			return false
		}
	}
	return true
}

// Resolve fills defaults and checks the options.
func (o Options) Resolve() (Options, error) {
	if err := o.resolveTarget(); err != nil {
		return o, err
	}
	if len(o.Workloads) == 0 || slices.Contains(o.Workloads, "all") {
		o.Workloads = slices.Clone(Workloads)
		if o.Target == TargetGateway {
			o.Workloads = slices.Clone(gatewayWorkloads)
		}
	}
	for _, w := range o.Workloads {
		if !slices.Contains(Workloads, w) {
			return o, fmt.Errorf("unknown workload %q (want one of %s, all)", w, strings.Join(Workloads, ", "))
		}
	}
	o.Workloads = inRunOrder(o.Workloads)
	pick := func(v *int, quick, full int) {
		if *v <= 0 {
			*v = full
			if o.Quick {
				*v = quick
			}
		}
	}
	pick(&o.Rows, quickRows, fullRows)
	pick(&o.WideRows, quickWideRows, fullWideRows)
	pick(&o.TombstoneRows, quickTombstoneRows, fullTombstoneRows)
	pick(&o.LWTKeys, defaultLWTKeys, defaultLWTKeys)
	pick(&o.SplitRows, quickSplitRows, fullSplitRows)
	pick(&o.SplitOtherRows, quickSplitOtherRows, fullSplitOtherRows)
	pick(&o.SplitMaxRows, quickSplitMaxRows, fullSplitMaxRows)
	pick(&o.Connections, 2, 2)
	pick(&o.Concurrency, 32, 32)
	if o.InProcess && o.CQLAddr != "" {
		return o, fmt.Errorf("--in-process and --cql-addr exclude each other")
	}
	if o.ServerBin != "" && (o.InProcess || o.CQLAddr != "") {
		return o, fmt.Errorf("--server-bin is for the server the harness starts as a child process")
	}
	if o.Quick && o.splitTiming.window <= 0 {
		o.splitTiming.window = quickSplitWindow
	}
	if o.Duration <= 0 {
		o.Duration = fullDuration
		if o.Quick {
			o.Duration = quickDuration
		}
	}
	if err := o.resolvePeers(); err != nil {
		return o, err
	}
	if o.Rows < 100 || o.WideRows < 1000 || o.TombstoneRows < 1 {
		return o, fmt.Errorf("sizes too small: rows ≥ 100 and wide rows ≥ 1000 are needed for the reads")
	}
	// The 8-children read needs 8 children inside the ingested rows, and
	// every row of a partition needs its own millisecond of one day.
	if o.SplitMaxRows < 10 || o.SplitRows < 10*o.SplitMaxRows || o.SplitRows > splitDayMillis {
		return o, fmt.Errorf("split sizes: the hot partition needs at least 10 × max rows (%d) and at most %d rows, got %d",
			o.SplitMaxRows, splitDayMillis, o.SplitRows)
	}
	if o.SplitOtherRows > splitDayMillis {
		return o, fmt.Errorf("split sizes: each other asset has at most %d rows, got %d", splitDayMillis, o.SplitOtherRows)
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return o, nil
}

// resolveTarget checks the gateway target's options: a server the harness
// starts in a process of its own, no other peers, a Cassandra node to use
// or the script to start one.
func (o *Options) resolveTarget() error {
	switch o.Target {
	case "", TargetNode:
		o.Target = TargetNode
		if o.ClusterAddr != "" || o.Rounds > 1 || o.SingleGateway {
			return fmt.Errorf("--cluster-addr, --rounds and --single-gateway are for --target gateway")
		}
		return nil
	case TargetGateway:
	default:
		return fmt.Errorf("unknown target %q (want %s or %s)", o.Target, TargetNode, TargetGateway)
	}
	if o.InProcess || o.CQLAddr != "" {
		return fmt.Errorf("--target gateway starts the gateway as a child process: no --in-process or --cql-addr")
	}
	if o.Peer != "" && o.Peer != PeerNone {
		return fmt.Errorf("--target gateway compares the gateway with its own Cassandra node read directly: no --peer")
	}
	o.Peer = PeerNone
	o.Rounds = max(o.Rounds, 1)
	if o.ClusterAddr == "" {
		o.ClusterAddr = os.Getenv(referenceAddrEnv)
	}
	if o.ClusterAddr == "" {
		script, err := cassandraScript(o.CassandraScript)
		if err != nil {
			return fmt.Errorf("--target gateway needs --cluster-addr, $%s or the script to start a node: %w", referenceAddrEnv, err)
		}
		o.CassandraScript = script
	}
	return nil
}

// resolvePeers checks Options.Peer and rewrites it in run order, and finds
// what the peers it names need.
func (o *Options) resolvePeers() error {
	if o.PostgresBin == "" {
		o.PostgresBin = DefaultPostgresBin
	}
	if o.CassandraHeap == "" {
		o.CassandraHeap = DefaultCassandraHeap
	}
	if o.Peer == "" {
		o.Peer = PeerNone
		if PostgresAvailable(o.PostgresBin) {
			o.Peer = PeerPostgres
		}
		return nil
	}
	var named []string
	for _, p := range strings.Split(o.Peer, ",") {
		p = strings.TrimSpace(p)
		if p != PeerNone && !slices.Contains(peerNames, p) {
			return fmt.Errorf("unknown peer %q (want none, or a comma-separated list of %s)", p, strings.Join(peerNames, ", "))
		}
		named = append(named, p)
	}
	if slices.Contains(named, PeerNone) {
		if slices.ContainsFunc(named, func(p string) bool { return p != PeerNone }) {
			return fmt.Errorf("--peer %q: none cannot be combined with other peers", o.Peer)
		}
		o.Peer = PeerNone
		return nil
	}
	var peers []string
	for _, p := range peerNames {
		if slices.Contains(named, p) {
			peers = append(peers, p)
		}
	}
	o.Peer = strings.Join(peers, ",")
	if o.hasPeer(PeerPostgres) && !PostgresAvailable(o.PostgresBin) {
		return fmt.Errorf("--peer postgres: no initdb and postgres in %s (install postgresql-15, or leave postgres out of --peer)", o.PostgresBin)
	}
	if o.hasPeer(PeerCassandra) || o.hasPeer(PeerCassandraPeriodic) {
		script, err := cassandraScript(o.CassandraScript)
		if err != nil {
			return fmt.Errorf("--peer %s: %w", o.Peer, err)
		}
		o.CassandraScript = script
	}
	return nil
}

// hasPeer reports whether the resolved Options.Peer names peer.
func (o Options) hasPeer(peer string) bool {
	return slices.Contains(strings.Split(o.Peer, ","), peer)
}

// inRunOrder deduplicates names and sorts them as Workloads lists them.
func inRunOrder(names []string) []string {
	var out []string
	for _, w := range Workloads {
		if slices.Contains(names, w) {
			out = append(out, w)
		}
	}
	return out
}

// WideCheckpoints are the partition widths at which the wide workload
// measures its reads: the mode's standard widths below max, then max.
func WideCheckpoints(maxRows int, quick bool) []int {
	std := []int{1_000, 100_000, 1_000_000, 5_000_000}
	if quick {
		std = []int{1_000, 5_000, 20_000}
	}
	var out []int
	for _, w := range std {
		if w < maxRows {
			out = append(out, w)
		}
	}
	return append(out, maxRows)
}
