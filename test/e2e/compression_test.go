package e2e_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gocql/gocql"
)

// countingDialer counts the bytes its connections read: what the server
// sent over the wire, compressed or not.
type countingDialer struct {
	d    net.Dialer
	read atomic.Int64
}

func (c *countingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	nc, err := c.d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: nc, read: &c.read}, nil
}

type countingConn struct {
	net.Conn
	read *atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read.Add(int64(n))
	return n, err
}

// largeResultKeyspace holds one partition of about 1 MiB of text, as
// result rows often are: repetitive enough to compress.
const largeResultKeyspace = "e2e_compression"

func largeResultSession(t testing.TB, compressor gocql.Compressor) (*gocql.Session, *countingDialer) {
	t.Helper()
	dialer := &countingDialer{}
	c := newCluster(node.Host, node.Port)
	c.Keyspace = largeResultKeyspace
	c.Compressor = compressor
	c.Dialer = dialer
	c.NumConns = 1
	s, err := c.CreateSession()
	if err != nil {
		t.Fatalf("connect with compression %v: %v", compressor, err)
	}
	t.Cleanup(s.Close)
	return s, dialer
}

var largeRows = func() []string {
	rows := make([]string, 256)
	for i := range rows {
		var b strings.Builder
		for j := 0; b.Len() < 4096; j++ {
			fmt.Fprintf(&b, "row %d, item %d: status=ok; ", i, j)
		}
		rows[i] = b.String()
	}
	return rows
}()

// largeResultReady is set once the keyspace is filled.
var largeResultReady atomic.Bool

func setupLargeResult(t testing.TB) {
	t.Helper()
	if largeResultReady.Load() {
		return
	}
	c := newCluster(node.Host, node.Port)
	admin, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for _, stmt := range []string{
		"DROP KEYSPACE IF EXISTS " + largeResultKeyspace,
		"CREATE KEYSPACE " + largeResultKeyspace + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE " + largeResultKeyspace + ".t (k int, c int, v text, PRIMARY KEY (k, c))",
	} {
		if err := admin.Query(stmt).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	for i, v := range largeRows {
		if err := admin.Query("INSERT INTO "+largeResultKeyspace+".t (k, c, v) VALUES (1, ?, ?)", i, v).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	largeResultReady.Store(true)
}

// readLargeResult reads the 1 MiB partition in one page and checks it.
func readLargeResult(t testing.TB, s *gocql.Session) {
	iter := s.Query("SELECT c, v FROM t WHERE k = 1").PageSize(1000).Iter()
	var (
		c int
		v string
		n int
	)
	for iter.Scan(&c, &v) {
		if c != n || v != largeRows[c] {
			t.Fatalf("row %d: got c=%d, %d bytes", n, c, len(v))
		}
		n++
	}
	if err := iter.Close(); err != nil || n != len(largeRows) {
		t.Fatalf("%d rows: %v", n, err)
	}
}

// TestGocqlSnappy: gocql with its SnappyCompressor negotiates snappy
// (SUPPORTED lists it), writes and reads through compressed frames, and
// the 1 MiB result crosses the wire in far fewer bytes.
func TestGocqlSnappy(t *testing.T) {
	setupLargeResult(t)
	sent := map[string]int64{}
	for _, comp := range []gocql.Compressor{nil, gocql.SnappyCompressor{}} {
		s, dialer := largeResultSession(t, comp)
		mustExec(t, s, "INSERT INTO t (k, c, v) VALUES (2, 0, ?)", "through "+fmt.Sprint(comp))
		var v string
		if err := s.Query("SELECT v FROM t WHERE k = 2 AND c = 0").Scan(&v); err != nil || v != "through "+fmt.Sprint(comp) {
			t.Fatalf("%v: %q %v", comp, v, err)
		}
		before := dialer.read.Load()
		readLargeResult(t, s)
		sent[fmt.Sprint(comp)] = dialer.read.Load() - before
	}
	plain, snappy := sent["<nil>"], sent[fmt.Sprint(gocql.SnappyCompressor{})]
	t.Logf("1 MiB result: %d bytes plain, %d with snappy", plain, snappy)
	if plain < 1<<20 || snappy*3 > plain {
		t.Errorf("1 MiB result: %d bytes plain, %d with snappy", plain, snappy)
	}
}

// BenchmarkLargeResultCompression reads a 1 MiB result with gocql, plain
// and with snappy; wire-bytes/op is what crossed the socket.
func BenchmarkLargeResultCompression(b *testing.B) {
	setupLargeResult(b)
	for _, comp := range []gocql.Compressor{nil, gocql.SnappyCompressor{}} {
		name := "none"
		if comp != nil {
			name = comp.Name()
		}
		b.Run(name, func(b *testing.B) {
			s, dialer := largeResultSession(b, comp)
			readLargeResult(b, s)
			before := dialer.read.Load()
			b.SetBytes(int64(len(largeRows) * len(largeRows[0])))
			b.ResetTimer()
			for range b.N {
				readLargeResult(b, s)
			}
			b.ReportMetric(float64(dialer.read.Load()-before)/float64(b.N), "wire-bytes/op")
		})
	}
}

// pythonCompressionScript connects with the Python driver asking for one
// compression, reads the 1 MiB partition, and prints what its pooled
// connection compresses with.
const pythonCompressionScript = `
import sys
from cassandra.cluster import Cluster
host, port, comp, ks = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
cluster = Cluster([host], port=port, compression=comp, protocol_version=4)
session = cluster.connect(ks)
rows = list(session.execute("SELECT c, v FROM t WHERE k = 1"))
session.execute("INSERT INTO t (k, c, v) VALUES (3, 0, %s)", ["from python " + comp])
back = session.execute("SELECT v FROM t WHERE k = 3 AND c = 0").one().v
pool = list(session._pools.values())[0]
conn = pool._connection
print(len(rows), sum(len(r.v) for r in rows), back, conn.compressor.__module__ + "." + conn.compressor.__name__)
cluster.shutdown()
`

// TestPythonCompression: Debian's python3-cassandra with python3-lz4 and
// python3-snappy (scripts/test.sh installs them) negotiates each
// compression and reads the 1 MiB result through it.
func TestPythonCompression(t *testing.T) {
	const python = "/usr/bin/python3"
	if out, err := exec.Command(python, "-c", "import cassandra, lz4.block, snappy").CombinedOutput(); err != nil {
		t.Fatalf("python3-cassandra, python3-lz4 and python3-snappy are needed (%v: %s); install them with\n"+
			"    apt-get install -y python3-cassandra python3-lz4 python3-snappy\nor run scripts/test.sh, which does", err, bytes.TrimSpace(out))
	}
	setupLargeResult(t)
	want := 0
	for _, r := range largeRows {
		want += len(r)
	}
	for comp, compressor := range map[string]string{"lz4": "cassandra.connection.lz4_compress", "snappy": "snappy.snappy.compress"} {
		t.Run(comp, func(t *testing.T) {
			out, err := exec.Command(python, "-c", pythonCompressionScript, node.Host, strconv.Itoa(node.Port), comp, largeResultKeyspace).CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			got := strings.TrimSpace(string(out))
			if wantOut := fmt.Sprintf("%d %d from python %s %s", len(largeRows), want, comp, compressor); got != wantOut {
				t.Fatalf("got %q, want %q", got, wantOut)
			}
		})
	}
}
