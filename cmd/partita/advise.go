package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/partita-db/partita/internal/advisor"
	"github.com/partita-db/partita/internal/engine"
)

// adviseRoutes serves GET /admin/advise[?keyspace=K]: the advisor's report
// as JSON. It lists partition keys, so it is an /admin route.
func (n *node) adviseRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /admin/advise", n.adminGuard(n.withEngine(func(w http.ResponseWriter, r *http.Request, eng *engine.Engine) {
		rep, err := eng.Advise(r.URL.Query().Get("keyspace"))
		writeAdminJSON(w, rep, err)
	})))
}

// newAdviseCmd is `partita advise [keyspace]`: the modeling advisor of a
// running server, as text or JSON.
func newAdviseCmd() *cobra.Command {
	var httpAddr, token string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "advise [keyspace]",
		Short: "Check the data model against live partition statistics and say what to change",
		Long: "Runs the modeling advisor on a running server: partition size, row and tombstone\n" +
			"distributions with the worst partitions named, growth per partition per day, write\n" +
			"hot spots, the simulated token imbalance of a cluster, each finding with a fix\n" +
			"(a time bucket from the growth rate, a query table as CREATE TABLE, a split policy).",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if token == "" {
				token = os.Getenv(adminTokenEnv)
			}
			path := "/admin/advise"
			if len(args) == 1 {
				path += "?" + url.Values{"keyspace": {args[0]}}.Encode()
			}
			resp, err := adminRequest(http.MethodGet, httpAddr, path, token)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				return err
			}
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(body)))
			}
			if asJSON {
				_, err = cmd.OutOrStdout().Write(body)
				return err
			}
			var rep advisor.Report
			if err := json.Unmarshal(body, &rep); err != nil {
				return err
			}
			return rep.WriteText(cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&httpAddr, "http-addr", "127.0.0.1:9180", "the server's --http-addr")
	f.StringVar(&token, "admin-token", "", "the server's admin_token (default: $"+adminTokenEnv+")")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}
