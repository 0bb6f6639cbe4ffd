package clusterstore_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/clusterstore"
	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/engine"
)

// engineFiles are the engine's datadriven sessions that run unchanged over
// the cluster store: every statement's answer must equal the one the
// engine gives over its embedded store. Left out: key_limits (a clustering
// key whose encoding passes 64 KiB does not fit one backing clustering
// column, docs/design/gateway.md) and, to keep this test near two minutes,
// the files that exercise the planner and catalog more than storage (they
// pass too: PARTITA_CLUSTERSTORE_FILES runs them), and the files that read
// TTL() right after writing it (ttl, liveness, writetime_collections):
// their answers (ttl(v) = 1000) hold only when the write and the read fall
// within one second, which several cluster round trips on a loaded machine
// do not always give (seen in CI: 999). TestTTLAndStaticAndCollections
// covers TTLs here, and batch reads one straight after its write.
var engineFiles = []string{
	"basics",
	"deletes",
	"static",
	"timestamps",
	"collections",
	"counters",
	"lwt",
	"paging",
	"splitting",
	"ordering",
	"batch",
	"udt",
	"restrictions",
}

// TestEngineDatadriven runs the engine over the cluster store, each file
// in a keyspace of its own (PARTITA_CLUSTERSTORE_FILES=a,b narrows them).
func TestEngineDatadriven(t *testing.T) {
	files := engineFiles
	if only := os.Getenv("PARTITA_CLUSTERSTORE_FILES"); only != "" {
		files = strings.Split(only, ",")
	}
	cfg := clusterConfig(t)
	root := filepath.Join("..", "..", "internal", "engine", "testdata")
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			if fi, err := os.Stat(filepath.Join(root, name)); err == nil && fi.IsDir() {
				datadriven.Walk(t, filepath.Join(root, name), func(t *testing.T, path string) { runOverCluster(t, cfg, path) })
				return
			}
			runOverCluster(t, cfg, filepath.Join(root, name))
		})
	}
}

// runOverCluster runs one datadriven file on an engine over the cluster
// store, in a keyspace of its own.
func runOverCluster(t *testing.T, cfg *gocql.ClusterConfig, path string) {
	ks := newKeyspace("cse")
	t.Cleanup(func() { dropKeyspace(t, cfg, ks) })
	ecfg := engine.DefaultConfig()
	ecfg.SplitTick, ecfg.GCInterval = 0, 0
	ecfg.Timeouts = gatewayTimeouts()
	h := cqltest.NewWithBackend(t, ecfg, func() (backend.Backend, error) {
		return clusterstore.Open(context.Background(), clusterstore.Options{Cluster: cfg, Keyspace: ks, Consistency: gocql.One,
			StateLease: 100 * time.Millisecond, StateDrain: 50 * time.Millisecond}) // short split-state leases: a step waits Lease + Drain
	})
	datadriven.RunTest(t, path, func(_ *testing.T, d *datadriven.TestData) string { return h.Run(d) })
}
