package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/gocql/gocql"
)

// Keyspace holds the benchmark tables on the server under test.
const Keyspace = "partita_bench"

// requestTimeout bounds one request; deleting a million rows is the
// slowest one the workloads send.
const requestTimeout = 2 * time.Minute

// cqlSystem drives a CQL server through gocql: Partita, or a Cassandra
// peer, which get the same driver settings, keyspace, tables and
// statements.
type cqlSystem struct {
	label   string
	session *gocql.Session
	// pid, when set, returns the server's process id, whose RSS the
	// runner samples (0: not measured).
	pid func() int
	// own marks a server in a process of its own (a Partita child
	// process, a Cassandra JVM): its CPU time is measured per step.
	own bool
	// httpAddr, when set, returns a Partita server's HTTP address, whose
	// /metrics and /admin/cpuprofile the runner uses.
	httpAddr func() string
	http     *http.Client
}

// newCluster configures gocql for addr: protocol v4, conns connections,
// consistency ONE (a single node).
func newCluster(addr string, conns int) (*gocql.ClusterConfig, error) {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("CQL address %q: %w", addr, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return nil, fmt.Errorf("CQL address %q: bad port", addr)
	}
	ip := net.ParseIP(host)
	if ip == nil {
		ips, err := net.LookupIP(host)
		if err != nil || len(ips) == 0 {
			return nil, fmt.Errorf("CQL address %q: cannot resolve %s: %v", addr, host, err)
		}
		ip = ips[0]
	}
	c := gocql.NewCluster(ip.String())
	c.Port = port
	c.ProtoVersion = 4
	c.NumConns = conns
	c.Consistency = gocql.One
	c.Timeout = requestTimeout
	c.WriteTimeout = requestTimeout
	c.ConnectTimeout = 10 * time.Second
	c.Logger = discardLogger{}
	// Address translation keeps the driver on the address it was given
	// even when the node advertises another one.
	c.AddressTranslator = gocql.AddressTranslatorFunc(func(net.IP, int) (net.IP, int) {
		return ip, port
	})
	return c, nil
}

// newCQLSystem creates the keyspace on the server at addr and opens a
// session in it; label is the system's name in the report.
func newCQLSystem(ctx context.Context, label, addr string, conns int) (*cqlSystem, error) {
	return newCQLSystemIn(ctx, label, addr, Keyspace, conns)
}

// newCQLSystemIn is newCQLSystem in the given keyspace.
func newCQLSystemIn(ctx context.Context, label, addr, keyspace string, conns int) (*cqlSystem, error) {
	cluster, err := newCluster(addr, conns)
	if err != nil {
		return nil, err
	}
	boot, err := cluster.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", addr, err)
	}
	err = boot.Query("CREATE KEYSPACE IF NOT EXISTS " + keyspace +
		" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").WithContext(ctx).Exec()
	boot.Close()
	if err != nil {
		return nil, fmt.Errorf("create keyspace: %w", err)
	}
	cluster.Keyspace = keyspace
	s, err := cluster.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", addr, err)
	}
	return &cqlSystem{label: label, session: s}, nil
}

func (p *cqlSystem) name() string { return p.label }

func (p *cqlSystem) serverPid() int {
	if p.pid == nil {
		return 0
	}
	return p.pid()
}

func (p *cqlSystem) ownProcess() bool { return p.own }

func (p *cqlSystem) meter() *serverMeter {
	if !p.own || p.serverPid() == 0 {
		return nil
	}
	m := &serverMeter{pid: p.serverPid(), client: p.httpClient()}
	if addr := p.httpAddress(); addr != "" {
		m.metricsURL = "http://" + addr + "/metrics"
	}
	return m
}

func (p *cqlSystem) httpAddress() string {
	if p.httpAddr == nil {
		return ""
	}
	return p.httpAddr()
}

func (p *cqlSystem) httpClient() *http.Client {
	if p.http == nil {
		p.http = &http.Client{Timeout: 2 * time.Minute}
	}
	return p.http
}

