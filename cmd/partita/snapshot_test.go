package main

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/config"
	"github.com/partita-db/partita/internal/storage"
)

// TestSnapshotCommands drives snapshot, listsnapshots and clearsnapshot
// against the admin API of a node whose embedded store is open, with an
// admin token, and restore on the directory it made.
func TestSnapshotCommands(t *testing.T) {
	dir := t.TempDir()
	st, err := storage.Open(storage.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cfg := config.Default()
	cfg.DataDir, cfg.AdminToken = dir, "s3cret"
	n := &node{cfg: cfg, pebble: st, log: slog.New(slog.DiscardHandler)}
	n.serving.Store(true)
	mux := http.NewServeMux()
	n.adminRoutes(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")

	run := func(args ...string) (string, error) {
		root := newRootCmd()
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&out)
		root.SetArgs(args)
		err := root.Execute()
		return out.String(), err
	}
	// Without the token the server refuses.
	if out, err := run("snapshot", "--http-addr", addr, "-t", "t1"); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("snapshot without the token: %v %s", err, out)
	}
	t.Setenv(adminTokenEnv, "s3cret")
	out, err := run("snapshot", "--http-addr", addr, "-t", "t1")
	if err != nil || !strings.Contains(out, filepath.Join(dir, "snapshots", "t1")) {
		t.Fatalf("snapshot: %v %s", err, out)
	}
	if out, err := run("snapshot", "--http-addr", addr, "-t", "t1"); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("second snapshot t1: %v %s", err, out)
	}
	if out, err := run("snapshot", "--http-addr", addr, "-t", "../escape"); err == nil || !strings.Contains(err.Error(), "invalid snapshot tag") {
		t.Fatalf("snapshot with a path as tag: %v %s", err, out)
	}
	if out, err := run("snapshot", "--http-addr", addr); err != nil || !strings.Contains(out, "snapshots") {
		t.Fatalf("snapshot with the default tag: %v %s", err, out)
	}
	out, err = run("listsnapshots", "--http-addr", addr)
	if err != nil || !strings.Contains(out, "t1") || strings.Count(out, filepath.Join(dir, "snapshots")) != 2 {
		t.Fatalf("listsnapshots: %v\n%s", err, out)
	}
	if out, err := run("clearsnapshot", "--http-addr", addr); err == nil {
		t.Fatalf("clearsnapshot with neither -t nor --all succeeded: %s", out)
	}

	// restore copies the snapshot into a new directory, and only a new one.
	target := filepath.Join(t.TempDir(), "restored")
	if out, err := run("restore", "--snapshot", filepath.Join(dir, "snapshots", "t1"), "--data-dir", target); err != nil {
		t.Fatalf("restore: %v %s", err, out)
	}
	if out, err := run("restore", "--snapshot", filepath.Join(dir, "snapshots", "t1"), "--data-dir", target); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("restore into the same directory again: %v %s", err, out)
	}
	if out, err := run("restore", "--snapshot", dir+"/nothing", "--data-dir", t.TempDir()+"/x"); err == nil {
		t.Fatalf("restore from a missing snapshot: %s", out)
	}
	restored, err := storage.Open(storage.Options{Dir: target})
	if err != nil {
		t.Fatalf("open the restored directory: %v", err)
	}
	restored.Close()

	if out, err := run("clearsnapshot", "--http-addr", addr, "-t", "t1"); err != nil || !strings.Contains(out, "removed snapshot t1") {
		t.Fatalf("clearsnapshot -t t1: %v %s", err, out)
	}
	if out, err := run("clearsnapshot", "--http-addr", addr, "--all"); err != nil || !strings.Contains(out, "removed snapshot") {
		t.Fatalf("clearsnapshot --all: %v %s", err, out)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "snapshots")); len(entries) != 0 {
		t.Fatalf("snapshots left after clearsnapshot --all: %v", entries)
	}
	if out, err := run("listsnapshots", "--http-addr", addr); err != nil || !strings.Contains(out, "There are no snapshots") {
		t.Fatalf("listsnapshots after clearing: %v %s", err, out)
	}
}
