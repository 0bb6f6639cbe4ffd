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

	"github.com/partita-db/partita/internal/storage"
)

// snapshotRoutes serves the backup API that `partita snapshot`,
// `listsnapshots` and `clearsnapshot` talk to (behind adminGuard):
//
//	POST   /admin/snapshot?tag=T         take a snapshot (T defaults to the time in ms)
//	GET    /admin/snapshots              list them (JSON)
//	DELETE /admin/snapshot?tag=T|all=1   remove one, or all
func (n *node) snapshotRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /admin/snapshot", n.adminGuard(func(w http.ResponseWriter, r *http.Request) {
		st := n.snapshotStore(w)
		if st == nil {
			return
		}
		tag := r.URL.Query().Get("tag")
		if tag == "" {
			// nodetool snapshot's default tag: the time in milliseconds.
			tag = strconv.FormatInt(time.Now().UnixMilli(), 10)
		}
		info, err := st.Checkpoint(n.cfg.DataDir, tag)
		if err != nil {
			status := http.StatusInternalServerError
			if errors.Is(err, storage.ErrSnapshotExists) || storage.CheckTag(tag) != nil {
				status = http.StatusBadRequest
			}
			http.Error(w, err.Error(), status)
			return
		}
		n.log.Info("snapshot taken", "tag", info.Tag, "path", info.Path)
		writeJSON(w, info)
	}))
	mux.HandleFunc("GET /admin/snapshots", n.adminGuard(func(w http.ResponseWriter, r *http.Request) {
		if n.snapshotStore(w) == nil {
			return
		}
		list, err := storage.ListSnapshots(n.cfg.DataDir)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if list == nil {
			list = []storage.SnapshotInfo{}
		}
		writeJSON(w, list)
	}))
	mux.HandleFunc("DELETE /admin/snapshot", n.adminGuard(func(w http.ResponseWriter, r *http.Request) {
		if n.snapshotStore(w) == nil {
			return
		}
		q := r.URL.Query()
		var tags []string
		switch {
		case q.Get("all") != "" && q.Get("tag") == "":
			list, err := storage.ListSnapshots(n.cfg.DataDir)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			for _, s := range list {
				tags = append(tags, s.Tag)
			}
		case q.Get("tag") != "" && q.Get("all") == "":
			tags = []string{q.Get("tag")}
		default:
			http.Error(w, "give either tag=T or all=1", http.StatusBadRequest)
			return
		}
		cleared := []string{}
		for _, tag := range tags {
			found, err := storage.ClearSnapshot(n.cfg.DataDir, tag)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			if found {
				cleared = append(cleared, tag)
			}
		}
		writeJSON(w, map[string][]string{"cleared": cleared})
	}))
}

// snapshotStore returns the embedded store, or answers that there is none.
func (n *node) snapshotStore(w http.ResponseWriter) *storage.Store {
	if !n.serving.Load() {
		http.Error(w, "starting", http.StatusServiceUnavailable)
		return nil
	}
	if n.pebble == nil {
		http.Error(w, "snapshots are taken by the embedded store (backend: pebble); back up the Cassandra cluster with nodetool snapshot", http.StatusNotImplemented)
		return nil
	}
	return n.pebble
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// newSnapshotCmds are the backup commands, named as nodetool's: snapshot,
// listsnapshots and clearsnapshot talk to a running server; restore works
// offline on directories.
func newSnapshotCmds() []*cobra.Command {
	var httpAddr, token string
	addFlags := func(c *cobra.Command) {
		f := c.Flags()
		f.StringVar(&httpAddr, "http-addr", "127.0.0.1:9180", "the server's --http-addr")
		f.StringVar(&token, "admin-token", "", "the server's admin_token (default: $"+adminTokenEnv+")")
		c.PreRun = func(*cobra.Command, []string) {
			if token == "" {
				token = os.Getenv(adminTokenEnv)
			}
		}
	}
	var tag string
	snapshot := &cobra.Command{
		Use:   "snapshot",
		Short: "Take a snapshot of a running server's data directory into <data_dir>/snapshots/<tag>",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var info storage.SnapshotInfo
			if err := adminJSON(http.MethodPost, httpAddr, "/admin/snapshot?"+url.Values{"tag": {tag}}.Encode(), token, &info); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Snapshot directory: %s\n", info.Path)
			return nil
		},
	}
	addFlags(snapshot)
	snapshot.Flags().StringVarP(&tag, "tag", "t", "", "the snapshot's name (default: the time in milliseconds)")

	list := &cobra.Command{
		Use:   "listsnapshots",
		Short: "List a running server's snapshots",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var infos []storage.SnapshotInfo
			if err := adminJSON(http.MethodGet, httpAddr, "/admin/snapshots", token, &infos); err != nil {
				return err
			}
			printSnapshots(cmd.OutOrStdout(), infos)
			return nil
		},
	}
	addFlags(list)

	var clearTag string
	var all bool
	clear := &cobra.Command{
		Use:   "clearsnapshot",
		Short: "Remove a running server's snapshot (-t TAG) or all of them (--all)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (clearTag == "") == !all {
				return errors.New("give either -t TAG or --all")
			}
			v := url.Values{}
			if all {
				v.Set("all", "1")
			} else {
				v.Set("tag", clearTag)
			}
			var out struct{ Cleared []string }
			if err := adminJSON(http.MethodDelete, httpAddr, "/admin/snapshot?"+v.Encode(), token, &out); err != nil {
				return err
			}
			if len(out.Cleared) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "no snapshot removed")
			}
			for _, t := range out.Cleared {
				fmt.Fprintf(cmd.OutOrStdout(), "removed snapshot %s\n", t)
			}
			return nil
		},
	}
	addFlags(clear)
	clear.Flags().StringVarP(&clearTag, "tag", "t", "", "the snapshot to remove")
	clear.Flags().BoolVar(&all, "all", false, "remove every snapshot")

	var from, into string
	restore := &cobra.Command{
		Use:   "restore",
		Short: "Make a new data directory from a snapshot (offline), for `partita serve --data-dir` to start on",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := storage.Restore(from, into); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "restored %s into %s; start it with: partita serve --data-dir %s\n", from, into, into)
			return nil
		},
	}
	restore.Flags().StringVar(&from, "snapshot", "", "the snapshot directory, <data_dir>/snapshots/<tag>")
	restore.Flags().StringVar(&into, "data-dir", "", "the new data directory (missing or empty)")
	_ = restore.MarkFlagRequired("snapshot")
	_ = restore.MarkFlagRequired("data-dir")
	return []*cobra.Command{snapshot, list, clear, restore}
}

// adminJSON sends an /admin request and decodes its JSON answer into out.
func adminJSON(method, httpAddr, pathAndQuery, token string, out any) error {
	resp, err := adminRequest(method, httpAddr, pathAndQuery, token)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(body)))
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

func printSnapshots(w io.Writer, infos []storage.SnapshotInfo) {
	if len(infos) == 0 {
		fmt.Fprintln(w, "There are no snapshots")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "Snapshot name\tCreated at\tSize on disk\tPath")
	for _, s := range infos {
		fmt.Fprintf(tw, "%s\t%s\t%d bytes\t%s\n", s.Tag, s.CreatedAt.Format(time.RFC3339), s.Bytes, s.Path)
	}
	tw.Flush()
}
