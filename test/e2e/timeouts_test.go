package e2e_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/token"
	"github.com/partita-db/partita/test/internal/testserver"
)

// limitsNode starts a node of its own with configure applied to its
// engine configuration, and a keyspace ks with table t (k int, c int,
// v text, PRIMARY KEY (k, c)) holding partitions of 100 rows each.
func limitsNode(t *testing.T, opts testserver.Options, ks string, partitions int) *testserver.Server {
	t.Helper()
	opts.DataDir = t.TempDir()
	srv, err := testserver.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	c := newCluster(srv.Host, srv.Port)
	if opts.PasswordAuthentication {
		c.Authenticator = gocql.PasswordAuthenticator{Username: "cassandra", Password: "cassandra"}
	}
	s, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mustExec(t, s, "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': 1}")
	mustExec(t, s, "CREATE TABLE "+ks+".t (k int, c int, v text, l list<int>, PRIMARY KEY (k, c))")
	for k := range partitions {
		b := s.NewBatch(gocql.UnloggedBatch)
		for c := range 100 {
			b.Query("INSERT INTO "+ks+".t (k, c, v) VALUES (?, ?, ?)", k, c, fmt.Sprintf("value %d", c))
		}
		if err := s.ExecuteBatch(b); err != nil {
			t.Fatal(err)
		}
	}
	return srv
}

// pythonLimitsScript runs one statement through the Python driver and
// prints what came back: the exception's class and fields, or the
// warnings and row count.
const pythonLimitsScript = `
import sys
from cassandra import ConsistencyLevel
from cassandra.auth import PlainTextAuthProvider
from cassandra.cluster import Cluster
from cassandra.policies import WhiteListRoundRobinPolicy
from cassandra.query import SimpleStatement
host, port, user, password, query = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
repeat = int(sys.argv[6]) if len(sys.argv) > 6 else 1
auth = PlainTextAuthProvider(user, password) if user else None
cluster = Cluster([host], port=port, protocol_version=4, auth_provider=auth,
                  load_balancing_policy=WhiteListRoundRobinPolicy([host]))
session = cluster.connect()
statement = SimpleStatement(query, consistency_level=ConsistencyLevel.LOCAL_QUORUM,
                            serial_consistency_level=ConsistencyLevel.LOCAL_SERIAL, fetch_size=None)
try:
    for i in range(repeat):
        future = session.execute_async(statement)
        rows = list(future.result())
    print('ok rows=%d warnings=%r' % (len(rows), future.warnings))
except Exception as e:
    fields = {k: getattr(e, k) for k in ('consistency', 'required_responses', 'received_responses', 'data_retrieved', 'write_type') if hasattr(e, k)}
    if 'consistency' in fields:
        fields['consistency'] = ConsistencyLevel.value_to_name[fields['consistency']]
    if 'write_type' in fields:
        from cassandra.policies import WriteType
        fields['write_type'] = WriteType.value_to_name[fields['write_type']]
    errors = getattr(e, 'errors', None)
    print('%s %s %r' % (type(e).__name__, sorted(fields.items()), errors if errors else str(e)))
finally:
    cluster.shutdown()
`

