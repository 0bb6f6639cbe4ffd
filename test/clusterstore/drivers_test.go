package clusterstore_test

import (
	"testing"

	"github.com/partita-db/partita/test/internal/suites"
)

// The Python and Node.js driver suites, unchanged, through a gateway over
// the reference Cassandra node: every statement they run is answered from
// the cluster. Left out: the Python paging matrix (test_paging.py writes
// 10,000 rows several times over, minutes through a gateway on a loaded
// single node; paging over the gateway is covered by TestGatewayOverTheWire
// and the engine's paging file in TestEngineDatadriven) and the Java suite
// (Maven builds it in one target directory, which this run and test/e2e's
// would share).
func TestDriverSuitesThroughGateway(t *testing.T) {
	cfg := clusterConfig(t)
	for _, suite := range []struct {
		name string
		run  func(*testing.T, string, int)
	}{{"python", func(t *testing.T, host string, port int) { suites.PythonFiles(t, host, port, "test_[!p]*.py") }},
		{"node", suites.Node}} {
		t.Run(suite.name, func(t *testing.T) {
			ks := newKeyspace("drv")
			g := startGateway(t, cfg, ks)
			defer func() {
				g.stop(t)
				dropKeyspace(t, cfg, ks)
			}()
			suite.run(t, g.addr.IP.String(), g.addr.Port)
		})
	}
}
