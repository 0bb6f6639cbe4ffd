package bench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Workload names, in the order `all` runs them.
const (
	WorkloadIoT        = "iot"
	WorkloadUserEvents = "user-events"
	WorkloadHotAsset   = "hot-asset"
	WorkloadWide       = "wide"
	WorkloadTombstones = "tombstones"
	WorkloadLWT        = "lwt"
)

// Workloads lists every workload in the order `all` runs them.
var Workloads = []string{WorkloadIoT, WorkloadUserEvents, WorkloadHotAsset, WorkloadWide, WorkloadTombstones, WorkloadLWT}

// Peer names.
const (
	PeerPostgres = "postgres"
	PeerNone     = "none"
)

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
	// CQLAddr targets an existing server (host:port); empty starts one
	// in-process on a free loopback port with a temporary data directory.
	CQLAddr string
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
	// OutDir receives results.json and the charts; empty writes nothing.
	OutDir string
	// Peer is PeerPostgres or PeerNone.
	Peer string
	// PostgresBin is the directory holding initdb and postgres.
	PostgresBin string
	// PebbleFloor also writes every ingest step's rows as raw Pebble batches.
	PebbleFloor bool
	// CPUProfileDir, when set, receives one CPU profile per Partita step.
	CPUProfileDir string
	// Progress receives the progress bars (stderr); nil shows none.
	Progress io.Writer
	// Log receives one line per step and notes; nil discards them.
	Log io.Writer
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
	if len(o.Workloads) == 0 || slices.Contains(o.Workloads, "all") {
		o.Workloads = slices.Clone(Workloads)
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
	pick(&o.Connections, 2, 2)
	pick(&o.Concurrency, 32, 32)
	if o.Duration <= 0 {
		o.Duration = fullDuration
		if o.Quick {
			o.Duration = quickDuration
		}
	}
	if o.PostgresBin == "" {
		o.PostgresBin = DefaultPostgresBin
	}
	switch o.Peer {
	case "":
		o.Peer = PeerNone
		if PostgresAvailable(o.PostgresBin) {
			o.Peer = PeerPostgres
		}
	case PeerNone:
	case PeerPostgres:
		if !PostgresAvailable(o.PostgresBin) {
			return o, fmt.Errorf("--peer postgres: no initdb and postgres in %s (install postgresql-15, or pass --peer none)", o.PostgresBin)
		}
	default:
		return o, fmt.Errorf("unknown peer %q (want postgres or none)", o.Peer)
	}
	if o.Rows < 100 || o.WideRows < 1000 || o.TombstoneRows < 1 {
		return o, fmt.Errorf("sizes too small: rows ≥ 100 and wide rows ≥ 1000 are needed for the reads")
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return o, nil
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
