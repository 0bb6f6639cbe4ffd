package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestServerLinksNoBenchmarkDeps keeps the server binary free of what only
// the benchmark harness needs (cmd/partita-bench): its package, the
// PostgreSQL driver, the charts, the histograms and the progress bars, and
// of the cgo zstd binding, which go.mod replaces with a pure-Go one
// (docs/performance.md, "Build cost"). gocql stays: the gateway
// (serve --backend cassandra) drives its cluster with it.
func TestServerLinksNoBenchmarkDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{len .CgoFiles}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	banned := []string{
		"github.com/partita-db/partita/internal/bench",
		"github.com/jackc/pgx",
		"gonum.org/v1/plot",
		"github.com/HdrHistogram/hdrhistogram-go",
		"github.com/schollz/progressbar",
	}
	sawGocql := false
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, cgoFiles, _ := strings.Cut(line, " ")
		for _, b := range banned {
			if pkg == b || strings.HasPrefix(pkg, b+"/") {
				t.Errorf("the server imports %s", pkg)
			}
		}
		if pkg == "github.com/DataDog/zstd" && cgoFiles != "0" {
			t.Errorf("the server compiles the cgo zstd binding (%s cgo files); go.mod's replace is gone", cgoFiles)
		}
		sawGocql = sawGocql || pkg == "github.com/gocql/gocql"
	}
	if !sawGocql {
		t.Error("gocql is not among the server's imports: is the gateway backend gone, or this test stale?")
	}
}
