package reference_test

import (
	"os"
	"testing"

	"github.com/partita-db/partita/test/internal/cassandra"
	"github.com/partita-db/partita/test/internal/partitaproc"
)

// TestMain stops the shared Cassandra node once every test has run, passed
// or failed, and removes the partita binary the gateway test built.
func TestMain(m *testing.M) {
	code := cassandra.Main(m)
	partitaproc.RemoveBinary()
	os.Exit(code)
}
