package engine_test

import (
	"path/filepath"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/partita-db/partita/internal/cqltest"
)

// TestDataDriven runs every file in testdata as a cqlsh-like session.
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, filepath.Join("testdata"), func(t *testing.T, path string) {
		cqltest.RunFile(t, path)
	})
}