// runPython runs query through the Python driver against srv (as many
// times as repeat says, if given, up to the first error).
func runPython(t *testing.T, srv *testserver.Server, user, password, query string, repeat ...int) string {
	t.Helper()
	const python = "/usr/bin/python3"
	if out, err := exec.Command(python, "-c", "import cassandra").CombinedOutput(); err != nil {
		t.Fatalf("the Python driver is missing (%v: %s); install it with\n"+
			"    apt-get install -y python3-cassandra\nor run scripts/test.sh, which does", err, bytes.TrimSpace(out))
	}
	args := []string{"-W", "ignore", "-c", pythonLimitsScript, srv.Host, strconv.Itoa(srv.Port), user, password, query}
	for _, n := range repeat {
		args = append(args, strconv.Itoa(n))
	}
	out, err := exec.Command(python, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestReadTimeoutDrivers: a filtering scan that runs past
// range_request_timeout reaches gocql and the Python driver as ReadTimeout
// (0x1200) as Cassandra 5.0 fills it on one node when no replica answered
// in time (exceptions/ReadTimeoutException.java and
// RequestTimeoutException.java for the message): the request's
// consistency, 0 responses of blockFor 1, no data. A read of one
// partition, under read_request_timeout, is unaffected.
func TestReadTimeoutDrivers(t *testing.T) {
	srv := limitsNode(t, testserver.Options{Configure: func(c *engine.Config) {
		// Past its deadline before it ends, however fast the machine: a read
		// that ends after its deadline is answered with the timeout too.
		c.Timeouts.Range = time.Microsecond
	}}, "s1_tmo", 100)
	s, err := newCluster(srv.Host, srv.Port).CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const scan = "SELECT * FROM s1_tmo.t WHERE v = 'none' ALLOW FILTERING"
	err = s.Query(scan).Consistency(gocql.LocalQuorum).Exec()
	var rt *gocql.RequestErrReadTimeout
	if !errors.As(err, &rt) || rt.Consistency != gocql.LocalQuorum || rt.Received != 0 || rt.BlockFor != 1 ||
		rt.DataPresent != 0 || rt.Message() != "Operation timed out - received only 0 responses." {
		t.Fatalf("gocql filtering scan: got %#v, want ReadTimeout at LOCAL_QUORUM", err)
	}
	var n int
	if err := s.Query("SELECT count(*) FROM s1_tmo.t WHERE k = 3").Scan(&n); err != nil || n != 100 {
		t.Fatalf("read of one partition: %v, %d rows", err, n)
	}
	got := runPython(t, srv, "", "", scan)
	want := `ReadTimeout [('consistency', 'LOCAL_QUORUM'), ('data_retrieved', False), ('received_responses', 0), ('required_responses', 1)] 'Error from server: code=1200 [Coordinator node timed out waiting for replica nodes\' responses] message="Operation timed out - received only 0 responses." info={\'consistency\': \'LOCAL_QUORUM\', \'required_responses\': 1, \'received_responses\': 0}'`
	if got != want {
		t.Fatalf("Python filtering scan:\n got %s\nwant %s", got, want)
	}
	if got := runPython(t, srv, "", "", "SELECT * FROM s1_tmo.t WHERE k = 3"); got != "ok rows=100 warnings=None" {
		t.Fatalf("Python read of one partition: %s", got)
	}
}

// holdPartition holds the read-modify-write lock of ks.t's partition k, as
// a conditional write in flight holds it, until the test ends or the
// returned release is called.
func holdPartition(t *testing.T, srv *testserver.Server, ks string, k int32) func() {
	t.Helper()
	tbl := srv.Engine().Catalog().Current().Table(ks, "t")
	key := binary.BigEndian.AppendUint32(nil, uint32(k))
	p := backend.LogicalPartition{Table: tbl.StorageID, Token: token.Of(key), Key: key}
	lock, err := srv.Engine().Split().LockPartitions(context.Background(), []backend.LogicalPartition{p}, backend.RequestLevels{})
	if err != nil {
		t.Fatal(err)
	}
	released := false
	release := func() {
		if !released {
			released = true
			lock.Unlock()
		}
	}
	t.Cleanup(release)
	return release
}

// TestWriteTimeoutDrivers: a conditional write stalled behind its
// partition's lock past cas_contention_timeout reaches gocql and the
// Python driver as WriteTimeout (0x1100) of write type CAS at the serial
// consistency (StorageProxy.cas: CasWriteTimeoutException, which protocol
// v4 carries as a WriteTimeout), and writes nothing; once the partition is
// free the same statement applies. The Python driver's view of it is what
// a Cassandra 5.0.6 node with cas_contention_timeout: 2ms answered 16
// threads of contending CAS on one row, field for field and word for word.
// A ReadTimeout of that node (a system read at read_request_timeout: 2ms)
// had the same shape as the one asserted in TestReadTimeoutDrivers.
func TestWriteTimeoutDrivers(t *testing.T) {
	srv := limitsNode(t, testserver.Options{Configure: func(c *engine.Config) {
		c.Timeouts.CASContention = 50 * time.Millisecond
	}}, "s1_wto", 1)
	s, err := newCluster(srv.Host, srv.Port).CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	release := holdPartition(t, srv, "s1_wto", 7)
	const cas = "INSERT INTO s1_wto.t (k, c, v) VALUES (7, 1, 'cas') IF NOT EXISTS"
	_, err = s.Query(cas).Consistency(gocql.Quorum).SerialConsistency(gocql.LocalSerial).MapScanCAS(map[string]any{})
	var wt *gocql.RequestErrWriteTimeout
	if !errors.As(err, &wt) || wt.WriteType != "CAS" || wt.Consistency != gocql.Consistency(gocql.LocalSerial) || wt.Received != 0 ||
		wt.BlockFor != 1 || wt.Message() != "Operation timed out - received only 0 responses." {
		t.Fatalf("gocql CAS behind a held lock: got %#v, want WriteTimeout CAS at LOCAL_SERIAL", err)
	}
	got := runPython(t, srv, "", "", cas)
	want := `WriteTimeout [('consistency', 'LOCAL_SERIAL'), ('received_responses', 0), ('required_responses', 1), ('write_type', 'CAS')] 'Error from server: code=1100 [Coordinator node timed out waiting for replica nodes\' responses] message="Operation timed out - received only 0 responses." info={\'consistency\': \'LOCAL_SERIAL\', \'required_responses\': 1, \'received_responses\': 0, \'write_type\': \'CAS\'}'`
	if got != want {
		t.Fatalf("Python CAS behind a held lock:\n got %s\nwant %s", got, want)
	}
	var n int
	if err := s.Query("SELECT count(*) FROM s1_wto.t WHERE k = 7").Scan(&n); err != nil || n != 0 {
		t.Fatalf("timed-out CAS wrote: %v, %d rows", err, n)
	}
	release()
	applied, err := s.Query(cas).MapScanCAS(map[string]any{})
	if err != nil || !applied {
		t.Fatalf("CAS on a free partition: applied %v, %v", applied, err)
	}
}

// TestWriteRateDrivers: past partition_write_rate_fail_threshold writes
// in one second a write to that partition is refused with Overloaded
// (0x1001) naming the table and key, through gocql and the Python driver,
// which answers Overloaded by trying the next host and so, on one node,
// reports it inside NoHostAvailable; another partition is not refused.
func TestWriteRateDrivers(t *testing.T) {
	srv := limitsNode(t, testserver.Options{Configure: func(c *engine.Config) {
		c.PartitionWriteRateFailThreshold = 20
	}}, "s1_wr", 0)
	c := newCluster(srv.Host, srv.Port)
	c.RetryPolicy = nil
	s, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var refused error
	for i := 0; i < 100 && refused == nil; i++ {
		refused = s.Query("INSERT INTO s1_wr.t (k, c, v) VALUES (5, ?, 'x')", i).Exec()
	}
	var re gocql.RequestError
	if !errors.As(refused, &re) || re.Code() != gocql.ErrCodeOverloaded ||
		!strings.HasPrefix(re.Message(), "Too many writes to partition 5 of table s1_wr.t: ") {
		t.Fatalf("gocql hot partition: got %v, want Overloaded", refused)
	}
	mustExec(t, s, "INSERT INTO s1_wr.t (k, c, v) VALUES (6, 1, 'x')")
	got := runPython(t, srv, "", "", "INSERT INTO s1_wr.t (k, c, v) VALUES (5, 1000, 'x')", 200)
	if !strings.HasPrefix(got, "NoHostAvailable") || !strings.Contains(got, "code=1001 [Coordinator node overloaded]") ||
		!strings.Contains(got, `message="Too many writes to partition 5 of table s1_wr.t: `) {
		t.Fatalf("Python hot partition: %s", got)
	}
}
