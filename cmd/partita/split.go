package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/partita-db/partita/internal/systables"
)

// newSplitCmd is `partita split status|split|revert|merge`: operator
// commands sent to a running server's HTTP address.
func newSplitCmd() *cobra.Command {
	var httpAddr, token, keyspace, table, key, strategy string
	var wait bool
	cmd := &cobra.Command{
		Use:   "split",
		Short: "Inspect and drive partition splits on a running server",
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&httpAddr, "http-addr", "127.0.0.1:9180", "the server's --http-addr")
	pf.StringVar(&token, "admin-token", "", "the server's admin_token (default: $"+adminTokenEnv+")")
	cmd.PersistentPreRun = func(*cobra.Command, []string) {
		if token == "" {
			token = os.Getenv(adminTokenEnv)
		}
	}
	status := &cobra.Command{
		Use:   "status",
		Short: "List split partitions with their children, state and progress",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			splits, err := fetchSplits(httpAddr, token)
			if err != nil {
				return err
			}
			printSplits(cmd.OutOrStdout(), splits)
			return nil
		},
	}
	cmd.AddCommand(status)
	for _, op := range []string{"split", "revert", "merge"} {
		op := op
		c := &cobra.Command{
			Use:   op,
			Short: map[string]string{"split": "Split a partition now", "revert": "Revert a split under way", "merge": "Merge a split partition back into one"}[op],
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				v := url.Values{"op": {op}, "keyspace": {keyspace}, "table": {table}, "key": {key}, "strategy": {strategy}}
				resp, err := adminRequest(http.MethodPost, httpAddr, "/admin/split?"+v.Encode(), token)
				if err != nil {
					return err
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					return fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(body)))
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s of %s.%s (%s) started\n", op, keyspace, table, key)
				if wait {
					return waitForSplit(cmd.OutOrStdout(), httpAddr, token, keyspace, table, key)
				}
				return nil
			},
		}
		f := c.Flags()
		f.StringVar(&keyspace, "keyspace", "", "keyspace of the table")
		f.StringVar(&table, "table", "", "table")
		f.StringVar(&key, "key", "", "partition key as CQL literals, e.g. \"'asset_1', '2026-01-20'\"")
		f.BoolVar(&wait, "wait", true, "follow the migration's progress until it ends")
		if op == "split" {
			f.StringVar(&strategy, "strategy", "", "range, rollover or hash (default: the table's policy)")
		}
		_ = c.MarkFlagRequired("keyspace")
		_ = c.MarkFlagRequired("table")
		_ = c.MarkFlagRequired("key")
		cmd.AddCommand(c)
	}
	return cmd
}

// adminRequest sends an /admin request, with the token when there is one.
func adminRequest(method, httpAddr, pathAndQuery, token string) (*http.Response, error) {
	req, err := http.NewRequest(method, "http://"+httpAddr+pathAndQuery, nil)
	if err != nil {
		return nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return http.DefaultClient.Do(req)
}

func fetchSplits(httpAddr, token string) ([]systables.SplitInfo, error) {
	resp, err := adminRequest(http.MethodGet, httpAddr, "/admin/splits", token)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return nil, fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(body)))
	}
	var out []systables.SplitInfo
	return out, json.NewDecoder(resp.Body).Decode(&out)
}

func printSplits(w io.Writer, splits []systables.SplitInfo) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TABLE\tPARTITION\tSTATE\tEPOCH\tSTRATEGY\tMOVED\tSIZE\tCHILDREN")
	for _, s := range splits {
		moved, size := "-", "not measured yet"
		if s.State != "active" {
			moved = fmt.Sprintf("%d rows, %d bytes", s.RowsMoved, s.BytesMoved)
		}
		if s.Rows >= 0 {
			size = fmt.Sprintf("%d rows, %d bytes", s.Rows, s.Bytes)
		}
		fmt.Fprintf(tw, "%s.%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", s.Keyspace, s.Table, s.PartitionKey,
			s.State, s.Epoch, s.Strategy, moved, size, strings.Join(s.Children, "; "))
	}
	tw.Flush()
	if len(splits) == 0 {
		fmt.Fprintln(w, "no split partitions")
	}
}

// waitForSplit polls the server until the partition has no migration
// under way, printing progress.
func waitForSplit(w io.Writer, httpAddr, token, keyspace, table, key string) error {
	for {
		splits, err := fetchSplits(httpAddr, token)
		if err != nil {
			return err
		}
		var cur *systables.SplitInfo
		for i := range splits {
			s := &splits[i]
			if s.Keyspace == keyspace && s.Table == table && normaliseKey(s.PartitionKey) == normaliseKey(key) {
				cur = s
			}
		}
		if cur == nil || cur.State == "active" {
			fmt.Fprintln(w, "done")
			if cur != nil {
				fmt.Fprintf(w, "children: %s\n", strings.Join(cur.Children, "; "))
			}
			return nil
		}
		fmt.Fprintf(w, "%s: %d rows, %d bytes moved, cursor %s\n", cur.State, cur.RowsMoved, cur.BytesMoved, cur.Cursor)
		time.Sleep(500 * time.Millisecond)
	}
}

func normaliseKey(k string) string { return strings.Join(strings.Fields(k), "") }
