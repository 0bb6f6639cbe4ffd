package clusterstore_test

import (
	"testing"

	"github.com/partita-db/partita/test/internal/suites"
)

// The Python, Node.js and Java driver suites, unchanged, through a gateway
// over the reference Cassandra node: every statement they run is answered
// from the cluster. Left out: the Python paging matrix (test_paging.py
// writes and pages through 10,000 rows several times over, at fetch size 1
// too, each page a read of the cluster; paging over the gateway is covered
// by TestGatewayOverTheWire, TestReadPagesGrow and the engine's paging file
// in TestEngineDatadriven). The Java suite builds in a directory of its
// own, as test/e2e runs it in target/ at the same time.
func TestDriverSuitesThroughGateway(t *testing.T) {
	cfg := clusterConfig(t)
	for _, suite := range []struct {
		name string
		run  func(*testing.T, string, int)
	}{{"python", func(t *testing.T, host string, port int) { suites.PythonFiles(t, host, port, "test_[!p]*.py") }},
		{"node", suites.Node},
		{"java", func(t *testing.T, host string, port int) { suites.JavaIn(t, host, port, t.TempDir()) }}} {
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
