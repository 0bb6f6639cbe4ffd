package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestBenchArgv: `partita bench ARGS` runs partita-bench from PATH with the
// same arguments, and without it `go run` of the harness's package.
func TestBenchArgv(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, benchCommand)
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	goTool := filepath.Join(t.TempDir(), "go")
	if err := os.WriteFile(goTool, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"--workload", "iot", "--quick"}

	t.Setenv("PATH", dir+string(os.PathListSeparator)+filepath.Dir(goTool))
	got, err := benchArgv(args)
	if want := append([]string{fake}, args...); err != nil || !slices.Equal(got, want) {
		t.Errorf("with partita-bench on PATH: %q, %v; want %q", got, err, want)
	}

	t.Setenv("PATH", filepath.Dir(goTool))
	got, err = benchArgv(args)
	if want := append([]string{goTool, "run", benchPackage}, args...); err != nil || !slices.Equal(got, want) {
		t.Errorf("with only go on PATH: %q, %v; want %q", got, err, want)
	}

	t.Setenv("PATH", t.TempDir())
	if got, err := benchArgv(args); err == nil {
		t.Errorf("with neither: %q, want an error", got)
	}
}
