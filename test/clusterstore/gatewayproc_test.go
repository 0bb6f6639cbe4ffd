package clusterstore_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/split"
	"github.com/partita-db/partita/test/internal/partitaproc"
)

// Gateway processes: `partita serve --backend cassandra` built from
// cmd/partita, over the node under test, for the fault tests of
// process_faults_test.go.

// gatewayProcConfig gives the gateways 30 s request timeouts: the tests
// check answers, not timing, and a write into a range that a dead
// gateway announced waits for the takeover (an owner lease and a lease
// plus a drain).
const gatewayProcConfig = `read_request_timeout: 30s
range_request_timeout: 30s
write_request_timeout: 30s
counter_write_request_timeout: 30s
cas_contention_timeout: 30s
`

// gatewayProc is one gateway process.
type gatewayProc struct {
	name string
	*partitaproc.Process
	httpAddr string
}

// startGatewayProc starts a gateway over the node at contact (host:port),
// keeping its tables in keyspace, with the split-state lease and drain
// given (its owner lease is three times their sum).
func startGatewayProc(t *testing.T, name, keyspace, contact string, lease, drain time.Duration) *gatewayProc {
	t.Helper()
	cfgPath := filepath.Join(t.TempDir(), "partita.yaml")
	if err := os.WriteFile(cfgPath, []byte(gatewayProcConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	p := partitaproc.Start(t, "serve", "--backend", "cassandra", "--contact-points", contact,
		"--backend-keyspace", keyspace, "--backend-state-lease", lease.String(), "--backend-state-drain", drain.String(),
		"--config", cfgPath, "--data-dir", t.TempDir(), "--cql-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0",
		"--log-level", "info")
	return &gatewayProc{name: name, Process: p, httpAddr: p.HTTPAddr(t)}
}

// contactPoint is the host:port of the node clusterConfig points at.
func contactPoint(cfg *gocql.ClusterConfig) string {
	return net.JoinHostPort(cfg.Hosts[0], strconv.Itoa(cfg.Port))
}

// session is a driver session on g only (the gateways list each other in
// system.peers), with a timeout longer than the gateways' own.
func (g *gatewayProc) session(t *testing.T) *gocql.Session {
	t.Helper()
	c := gocql.NewCluster(g.Host)
	c.Port = g.Port
	c.DisableInitialHostLookup = true
	c.Timeout = 60 * time.Second
	c.ConnectTimeout = 20 * time.Second
	c.NumConns = 1
	c.Logger = quietLogger{} // a killed gateway's redials
	s, err := c.CreateSession()
	if err != nil {
		t.Fatalf("connect to gateway %s: %v\n%s", g.name, err, g.Logs)
	}
	t.Cleanup(s.Close)
	return s
}

// quietLogger drops the driver's log lines.
type quietLogger struct{}

func (quietLogger) Print(...any)          {}
func (quietLogger) Printf(string, ...any) {}
func (quietLogger) Println(...any)        {}

// splitHot asks g's operator API to split app.hot's partition 'hot'.
func (g *gatewayProc) splitHot(strategy string) error {
	return partitaproc.AdminSplit(g.httpAddr, url.Values{"op": {"split"}, "keyspace": {"app"}, "table": {"hot"}, "key": {"'hot'"}, "strategy": {strategy}})
}

// hotSplit is what a gateway's system_partita.splits says of the hot
// partition ("" state: not split).
type hotSplit struct {
	state     string
	rowsMoved int64
	children  int
}

func readHotSplit(s *gocql.Session) (hotSplit, error) {
	var h hotSplit
	var children []string
	it := s.Query(`SELECT state, rows_moved, children FROM system_partita.splits WHERE keyspace_name = 'app' AND table_name = 'hot'`).Iter()
	for it.Scan(&h.state, &h.rowsMoved, &children) {
		h.children = len(children)
	}
	return h, it.Close()
}

// sharedState reads the one split state row of the keyspace straight
// from the cluster (internal/split shared.go): the stage, cursor, pending
// range and owner of the migration, which no gateway's view can hide.
func sharedState(t *testing.T, node *gocql.Session, keyspace string) (split.State, uint64) {
	t.Helper()
	var value []byte
	var epoch int64
	var states []split.State
	var epochs []uint64
	it := node.Query(fmt.Sprintf(`SELECT epoch, value FROM %s.splitstates WHERE bucket = 0`, keyspace)).Iter()
	for it.Scan(&epoch, &value) {
		var s split.State
		if len(value) > 0 {
			if err := json.Unmarshal(value, &s); err != nil {
				t.Fatalf("state row: %v", err)
			}
		}
		states, epochs = append(states, s), append(epochs, uint64(epoch))
	}
	if err := it.Close(); err != nil {
		t.Fatalf("read the split states: %v", err)
	}
	if len(states) != 1 {
		t.Fatalf("%d split state rows, want the hot partition's only", len(states))
	}
	return states[0], epochs[0]
}

// hotRows is what the clients of the hot partition know: the rows whose
// insert was acknowledged, those in flight, and those whose outcome is
// unknown (their gateway died or answered an error). Each clustering key
// is written once, so a row read is either one of these or a defect.
type hotRows struct {
	mu        sync.Mutex
	acked     map[int]string
	inFlight  map[int]string
	uncertain map[int]string
}

func newHotRows() *hotRows {
	return &hotRows{acked: map[int]string{}, inFlight: map[int]string{}, uncertain: map[int]string{}}
}

// write inserts row c through s and records its outcome.
func (m *hotRows) write(s *gocql.Session, c int, v string) error {
	m.mu.Lock()
	m.inFlight[c] = v
	m.mu.Unlock()
	err := s.Query(`INSERT INTO app.hot (k, c, v) VALUES ('hot', ?, ?)`, c, v).Exec()
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.inFlight, c)
	if err != nil {
		m.uncertain[c] = v
		return err
	}
	m.acked[c] = v
	return nil
}

// ackedNow copies the acknowledged rows.
func (m *hotRows) ackedNow() map[int]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[int]string, len(m.acked))
	for k, v := range m.acked {
		out[k] = v
	}
	return out
}

