package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/config"
)

// TestCPUProfileRoutes: /admin/cpuprofile starts one profile at a time,
// stop answers it in pprof's format (gzip-compressed protobuf), and the
// admin guard keeps remote clients out.
func TestCPUProfileRoutes(t *testing.T) {
	n := &node{cfg: config.Default()}
	mux := http.NewServeMux()
	n.profileRoutes(mux)
	do := func(op, remote string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "http://127.0.0.1:9180/admin/cpuprofile?op="+op, nil)
		req.RemoteAddr = remote
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		return rec
	}
	const local, remote = "127.0.0.1:5000", "10.1.2.3:5000"
	if rec := do("start", remote); rec.Code != http.StatusForbidden {
		t.Fatalf("remote start: %d, want 403", rec.Code)
	}
	if rec := do("stop", local); rec.Code != http.StatusConflict {
		t.Fatalf("stop with no profile running: %d, want 409", rec.Code)
	}
	if rec := do("start", local); rec.Code != http.StatusOK {
		t.Fatalf("start: %d %s", rec.Code, rec.Body)
	}
	if rec := do("start", local); rec.Code != http.StatusConflict {
		t.Fatalf("second start: %d, want 409", rec.Code)
	}
	for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); {
	}
	rec := do("stop", local)
	if rec.Code != http.StatusOK || !bytes.HasPrefix(rec.Body.Bytes(), []byte{0x1f, 0x8b}) {
		t.Fatalf("stop: %d, %d bytes starting %x, want 200 and a gzip stream", rec.Code, rec.Body.Len(), rec.Body.Bytes()[:min(4, rec.Body.Len())])
	}
	if rec := do("rewind", local); rec.Code != http.StatusBadRequest {
		t.Fatalf("unknown op: %d, want 400", rec.Code)
	}
}
