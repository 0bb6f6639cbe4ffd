package clusterstore_test

import (
	"testing"

	"github.com/partita-db/partita/test/internal/suites"
)

// The Python, Node.js and Java driver suites, unchanged, through a gateway
// over the reference Cassandra node: every statement they run is answered
// from the cluster. The Python paging matrix runs over tables of 0, 1, 999
// and 2,000 rows instead of 10,000 (PARTITA_PAGING_MATRIX_ROWS): each page
// through a gateway is a read of the cluster, and 10,000 rows at fetch size
// 1 would be 30,000 of them. The Java suite builds in a directory of its
// own, as test/e2e runs it in target/ at the same time.
func TestDriverSuitesThroughGateway(t *testing.T) {
	cfg := clusterConfig(t)
	t.Setenv("PARTITA_PAGING_MATRIX_ROWS", "0,1,999,2000")
	for _, suite := range []struct {
		name string
		run  func(*testing.T, string, int)
	}{{"python", suites.Python},
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
