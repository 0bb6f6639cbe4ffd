package main

import (
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/config"
)

// TestAdminAllowed: who may use /admin on the HTTP port, with and without
// an admin_token. The handlers behind the guard answer 503 here (the node
// has no engine), so 503 means "let through".
func TestAdminAllowed(t *testing.T) {
	for _, tc := range []struct {
		name    string
		token   string
		method  string
		path    string
		remote  string
		host    string
		headers map[string]string
		want    int
	}{
		{name: "no token, loopback POST", method: "POST", path: "/admin/split", remote: "127.0.0.1:5000", host: "127.0.0.1:9180", want: 503},
		{name: "no token, loopback GET", method: "GET", path: "/admin/splits", remote: "127.0.0.1:5000", host: "localhost:9180", want: 503},
		{name: "no token, IPv6 loopback", method: "POST", path: "/admin/split", remote: "[::1]:5000", host: "[::1]:9180", want: 503},
		{name: "no token, remote POST", method: "POST", path: "/admin/split", remote: "10.1.2.3:5000", host: "10.0.0.1:9180", want: 403},
		{name: "no token, remote GET lists no keys", method: "GET", path: "/admin/splits", remote: "10.1.2.3:5000", host: "10.0.0.1:9180", want: 403},
		{name: "no token, rebound name", method: "POST", path: "/admin/split", remote: "127.0.0.1:5000", host: "evil.example:9180", want: 403},
		{name: "no token, cross-site form", method: "POST", path: "/admin/split", remote: "127.0.0.1:5000", host: "127.0.0.1:9180",
			headers: map[string]string{"Origin": "https://evil.example"}, want: 403},
		{name: "no token, cross-site fetch", method: "POST", path: "/admin/split", remote: "127.0.0.1:5000", host: "127.0.0.1:9180",
			headers: map[string]string{"Sec-Fetch-Site": "cross-site"}, want: 403},
		{name: "no token, same-site fetch", method: "GET", path: "/admin/splits", remote: "127.0.0.1:5000", host: "127.0.0.1:9180",
			headers: map[string]string{"Sec-Fetch-Site": "same-site"}, want: 403},
		{name: "no token, same origin", method: "POST", path: "/admin/split", remote: "127.0.0.1:5000", host: "127.0.0.1:9180",
			headers: map[string]string{"Origin": "http://127.0.0.1:9180", "Sec-Fetch-Site": "same-origin"}, want: 503},
		{name: "token, none sent", token: "s3cret", method: "POST", path: "/admin/split", remote: "127.0.0.1:5000", host: "127.0.0.1:9180", want: 401},
		{name: "token, GET none sent", token: "s3cret", method: "GET", path: "/admin/splits", remote: "127.0.0.1:5000", host: "127.0.0.1:9180", want: 401},
		{name: "token, wrong one", token: "s3cret", method: "POST", path: "/admin/split", remote: "10.1.2.3:5000", host: "db1:9180",
			headers: map[string]string{"Authorization": "Bearer guess"}, want: 401},
		{name: "token, basic auth", token: "s3cret", method: "GET", path: "/admin/splits", remote: "10.1.2.3:5000", host: "db1:9180",
			headers: map[string]string{"Authorization": "Basic czNjcmV0"}, want: 401},
		{name: "token, remote with it", token: "s3cret", method: "POST", path: "/admin/split", remote: "10.1.2.3:5000", host: "db1:9180",
			headers: map[string]string{"Authorization": "Bearer s3cret"}, want: 503},
		{name: "token, cross-site with it", token: "s3cret", method: "POST", path: "/admin/split", remote: "10.1.2.3:5000", host: "db1:9180",
			headers: map[string]string{"Authorization": "Bearer s3cret", "Origin": "null"}, want: 403},
		{name: "metrics stay open", token: "s3cret", method: "GET", path: "/healthz", remote: "10.1.2.3:5000", host: "db1:9180", want: 503},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.AdminToken = tc.token
			n := &node{cfg: cfg}
			mux := http.NewServeMux()
			mux.HandleFunc("/healthz", n.healthz)
			n.adminRoutes(mux)
			req := httptest.NewRequest(tc.method, "http://"+tc.host+tc.path, nil)
			req.RemoteAddr = tc.remote
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			mux.ServeHTTP(rec, req)
			if rec.Code != tc.want {
				t.Fatalf("status %d (%s), want %d", rec.Code, strings.TrimSpace(rec.Body.String()), tc.want)
			}
			if rec.Code == http.StatusUnauthorized && rec.Header().Get("WWW-Authenticate") == "" {
				t.Fatal("401 without WWW-Authenticate")
			}
			if rec.Header().Get("Access-Control-Allow-Origin") != "" {
				t.Fatal("a CORS header was sent")
			}
		})
	}
}

// TestSplitCommandToken: a node started with PARTITA_ADMIN_TOKEN refuses
// `partita split status` without the token, and answers it given by
// --admin-token or by the environment; /healthz needs none.
func TestSplitCommandToken(t *testing.T) {
	t.Setenv(adminTokenEnv, "tok-123")
	_, _, httpAddr, logs := startServe(t)
	if !strings.Contains(logs.String(), "admin=\"bearer token\"") {
		t.Fatalf("the HTTP line does not say /admin needs the token:\n%s", logs)
	}
	checkHealthz(t, httpAddr)
	bin := buildPartita(t)
	run := func(env string, args ...string) (string, error) {
		cmd := exec.Command(bin, append([]string{"split", "status", "--http-addr", httpAddr}, args...)...)
		cmd.Env = append(cmd.Environ(), adminTokenEnv+"="+env)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run(""); err == nil || !strings.Contains(out, "401 Unauthorized: /admin needs the admin token") {
		t.Fatalf("status without the token: %v\n%s", err, out)
	}
	if out, err := run("", "--admin-token", "wrong"); err == nil || !strings.Contains(out, "401 Unauthorized") {
		t.Fatalf("status with a wrong token: %v\n%s", err, out)
	}
	if out, err := run("", "--admin-token", "tok-123"); err != nil || !strings.Contains(out, "no split partitions") {
		t.Fatalf("status with --admin-token: %v\n%s", err, out)
	}
	if out, err := run("tok-123"); err != nil || !strings.Contains(out, "no split partitions") {
		t.Fatalf("status with %s: %v\n%s", adminTokenEnv, err, out)
	}
}
