package main

import (
	"crypto/subtle"
	"encoding/json"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// adminTokenEnv names the environment variable holding the HTTP admin
// token, for `partita serve` (over admin_token) and `partita split`.
const adminTokenEnv = "PARTITA_ADMIN_TOKEN"

// adminRoutes serves the operator API that `partita split` talks to:
//
//	GET  /admin/splits                         every split partition (JSON)
//	POST /admin/split?op=split|revert|merge&keyspace=K&table=T&key=KEY[&strategy=S]
//	/admin/snapshot, /admin/snapshots           backups (snapshot.go)
//	GET  /admin/advise[?keyspace=K]             the modeling advisor (advise.go)
//	GET  /admin/tablestats, /admin/toppartitions table statistics (tablestats.go)
//	GET  /admin/partitions, /admin/split_history, /admin/statements, /console  the web console (console.go)
//
// KEY is the partition key as CQL literals, e.g. 'asset_1', '2026-01-20'.
// Every /admin request passes adminAllowed first.
func (n *node) adminRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /admin/splits", n.adminGuard(func(w http.ResponseWriter, r *http.Request) {
		eng := n.eng
		if eng == nil || !n.serving.Load() {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(eng.SplitStatus())
	}))
	mux.HandleFunc("POST /admin/split", n.adminGuard(func(w http.ResponseWriter, r *http.Request) {
		eng := n.eng
		if eng == nil || !n.serving.Load() {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		q := r.URL.Query()
		err := eng.SplitOperation(r.Context(), q.Get("op"), q.Get("keyspace"), q.Get("table"), q.Get("key"), q.Get("strategy"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"status": "started"})
	}))
	n.snapshotRoutes(mux)
	n.adviseRoutes(mux)
	n.tableStatsRoutes(mux)
	n.consoleRoutes(mux)
}

// adminGuard runs h only for requests adminAllowed lets through.
func (n *node) adminGuard(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if status, why := adminAllowed(r, n.cfg.AdminToken); status != http.StatusOK {
			if status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Bearer realm="partita admin"`)
			}
			http.Error(w, why, status)
			return
		}
		h(w, r)
	}
}

// adminAllowed decides whether r may use /admin; it returns 200, or the
// status and reason to refuse it with.
//
//   - A request a browser sends on behalf of another site is refused
//     (Origin other than the server's own, or Sec-Fetch-Site other than
//     same-origin or none): a page the operator opens must not split,
//     merge or list keys. No CORS header is ever sent, so a browser does
//     not let another site read the answers nor add an Authorization
//     header.
//   - With a token, the request must carry "Authorization: Bearer TOKEN".
//   - Without one, only loopback clients are served, and only under a
//     Host that is an IP address or localhost, so that a name rebound to
//     127.0.0.1 (DNS rebinding) does not make another site same-origin.
func adminAllowed(r *http.Request, token string) (int, string) {
	if crossSite(r) {
		return http.StatusForbidden, "cross-site requests to /admin are refused"
	}
	if token != "" {
		auth, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(auth)), []byte(token)) != 1 {
			return http.StatusUnauthorized, "/admin needs the admin token: Authorization: Bearer <admin_token>"
		}
		return http.StatusOK, ""
	}
	if !loopbackPeer(r.RemoteAddr) {
		return http.StatusForbidden, "/admin answers only loopback clients when no admin_token is set"
	}
	if !localHost(r.Host) {
		return http.StatusForbidden, "/admin answers only requests for localhost or an IP address when no admin_token is set"
	}
	return http.StatusOK, ""
}

// crossSite reports whether a browser marked r as sent by another site.
func crossSite(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return true
	}
	origin := r.Header.Get("Origin")
	return origin != "" && origin != "http://"+r.Host && origin != "https://"+r.Host
}

func loopbackPeer(remoteAddr string) bool {
	ap, err := netip.ParseAddrPort(remoteAddr)
	return err == nil && ap.Addr().Unmap().IsLoopback()
}

// localHost reports whether a Host header names this machine without DNS:
// localhost or an IP address literal.
func localHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	_, err := netip.ParseAddr(host)
	return err == nil
}