func (p *cqlSystem) canProfile() bool { return p.httpAddress() != "" }

// startProfile starts the server's CPU profiler through its admin port.
func (p *cqlSystem) startProfile(ctx context.Context, path string) (func() error, error) {
	return startAdminProfile(ctx, p.httpClient(), p.httpAddress(), path)
}

// startAdminProfile starts a server's CPU profiler through its admin port
// (POST /admin/cpuprofile?op=start); the function returned stops it (op=stop
// answers the profile) and writes the profile to path.
func startAdminProfile(ctx context.Context, client *http.Client, httpAddr, path string) (func() error, error) {
	base := "http://" + httpAddr + "/admin/cpuprofile?op="
	if _, err := adminPost(ctx, client, base+"start"); err != nil {
		return nil, err
	}
	return func() error {
		b, err := adminPost(context.WithoutCancel(ctx), client, base+"stop")
		if err != nil {
			return err
		}
		return os.WriteFile(path, b, 0o644)
	}, nil
}

func adminPost(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return nil, err
	}
	// The server inherits the harness's environment, so its admin token
	// (cmd/partita) is ours.
	if token := os.Getenv("PARTITA_ADMIN_TOKEN"); token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("POST %s: %s: %s", url, resp.Status, bytes.TrimSpace(b))
	}
	return b, err
}

func (p *cqlSystem) createTables(ctx context.Context, tables []*table) error {
	for _, t := range tables {
		if err := p.session.Query("DROP TABLE IF EXISTS " + t.name).WithContext(ctx).Exec(); err != nil {
			return fmt.Errorf("drop %s: %w", t.name, err)
		}
		if err := p.session.Query(t.createCQL()).WithContext(ctx).Exec(); err != nil {
			return fmt.Errorf("create %s: %w", t.name, err)
		}
	}
	return nil
}

// prepare returns the op; gocql prepares the statement on its first
// execution and caches it, so every later request is an EXECUTE.
func (p *cqlSystem) prepare(_ context.Context, st statement) (op, error) {
	text := st.cql
	if st.kind == kindRead {
		return func(ctx context.Context, rows [][]any) (int, error) {
			iter := p.session.Query(text, rows[0]...).WithContext(ctx).Iter()
			rd, err := iter.RowData()
			if err != nil {
				iter.Close()
				return 0, err
			}
			n := 0
			for iter.Scan(rd.Values...) {
				n++
			}
			return n, iter.Close()
		}, nil
	}
	return func(ctx context.Context, rows [][]any) (int, error) {
		if len(rows) == 1 {
			return 0, p.session.Query(text, rows[0]...).WithContext(ctx).Exec()
		}
		b := p.session.NewBatch(gocql.UnloggedBatch).WithContext(ctx)
		for _, r := range rows {
			b.Query(text, r...)
		}
		return 0, p.session.ExecuteBatch(b)
	}, nil
}

func (p *cqlSystem) prepareCAS(_ context.Context, update, read statement) (casOp, error) {
	text := update.cql
	return func(ctx context.Context, args []any) (bool, int64, error) {
		cur := map[string]any{}
		applied, err := p.session.Query(text, args...).WithContext(ctx).SerialConsistency(gocql.Serial).MapScanCAS(cur)
		if err != nil || applied {
			return applied, 0, err
		}
		v, ok := cur["version"].(int64)
		if !ok {
			return false, 0, fmt.Errorf("conditional update not applied, and the result carries no bigint version: %v", cur)
		}
		return false, v, nil
	}, nil
}

func (p *cqlSystem) close() error {
	p.session.Close()
	return nil
}

// discardLogger keeps gocql's reconnection chatter out of the report.
type discardLogger struct{}

func (discardLogger) Print(...any)          {}
func (discardLogger) Printf(string, ...any) {}
func (discardLogger) Println(...any)        {}
