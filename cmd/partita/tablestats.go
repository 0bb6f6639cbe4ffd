package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/engine"
)

// maxTopPartitionsSample bounds toppartitions' sampling window, inside the
// HTTP server's 30 s per request.
const maxTopPartitionsSample = 25 * time.Second

// tableStatsRoutes serves the figures of `partita tablestats`,
// `tablehistograms` and `toppartitions` (they name partitions: /admin).
//
//	GET /admin/tablestats[?keyspace=K[&table=T]]
//	GET /admin/toppartitions?keyspace=K&table=T&duration_ms=N[&size=S]
func (n *node) tableStatsRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /admin/tablestats", n.adminGuard(n.withEngine(func(w http.ResponseWriter, r *http.Request, eng *engine.Engine) {
		q := r.URL.Query()
		stats, err := eng.TableStats(q.Get("keyspace"), q.Get("table"))
		writeAdminJSON(w, stats, err)
	})))
	mux.HandleFunc("GET /admin/toppartitions", n.adminGuard(n.withEngine(func(w http.ResponseWriter, r *http.Request, eng *engine.Engine) {
		q := r.URL.Query()
		ms, err := strconv.Atoi(q.Get("duration_ms"))
		if err != nil || ms <= 0 || time.Duration(ms)*time.Millisecond > maxTopPartitionsSample {
			http.Error(w, fmt.Sprintf("duration_ms must be between 1 and %d", maxTopPartitionsSample.Milliseconds()), http.StatusBadRequest)
			return
		}
		size, err := strconv.Atoi(cmpOr(q.Get("size"), "10"))
		if err != nil || size <= 0 {
			http.Error(w, "size must be a positive number", http.StatusBadRequest)
			return
		}
		reads, writes, rc, wc, err := eng.TopPartitions(r.Context(), q.Get("keyspace"), q.Get("table"), time.Duration(ms)*time.Millisecond, size)
		writeAdminJSON(w, topPartitionsReply{Reads: reads, Writes: writes, ReadCardinality: rc, WriteCardinality: wc}, err)
	})))
}

// withEngine runs h with the engine once the node serves, else answers 503.
func (n *node) withEngine(h func(http.ResponseWriter, *http.Request, *engine.Engine)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		eng := n.eng
		if eng == nil || !n.serving.Load() {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		h(w, r, eng)
	}
}

