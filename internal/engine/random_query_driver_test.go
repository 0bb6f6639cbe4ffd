package engine_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/server"
	"github.com/partita-db/partita/internal/storage"
)

// TestRandomQueriesOverDriver runs the random query comparison through
// gocql over a real socket, with the driver's own paging, for a sixth of
// PARTITA_RANDOM_QUERY_DURATION (TestRandomQueries has the rest). The node
// is wired as testserver wires it (test/internal/testserver, which this
// package cannot import).
//
// PARTITA_RANDOM_QUERY_REFERENCE=host:port runs it against that node
// instead, a real Cassandra (scripts/cassandra.sh start-node): that checks
// the test's own reference evaluator and rules, not Partita.
func TestRandomQueriesOverDriver(t *testing.T) {
	if testing.Short() {
		t.Skip("randomized comparison; runs for a fixed time")
	}
	cfg := rqConfigFromEnv(t)
	run := newRQRun(t, cfg.seed, 0x5eed)
	var tg *rqDriverTarget
	if addr := os.Getenv("PARTITA_RANDOM_QUERY_REFERENCE"); addr != "" {
		tg = newRQReferenceTarget(t, addr)
	} else {
		tg = newRQDriverTarget(t)
	}
	run.runFor(cfg, cfg.duration/6, []rqTarget{tg})
	run.report()
}

// rqDriverTarget is a node behind a gocql session.
type rqDriverTarget struct {
	label string
	s     *gocql.Session
	// reference: a real Cassandra, which builds indexes in the background.
	reference bool
}

// newRQReferenceTarget connects to a Cassandra node, in a keyspace of the
// test's own made afresh.
func newRQReferenceTarget(t *testing.T, addr string) *rqDriverTarget {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("PARTITA_RANDOM_QUERY_REFERENCE: %v", err)
	}
	c := gocql.NewCluster(host)
	c.Port, _ = strconv.Atoi(port)
	c.Timeout, c.ConnectTimeout = 30*time.Second, 30*time.Second
	s, err := rqDriverSession(c, "DROP KEYSPACE IF EXISTS ks")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return &rqDriverTarget{label: "cassandra", s: s, reference: true}
}

// rqDriverSession runs setup statements and the keyspace's creation on a
// first session, then opens one whose pooled connections all start with
// USE ks.
func rqDriverSession(c *gocql.ClusterConfig, setup ...string) (*gocql.Session, error) {
	first, err := c.CreateSession()
	if err != nil {
		return nil, err
	}
	defer first.Close()
	for _, stmt := range append(setup, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}") {
		if err := first.Query(stmt).Exec(); err != nil {
			return nil, fmt.Errorf("%s: %w", stmt, err)
		}
	}
	c.Keyspace = "ks"
	return c.CreateSession()
}

func newRQDriverTarget(t *testing.T) *rqDriverTarget {
	st, err := storage.Open(storage.Options{Dir: t.TempDir(), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	ecfg := engine.DefaultConfig()
	ecfg.RPCAddress, ecfg.ListenAddress, ecfg.NativePort = addr.IP, addr.IP, addr.Port
	eng, err := engine.Open(context.Background(), st, ecfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := server.New(server.DefaultConfig(), eng, slog.New(slog.DiscardHandler))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-served
		_ = eng.Close()
		_ = st.Close()
	})
	c := gocql.NewCluster(addr.IP.String())
	c.Port = addr.Port
	c.Timeout, c.ConnectTimeout = 10*time.Second, 10*time.Second
	s, err := rqDriverSession(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return &rqDriverTarget{label: "gocql", s: s}
}

func (d *rqDriverTarget) name() string { return d.label }

func (d *rqDriverTarget) exec(stmt string, ts int64) error {
	q := d.s.Query(stmt)
	if ts != 0 {
		q = q.WithTimestamp(ts)
	}
	if err := q.Exec(); err != nil {
		return err
	}
	if d.reference && strings.HasPrefix(stmt, "CREATE INDEX") {
		return d.awaitIndex(stmt[len("CREATE INDEX "):strings.Index(stmt, " ON ")])
	}
	return nil
}

// awaitIndex waits until Cassandra has built an index (it builds them in
// the background; system."IndexInfo" lists the built ones).
func (d *rqDriverTarget) awaitIndex(name string) error {
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var found string
		err := d.s.Query(`SELECT index_name FROM system."IndexInfo" WHERE table_name = 'ks' AND index_name = ?`, name).Scan(&found)
		if err == nil {
			return nil
		}
	}
	return fmt.Errorf("index %s not built after 60s", name)
}

func (d *rqDriverTarget) query(q *rqQuery, pageSize int) rqOutcome {
	var out rqOutcome
	sels := q.selectors()
	it := d.s.Query(q.cql()).PageSize(pageSize).Iter()
	dests := make([]any, len(sels))
	for i, s := range sels {
		dests[i] = rqDriverDest(s.typ())
	}
	if cols := it.Columns(); len(cols) > 0 && len(cols) != len(sels) {
		_ = it.Close()
		out.err, out.code = fmt.Errorf("%d result columns, want %d", len(cols), len(sels)), "columns"
		return out
	}
	for it.Scan(dests...) {
		row := make([]rqValue, len(sels))
		for i, s := range sels {
			row[i] = rqFromDriver(s.typ(), dests[i])
		}
		out.rows = append(out.rows, row)
	}
	if err := it.Close(); err != nil {
		out.err, out.code, out.msg = err, "driver", err.Error()
		var re gocql.RequestError
		if errors.As(err, &re) {
			out.code, out.msg = rqCodeName(re.Code()), re.Message()
			// Read failures and paging states it cannot read back.
			out.inconclusive = d.reference && (re.Code() == 0x1300 || re.Code() == 0x000a)
		}
	}
	return out
}

func rqCodeName(code int) string {
	if code == 0x2200 {
		return "Invalid 0x2200"
	}
	return fmt.Sprintf("0x%04x", code)
}

// rqDriverDest is a scan destination that keeps nulls apart (a pointer to
// a pointer is left nil for null).
func rqDriverDest(t rqType) any {
	switch t {
	case rqInt:
		return new(*int)
	case rqBigint:
		return new(*int64)
	case rqText:
		return new(*string)
	case rqTimestamp:
		return new(*time.Time)
	case rqUUID:
		return new(*gocql.UUID)
	}
	return new([]int)
}

func rqFromDriver(t rqType, dest any) rqValue {
	if t == rqSetInt {
		elems := *dest.(*[]int)
		if len(elems) == 0 {
			return nil
		}
		out := make([]int64, len(elems))
		for i, e := range elems {
			out[i] = int64(e)
		}
		return out
	}
	p := reflect.ValueOf(dest).Elem()
	if p.IsNil() {
		return nil
	}
	switch v := p.Elem().Interface().(type) {
	case int:
		return int64(v)
	case int64:
		return v
	case string:
		return v
	case time.Time:
		return v.UnixMilli()
	case gocql.UUID:
		return v.String()
	}
	return fmt.Sprintf("<unexpected %T>", p.Elem().Interface())
}

func (d *rqDriverTarget) split(string, rqOp)                {}
func (d *rqDriverTarget) finish()                           {}
func (d *rqDriverTarget) splitPartitions(string) (int, int) { return 0, 0 }
