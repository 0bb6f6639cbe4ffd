package reference_test

import (
	"os"
	"testing"

	"github.com/partita-db/partita/test/internal/cassandra"
)

// TestMain stops the shared Cassandra node once every test has run, passed
// or failed.
func TestMain(m *testing.M) { os.Exit(cassandra.Main(m)) }