type topPartitionsReply struct {
	Reads, Writes                     []engine.PartitionActivity
	ReadCardinality, WriteCardinality int
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// writeAdminJSON answers v as JSON, or err (400 for a request error).
func writeAdminJSON(w http.ResponseWriter, v any, err error) {
	if err != nil {
		status := http.StatusInternalServerError
		var ce *cqlerr.Error
		if errors.As(err, &ce) {
			status = http.StatusBadRequest
		}
		http.Error(w, err.Error(), status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// adminGet fetches an /admin JSON answer into v.
func adminGet(httpAddr, token, pathAndQuery string, v any) error {
	if token == "" {
		token = os.Getenv(adminTokenEnv)
	}
	resp, err := adminRequest(http.MethodGet, httpAddr, pathAndQuery, token)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(body)))
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// splitTableArgs takes nodetool's forms: "ks table", "ks.table" or "ks/table".
func splitTableArgs(args []string) (keyspace, table string) {
	switch len(args) {
	case 0:
		return "", ""
	case 1:
		ks, t, _ := strings.Cut(strings.ReplaceAll(args[0], "/", "."), ".")
		return ks, t
	}
	return args[0], args[1]
}

func adminFlags(cmd *cobra.Command, httpAddr, token *string) {
	f := cmd.Flags()
	f.StringVar(httpAddr, "http-addr", "127.0.0.1:9180", "the server's --http-addr")
	f.StringVar(token, "admin-token", "", "the server's admin_token (default: $"+adminTokenEnv+")")
}

// newTableStatsCmd is `partita tablestats [keyspace[.table]]`, in the shape
// of nodetool tablestats.
func newTableStatsCmd() *cobra.Command {
	var httpAddr, token string
	cmd := &cobra.Command{
		Use:   "tablestats [keyspace[.table] | keyspace table]",
		Short: "Print table statistics of a running server, as nodetool tablestats",
		Args:  cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ks, t := splitTableArgs(args)
			var stats []engine.TableStats
			if err := adminGet(httpAddr, token, "/admin/tablestats?"+url.Values{"keyspace": {ks}, "table": {t}}.Encode(), &stats); err != nil {
				return err
			}
			printTableStats(cmd.OutOrStdout(), stats)
			return nil
		},
	}
	adminFlags(cmd, &httpAddr, &token)
	return cmd
}

func printTableStats(w io.Writer, stats []engine.TableStats) {
	fmt.Fprintf(w, "Total number of tables: %d\n----------------\n", len(stats))
	latency := func(micros, n int64) string {
		if n == 0 {
			return "NaN ms"
		}
		return fmt.Sprintf("%.3f ms", float64(micros)/float64(n)/1000)
	}
	for i := 0; i < len(stats); {
		ks := stats[i].Keyspace
		j := i
		var reads, readMicros, writes int64
		for ; j < len(stats) && stats[j].Keyspace == ks; j++ {
			reads, readMicros, writes = reads+stats[j].Reads, readMicros+stats[j].ReadMicros, writes+stats[j].RowsWritten
		}
		fmt.Fprintf(w, "Keyspace : %s\n\tRead Count: %d\n\tRead Latency: %s\n\tWrite Count: %d\n", ks, reads, latency(readMicros, reads), writes)
		for _, t := range stats[i:j] {
			space := "unknown"
			if t.SpaceUsed >= 0 {
				space = strconv.FormatInt(t.SpaceUsed, 10)
			}
			fmt.Fprintf(w, "\t\tTable: %s\n", t.Table)
			fmt.Fprintf(w, "\t\tSpace used (live): %s\n", space)
			fmt.Fprintf(w, "\t\tNumber of partitions (estimate): %d\n", t.Partitions)
			fmt.Fprintf(w, "\t\tNumber of rows (estimate): %d\n", t.Rows)
			fmt.Fprintf(w, "\t\tSplit partitions: %d\n", t.SplitPartitions)
			fmt.Fprintf(w, "\t\tLocal read count: %d\n", t.Reads)
			fmt.Fprintf(w, "\t\tLocal read latency: %s\n", latency(t.ReadMicros, t.Reads))
			fmt.Fprintf(w, "\t\tLocal write count: %d\n", t.RowsWritten)
			fmt.Fprintf(w, "\t\tCompacted partition minimum bytes: %d\n", t.MinBytes)
			fmt.Fprintf(w, "\t\tCompacted partition maximum bytes: %d\n", t.MaxBytes)
			fmt.Fprintf(w, "\t\tCompacted partition mean bytes: %d\n", t.MeanBytes)
			fmt.Fprintf(w, "\t\tTombstones written: %d\n", t.Tombstones)
			fmt.Fprintf(w, "\t\tMaximum tombstones per partition: %d\n\n", t.MaxTombstones)
		}
		fmt.Fprintln(w, "----------------")
		i = j
	}
}

// newTableHistogramsCmd is `partita tablehistograms keyspace table`, in the
// shape of nodetool tablehistograms.
func newTableHistogramsCmd() *cobra.Command {
	var httpAddr, token string
	cmd := &cobra.Command{
		Use:   "tablehistograms keyspace table | keyspace.table",
		Short: "Print the partition size, row, tombstone and read latency percentiles of a table",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ks, t := splitTableArgs(args)
			if t == "" {
				return fmt.Errorf("tablehistograms needs a keyspace and a table")
			}
			var stats []engine.TableStats
			if err := adminGet(httpAddr, token, "/admin/tablestats?"+url.Values{"keyspace": {ks}, "table": {t}}.Encode(), &stats); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "%s/%s histograms\n", ks, t)
			tw := tabwriter.NewWriter(out, 0, 4, 4, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "Percentile\tRead Latency\tPartition Size\tRow Count\tTombstones\t")
			fmt.Fprintln(tw, "\t(micros)\t(bytes)\t\t\t")
			for _, h := range stats[0].Histograms {
				fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t\n", h.Percentile, h.ReadMicros, h.Bytes, h.Rows, h.Tombstones)
			}
			tw.Flush()
			if len(stats[0].Histograms) == 0 {
				fmt.Fprintln(out, "No partitions tracked since the node started.")
			}
			return nil
		},
	}
	adminFlags(cmd, &httpAddr, &token)
	return cmd
}

// newTopPartitionsCmd is `partita toppartitions keyspace table duration`,
// in the shape of nodetool toppartitions.
func newTopPartitionsCmd() *cobra.Command {
	var httpAddr, token string
	var size int
	cmd := &cobra.Command{
		Use:   "toppartitions keyspace table duration_ms",
		Short: "Sample a table's most read and most written partitions for a while",
		Args:  cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			var rep topPartitionsReply
			v := url.Values{"keyspace": {args[0]}, "table": {args[1]}, "duration_ms": {args[2]}, "size": {strconv.Itoa(size)}}
			if err := adminGet(httpAddr, token, "/admin/toppartitions?"+v.Encode(), &rep); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			for _, s := range []struct {
				name  string
				card  int
				top   []engine.PartitionActivity
				count func(engine.PartitionActivity) int64
			}{
				{"WRITES", rep.WriteCardinality, rep.Writes, func(a engine.PartitionActivity) int64 { return a.Writes }},
				{"READS", rep.ReadCardinality, rep.Reads, func(a engine.PartitionActivity) int64 { return a.Reads }},
			} {
				fmt.Fprintf(out, "%s Sampler:\n  Cardinality: ~%d\n  Top %d partitions:\n", s.name, s.card, size)
				if len(s.top) == 0 {
					fmt.Fprintln(out, "\tNothing recorded during sampling period...")
				} else {
					tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
					fmt.Fprintln(tw, "\tPartition\tCount\t+/-")
					for _, a := range s.top {
						fmt.Fprintf(tw, "\t%s\t%d\t0\n", a.Partition, s.count(a))
					}
					tw.Flush()
				}
				fmt.Fprintln(out)
			}
			return nil
		},
	}
	adminFlags(cmd, &httpAddr, &token)
	cmd.Flags().IntVarP(&size, "size", "s", 10, "number of partitions to list")
	return cmd
}
