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

	// splitTiming, when set, replaces the in-process server's split
	// detector timing (Resolve sets it for quick runs; tests shorten it).
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
	pick(&o.SplitRows, quickSplitRows, fullSplitRows)
	pick(&o.SplitOtherRows, quickSplitOtherRows, fullSplitOtherRows)
	pick(&o.SplitMaxRows, quickSplitMaxRows, fullSplitMaxRows)
	pick(&o.Connections, 2, 2)
	pick(&o.Concurrency, 32, 32)
	if o.Quick && o.splitTiming.window <= 0 {
		o.splitTiming.window = quickSplitWindow
	}
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
