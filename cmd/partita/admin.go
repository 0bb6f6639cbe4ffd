package main

import (
	"encoding/json"
	"net/http"
)

// adminRoutes serves the operator API that `partita split` talks to:
//
//	GET  /admin/splits                         every split partition (JSON)
//	POST /admin/split?op=split|revert|merge&keyspace=K&table=T&key=KEY[&strategy=S]
//
// KEY is the partition key as CQL literals, e.g. 'asset_1', '2026-01-20'.
func (n *node) adminRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /admin/splits", func(w http.ResponseWriter, r *http.Request) {
		eng := n.eng
		if eng == nil || !n.serving.Load() {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(eng.SplitStatus())
	})
	mux.HandleFunc("POST /admin/split", func(w http.ResponseWriter, r *http.Request) {
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
	})
}
