package main

import (
	"cmp"
	"embed"
	"io/fs"
	"net/http"
	"slices"

	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/systables"
)

// consoleAssets is the web console: plain HTML, CSS and JS, no build step
// and nothing fetched from elsewhere (the CSP below forbids it).
//
//go:embed console
var consoleAssets embed.FS

// consoleHeaders are set on every console answer: the page loads only its
// own scripts and styles, talks only to this server, and cannot be framed
// by another site (clickjacking the split buttons).
var consoleHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
	"X-Frame-Options":        "DENY",
	"X-Content-Type-Options": "nosniff",
	"Referrer-Policy":        "no-referrer",
	"Cache-Control":          "no-cache",
}

// consoleRoutes serves the web console and the /admin answers only it reads:
//
//	GET /                      redirects to /console
//	GET /console, /console/*   the page and its assets (no /admin guard: they hold no data)
//	GET /admin/partitions      the largest partitions (system_partita.large_partitions)
//	GET /admin/split_history   splits, merges and reverts (system_partita.split_history)
//	GET /admin/statements      statistics per statement (system_partita.statements)
//
// The page reads everything through /admin, so the console shows data only
// to a client /admin serves (adminAllowed); it sends the admin token the
// user enters as "Authorization: Bearer".
func (n *node) consoleRoutes(mux *http.ServeMux) {
	assets, _ := fs.Sub(consoleAssets, "console")
	files := http.StripPrefix("/console/", http.FileServerFS(assets))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/console", http.StatusFound)
	})
	mux.HandleFunc("GET /console", func(w http.ResponseWriter, r *http.Request) {
		setConsoleHeaders(w)
		http.ServeFileFS(w, r, assets, "index.html")
	})
	mux.HandleFunc("GET /console/", func(w http.ResponseWriter, r *http.Request) {
		setConsoleHeaders(w)
		files.ServeHTTP(w, r)
	})
	mux.HandleFunc("GET /admin/partitions", n.adminGuard(n.withEngine(func(w http.ResponseWriter, r *http.Request, eng *engine.Engine) {
		writeAdminJSON(w, eng.LargePartitions(), nil)
	})))
	mux.HandleFunc("GET /admin/statements", n.adminGuard(n.withEngine(func(w http.ResponseWriter, r *http.Request, eng *engine.Engine) {
		st := eng.Statements()
		slices.SortFunc(st, func(a, b systables.StatementInfo) int { return cmp.Compare(b.Count, a.Count) })
		writeAdminJSON(w, st, nil)
	})))
	mux.HandleFunc("GET /admin/split_history", n.adminGuard(n.withEngine(func(w http.ResponseWriter, r *http.Request, eng *engine.Engine) {
		writeAdminJSON(w, splitHistory(eng), nil)
	})))
}

func setConsoleHeaders(w http.ResponseWriter) {
	for k, v := range consoleHeaders {
		w.Header().Set(k, v)
	}
}

// splitHistory is system_partita.split_history's rows, oldest first.
func splitHistory(eng *engine.Engine) []systables.SplitEvent {
	out := eng.SplitHistory()
	slices.SortStableFunc(out, func(a, b systables.SplitEvent) int { return cmp.Compare(a.At, b.At) })
	return out
}
