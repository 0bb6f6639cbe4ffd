package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/partita-db/partita/internal/bench"
)

func newBenchCmd() *cobra.Command {
	var (
		o             bench.Options
		workload      string
		pebble        bool
		serverProcess bool
		big           bool
		bo            bench.BigOptions
	)
	cmd := &cobra.Command{
		Use:   "partita-bench",
		Short: "Benchmark Partita through gocql, side by side with PostgreSQL, Apache Cassandra and raw Pebble",
		Long: `Runs the seed documents' workloads against Partita through gocql (prepared
statements, --concurrency requests in flight) and reports throughput and HDR
latency percentiles. The same requests run against the peers --peer lists:
a throwaway PostgreSQL cluster (postgres, the default when PostgreSQL 15 is
installed), a throwaway single-node Apache Cassandra 5.0 started with
scripts/cassandra.sh (cassandra: commitlog_sync batch, as durable as Partita;
cassandra-periodic: Cassandra's default periodic commit log, write steps
only), and, with --pebble-floor, the same rows as raw Pebble batches; every
figure is also printed as a ratio Partita ÷ peer. The summary goes to stdout,
progress to stderr, results.json and charts to --out.

By default (--server-process) Partita runs as a child process, built from
this module (go build ./cmd/partita) unless --server-bin names a binary, with
its own data directory and ports; every step then also reports the server's
CPU time and allocated bytes per request and its peak resident set.
--in-process runs the server inside the harness (server and driver then
share one process, whose figures are not the server's alone); --cql-addr
targets a running server.

--target gateway runs the child process as a gateway over an Apache
Cassandra node (serve --backend cassandra, in a fresh backend keyspace): the
node at --cluster-addr, else $PARTITA_REFERENCE_ADDR, else a throwaway node
started with scripts/cassandra.sh. The seed workloads (all, by default:
iot, user-events, hot-asset) run step by step through the gateway and
directly against the same node, in a fresh keyspace of the same tables
(system cassandra-direct), each timed read in --rounds rounds; the split
workload runs through the gateway alone. The keyspaces are dropped at the
end.

The exit code is 0 whenever the harness ran, whether or not targets were met;
it is non-zero when the harness or a workload failed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("server-process") {
				if serverProcess && o.InProcess {
					return fmt.Errorf("--server-process and --in-process exclude each other")
				}
				o.InProcess = !serverProcess
			}
			for _, w := range strings.Split(workload, ",") {
				o.Workloads = append(o.Workloads, strings.TrimSpace(w))
			}
			o.PebbleFloor = pebble
			o.Log = cmd.ErrOrStderr()
			if isTerminal(cmd.ErrOrStderr()) {
				o.Progress = cmd.ErrOrStderr() // bars would only clutter a log file
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if big {
				return runBig(ctx, cmd, o, bo)
			}
			rep, err := bench.Run(ctx, o)
			if rep != nil {
				if werr := rep.WriteSummary(cmd.OutOrStdout()); werr != nil && err == nil {
					err = werr
				}
				if o.OutDir != "" && err == nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "results and charts in %s\n", o.OutDir)
				}
			}
			if err != nil {
				return err
			}
			if rep.Failed() {
				return fmt.Errorf("a workload failed; see the summary")
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&workload, "workload", "all", "comma-separated: "+strings.Join(bench.Workloads, ", ")+", or all")
	fl.BoolVar(&o.Quick, "quick", false, "small sizes: a smoke test of the harness (well under 5 minutes)")
	fl.BoolVar(&serverProcess, "server-process", true, "start partita serve as a child process, with its own data directory and ports (the default)")
	fl.BoolVar(&o.InProcess, "in-process", false, "run the server inside the harness instead of as a child process")
	fl.StringVar(&o.ServerBin, "server-bin", "", "the partita binary the child process runs (default: go build ./cmd/partita of this module)")
	fl.StringVar(&o.CQLAddr, "cql-addr", "", "host:port of a running server (default: start one on a free port)")
	fl.IntVar(&o.Connections, "connections", 2, "driver connections to the server")
	fl.IntVar(&o.Concurrency, "concurrency", 32, "requests in flight, for every system")
	fl.DurationVar(&o.Duration, "duration", 0, "how long each read step runs (default 10s, quick 2s)")
	fl.IntVar(&o.Rows, "rows", 0, "rows each ingest workload writes (default 200000, quick 10000)")
	fl.IntVar(&o.WideRows, "wide-rows", 0, "rows the wide workload grows its partition to (default 5000000, quick 20000)")
	fl.IntVar(&o.TombstoneRows, "tombstone-rows", 0, "range-deleted rows in front of the tombstones slice (default 1000000, quick 20000)")
	fl.IntVar(&o.SplitRows, "split-rows", 0, "rows the split workload writes to its hot partition (default 2000000, quick 50000; at least 10 × --split-max-rows)")
	fl.IntVar(&o.SplitOtherRows, "split-other-rows", 0, "rows of each of the split workload's 199 other assets (default 40000, quick 50)")
	fl.IntVar(&o.SplitMaxRows, "split-max-rows", 0, "partita.split.max_rows of the split workload's table once splitting is enabled (default 100000, quick 5000)")
	fl.StringVar(&o.OutDir, "out", "bench-results", "directory for results.json and the charts (empty: none)")
	fl.StringVar(&o.Peer, "peer", "", "comma-separated peers: postgres, cassandra, cassandra-periodic; or none (default: postgres when PostgreSQL's initdb and postgres are in --postgres-bin)")
	fl.StringVar(&o.PostgresBin, "postgres-bin", bench.DefaultPostgresBin, "directory of PostgreSQL's initdb and postgres")
	fl.StringVar(&o.CassandraScript, "cassandra-script", "", "scripts/cassandra.sh, which installs and starts the Cassandra peers (default: $PARTITA_CASSANDRA_SCRIPT, else the repository's)")
	fl.StringVar(&o.CassandraHeap, "cassandra-heap", bench.DefaultCassandraHeap, "the Cassandra peers' heap (-Xms and -Xmx)")
	fl.BoolVar(&pebble, "pebble-floor", false, "also write every ingest step's rows as raw Pebble batches (Sync), the floor")
	fl.StringVar(&o.Target, "target", bench.TargetNode, "what is under test: node (Partita on its embedded store) or gateway (serve --backend cassandra, against the same Cassandra node read directly)")
	fl.StringVar(&o.ClusterAddr, "cluster-addr", "", "with --target gateway: host:port of the Cassandra node (default: $PARTITA_REFERENCE_ADDR, else a throwaway node)")
	fl.IntVar(&o.Rounds, "rounds", 1, "with --target gateway: rounds of each timed read per system, alternating which system goes first; with --big: rounds of each read per partition (default there 3)")
	fl.BoolVar(&o.SingleGateway, "single-gateway", false, "with --target gateway: run the gateway with --backend-single-gateway (no leases; split states as metadata, a faster backfill)")
	fl.StringVar(&o.CPUProfileDir, "cpuprofile", "", "directory for one CPU profile per Partita step (of the server process; in-process: of the server and the driver)")
	fl.BoolVar(&big, "big", false, "instead of the workloads: bulk-load the big data set (a partition of --big-rows rows, one of 1,000, filler up to --big-bytes on disk), then time restarts to the first answer (kill -9 and clean) and the latest-100 and 1-hour reads of both partitions; results in --out/big.json")
	fl.IntVar(&bo.Rows, "big-rows", bench.DefaultBigRows, "rows of the big data set's wide partition")
	fl.Int64Var(&bo.MinBytes, "big-bytes", bench.DefaultBigMinBytes, "on-disk size the big data set's directory must reach (filler partitions make up the rest)")
	fl.StringVar(&bo.Dir, "big-dir", "", "where the big data set's directory (big-*) is made (default: the temporary directory); removed at the end")
	fl.BoolVar(&bo.Keep, "big-keep", false, "keep the big data set's directory")
	fl.BoolVar(&bo.Overlap, "big-overlap", false, "load the big data set's filler in overlapping rounds, leaving compaction debt for the restarts to meet")
	fl.IntVar(&bo.Restarts, "big-restarts", 5, "kill -9 restarts the big step times")
	return cmd
}

// runBig runs the big step and prints its summary.
func runBig(ctx context.Context, cmd *cobra.Command, o bench.Options, bo bench.BigOptions) error {
	bo.ServerBin, bo.Duration, bo.Connections, bo.OutDir, bo.Log = o.ServerBin, o.Duration, o.Connections, o.OutDir, cmd.ErrOrStderr()
	if cmd.Flags().Changed("concurrency") {
		bo.Concurrency = o.Concurrency
	}
	if cmd.Flags().Changed("rounds") {
		bo.Rounds = o.Rounds
	}
	bo.CPUProfileDir = o.CPUProfileDir
	rep, err := bench.RunBig(ctx, bo)
	if rep != nil {
		if werr := rep.WriteSummary(cmd.OutOrStdout()); werr != nil && err == nil {
			err = werr
		}
	}
	return err
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
