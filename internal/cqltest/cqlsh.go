package cqltest

import (
	"os"
	"path/filepath"
	"testing"
)

// CqlshPath is cqlsh from PyPI (6.2, with the Python driver 3.30 it
// needs), which scripts/test.sh installs into a virtual environment;
// PARTITA_CQLSH names another one. A missing cqlsh fails the test with
// the command that installs it.
func CqlshPath(t testing.TB) string {
	t.Helper()
	path := os.Getenv("PARTITA_CQLSH")
	if path == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatal(err)
		}
		path = filepath.Join(home, ".cache", "partita", "cqlsh-venv", "bin", "cqlsh")
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("cqlsh is missing (%v); install it with\n"+
			"    python3 -m venv ~/.cache/partita/cqlsh-venv && ~/.cache/partita/cqlsh-venv/bin/pip install cqlsh==6.2.2\n"+
			"or run scripts/test.sh, which does", err)
	}
	return path
}