// hotRow is one row read back, in read order.
type hotRow struct {
	c int
	v string
}

// readHot reads the hot partition's rows with c >= from through s, paged.
func readHot(s *gocql.Session, from int, desc bool, pageSize int) ([]hotRow, error) {
	q := `SELECT c, v FROM app.hot WHERE k = 'hot' AND c >= ?`
	if desc {
		q += ` ORDER BY c DESC`
	}
	it := s.Query(q, from).PageSize(pageSize).Iter()
	var rows []hotRow
	var r hotRow
	for it.Scan(&r.c, &r.v) {
		rows = append(rows, r)
	}
	return rows, it.Close()
}

// check compares rows read (c >= from) with the model: every row
// acknowledged before the read began (before) is there once with its
// value, rows come in clustering order with none twice, and every other
// row is one a client wrote (acknowledged since, in flight, or of unknown
// outcome) with the value written.
func (m *hotRows) check(rows []hotRow, before map[int]string, from int, desc bool) error {
	seen := map[int]bool{}
	for i, r := range rows {
		if seen[r.c] {
			return fmt.Errorf("row %d read twice", r.c)
		}
		seen[r.c] = true
		if i > 0 && (r.c > rows[i-1].c) == desc {
			return fmt.Errorf("row %d after %d: out of order", r.c, rows[i-1].c)
		}
	}
	var missing []int
	for c, v := range before {
		if c < from {
			continue
		}
		if !seen[c] {
			missing = append(missing, c)
		} else if got := valueOf(rows, c); got != v {
			return fmt.Errorf("row %d = %q, acknowledged %q", c, got, v)
		}
	}
	if len(missing) > 0 {
		sort.Ints(missing)
		return fmt.Errorf("%d acknowledged rows missing of %d read (first %v)", len(missing), len(rows), missing[:min(len(missing), 5)])
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range rows {
		v, ok := m.acked[r.c]
		if !ok {
			v, ok = m.inFlight[r.c]
		}
		if !ok {
			v, ok = m.uncertain[r.c]
		}
		if !ok || v != r.v {
			return fmt.Errorf("row %d = %q, which no client wrote", r.c, r.v)
		}
	}
	return nil
}

func valueOf(rows []hotRow, c int) string {
	for _, r := range rows {
		if r.c == c {
			return r.v
		}
	}
	return ""
}

// checkHot reads the whole partition through s both ways and by COUNT(*)
// and checks it against m, with no write running.
func checkHot(t *testing.T, who string, s *gocql.Session, m *hotRows) int {
	t.Helper()
	before := m.ackedNow()
	var n int
	for _, desc := range []bool{false, true} {
		rows, err := readHot(s, -1<<31, desc, 300)
		if err != nil {
			t.Fatalf("read through %s (descending %v): %v", who, desc, err)
		}
		if err := m.check(rows, before, -1<<31, desc); err != nil {
			t.Fatalf("read through %s (descending %v): %v", who, desc, err)
		}
		n = len(rows)
	}
	var count int
	if err := s.Query(`SELECT COUNT(*) FROM app.hot WHERE k = 'hot'`).Scan(&count); err != nil || count != n {
		t.Fatalf("COUNT(*) through %s = %d (%v), %d rows read", who, count, err, n)
	}
	return n
}

// createHotTable creates app.hot through s. The detector never splits it
// (the tests split it through the operator API); an operator's split cuts
// it into pieces of half split.max_rows rows.
func createHotTable(t *testing.T, s *gocql.Session, maxRows int) {
	t.Helper()
	for _, q := range []string{
		`CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
		fmt.Sprintf(`CREATE TABLE app.hot (k text, c int, v text, PRIMARY KEY (k, c)) WITH extensions = {'%s': '%s', '%s': '%s'}`,
			split.ExtEnabled, "false", split.ExtMaxRows, strconv.Itoa(maxRows)),
	} {
		if err := s.Query(q).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// loadHot writes rows c = 0, 2, 4, … (n of them) through the sessions in
// turn, 8 at a time; the odd keys are left for writes during the faults,
// so that those fall in every piece of a split.
func loadHot(t *testing.T, m *hotRows, n int, sessions ...*gocql.Session) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				if err := m.write(sessions[i%len(sessions)], 2*i, fmt.Sprintf("v%d", i)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatalf("load the hot partition: %v", err)
	default:
	}
}
