package engine_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/token"
)

// timeoutHarness is an engine with the given timeouts and a table t of
// rows partitions of 100 rows each in keyspace tmo.
func timeoutHarness(t *testing.T, timeouts engine.Timeouts, partitions int) *cqltest.Harness {
	t.Helper()
	cfg := engine.DefaultConfig()
	cfg.SplitTick, cfg.GCInterval = 0, 0
	cfg.Timeouts = timeouts
	h := cqltest.NewWithConfig(t, cfg)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE KEYSPACE tmo WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE tmo.t (k int, c int, v text, l list<int>, PRIMARY KEY (k, c))",
	} {
		if _, err := h.Session.Query(ctx, q, nil); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for k := range partitions {
		var b strings.Builder
		b.WriteString("BEGIN UNLOGGED BATCH ")
		for c := range 100 {
			fmt.Fprintf(&b, "INSERT INTO tmo.t (k, c, v) VALUES (%d, %d, 'value %d'); ", k, c, c)
		}
		b.WriteString("APPLY BATCH")
		if _, err := h.Session.Query(ctx, b.String(), nil); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// TestTimeoutRangeRead: a filtering scan past range_request_timeout is
// abandoned with ReadTimeout as Cassandra's coordinator sends it when no
// replica answered (exceptions/ReadTimeoutException.java,
// RequestTimeoutException.java): the request's consistency, 0 received of
// blockFor, no data. A read by key has read_request_timeout, which is not
// reached.
func TestTimeoutRangeRead(t *testing.T) {
	timeouts := engine.DefaultTimeouts()
	// Past its deadline before it ends, however fast the machine: a read
	// that ends after its deadline is answered with the timeout too.
	timeouts.Range = time.Microsecond
	h := timeoutHarness(t, timeouts, 100)
	ctx := context.Background()
	_, err := h.Session.Query(ctx, "SELECT * FROM tmo.t WHERE v = 'none' ALLOW FILTERING", &engine.Options{Consistency: engine.LocalQuorum})
	e := cqlerr.As(err)
	if e == nil || e.Code != cqlerr.ReadTimeout {
		t.Fatalf("filtering scan: got %v, want ReadTimeout", err)
	}
	if e.Message != "Operation timed out - received only 0 responses." || e.Consistency != uint16(engine.LocalQuorum) ||
		e.Received != 0 || e.BlockFor != 1 || e.DataPresent {
		t.Fatalf("ReadTimeout fields: %+v", e)
	}
	res, err := h.Session.Query(ctx, "SELECT * FROM tmo.t WHERE k = 1", &engine.Options{Consistency: engine.One})
	if err != nil || len(res.Rows) != 100 {
		t.Fatalf("read by key under read_request_timeout: %v, %d rows", err, rowsOf(res))
	}
}

func rowsOf(res *engine.Result) int {
	if res == nil {
		return -1
	}
	return len(res.Rows)
}

// lockPartition holds the read-modify-write lock of tmo.t's partition k
// as an in-flight conditional write would, and returns its release.
func lockPartition(t *testing.T, h *cqltest.Harness, k int32) func() {
	return lockTablePartition(t, h, "t", k)
}

func lockTablePartition(t *testing.T, h *cqltest.Harness, table string, k int32) func() {
	t.Helper()
	tbl := h.Engine.Catalog().Current().Table("tmo", table)
	key := binary.BigEndian.AppendUint32(nil, uint32(k))
	p := backend.LogicalPartition{Table: tbl.StorageID, Token: token.Of(key), Key: key}
	lock, err := h.Engine.Split().LockPartitions(context.Background(), []backend.LogicalPartition{p}, backend.RequestLevels{})
	if err != nil {
		t.Fatal(err)
	}
	return lock.Unlock
}

// TestTimeoutCASContention: a conditional write that waits for its
// partition longer than cas_contention_timeout gets WriteTimeout of type
// CAS at its serial consistency (StorageProxy.cas, CasWriteTimeoutException
// as protocol v4 carries it), and writes nothing; a read-modify-write that
// is not conditional waits up to write_request_timeout and gets a SIMPLE
// WriteTimeout. Once the lock is free, both run.
func TestTimeoutCASContention(t *testing.T) {
	timeouts := engine.DefaultTimeouts()
	timeouts.CASContention, timeouts.Write = 50*time.Millisecond, 100*time.Millisecond
	h := timeoutHarness(t, timeouts, 1)
	ctx := context.Background()
	unlock := lockPartition(t, h, 7)
	start := time.Now()
	_, err := h.Session.Query(ctx, "INSERT INTO tmo.t (k, c, v) VALUES (7, 1, 'cas') IF NOT EXISTS",
		&engine.Options{Consistency: engine.Quorum, SerialConsistency: engine.LocalSerial})
	waited := time.Since(start)
	e := cqlerr.As(err)
	if e == nil || e.Code != cqlerr.WriteTimeout || e.WriteType != "CAS" || e.Consistency != uint16(engine.LocalSerial) ||
		e.Received != 0 || e.BlockFor != 1 || e.Message != "Operation timed out - received only 0 responses." {
		t.Fatalf("CAS behind a held lock: got %+v, want WriteTimeout CAS at LOCAL_SERIAL", err)
	}
	if waited < timeouts.CASContention || waited > 10*timeouts.CASContention+time.Second {
		t.Fatalf("CAS waited %v, want about cas_contention_timeout (%v)", waited, timeouts.CASContention)
	}
	_, err = h.Session.Query(ctx, "UPDATE tmo.t SET l[0] = 1 WHERE k = 7 AND c = 2", &engine.Options{Consistency: engine.One})
	if e := cqlerr.As(err); e == nil || e.Code != cqlerr.WriteTimeout || e.WriteType != "SIMPLE" || e.Consistency != uint16(engine.One) {
		t.Fatalf("list RMW behind a held lock: got %v, want WriteTimeout SIMPLE", err)
	}
	unlock()
	res, err := h.Session.Query(ctx, "SELECT * FROM tmo.t WHERE k = 7", nil)
	if err != nil || len(res.Rows) != 0 {
		t.Fatalf("timed-out writes wrote something: %v, %d rows", err, rowsOf(res))
	}
	res, err = h.Session.Query(ctx, "INSERT INTO tmo.t (k, c, v) VALUES (7, 1, 'cas') IF NOT EXISTS", nil)
	if err != nil || len(res.Rows) != 1 || string(res.Rows[0][0]) != "\x01" {
		t.Fatalf("CAS after the lock is released: %v", err)
	}
}

// TestTimeoutWriteTypes: a write stalled behind its partition's lock gets
// the WriteTimeout of its kind: COUNTER within
// counter_write_request_timeout for a counter update, BATCH for a logged
// batch, UNLOGGED_BATCH for an unlogged one (WriteType.java).
func TestTimeoutWriteTypes(t *testing.T) {
	timeouts := engine.DefaultTimeouts()
	timeouts.Write, timeouts.CounterWrite = 50*time.Millisecond, 80*time.Millisecond
	h := timeoutHarness(t, timeouts, 1)
	ctx := context.Background()
	if _, err := h.Session.Query(ctx, "CREATE TABLE tmo.c (k int PRIMARY KEY, n counter)", nil); err != nil {
		t.Fatal(err)
	}
	defer lockTablePartition(t, h, "c", 3)()
	defer lockPartition(t, h, 3)()
	for _, tc := range []struct{ query, writeType string }{
		{"UPDATE tmo.c SET n = n + 1 WHERE k = 3", "COUNTER"},
		{"BEGIN BATCH UPDATE tmo.t SET l[0] = 1 WHERE k = 3 AND c = 1; APPLY BATCH", "BATCH"},
		{"BEGIN UNLOGGED BATCH UPDATE tmo.t SET l[0] = 1 WHERE k = 3 AND c = 1; APPLY BATCH", "UNLOGGED_BATCH"},
		{"BEGIN COUNTER BATCH UPDATE tmo.c SET n = n + 1 WHERE k = 3; APPLY BATCH", "COUNTER"},
	} {
		_, err := h.Session.Query(ctx, tc.query, &engine.Options{Consistency: engine.All})
		if e := cqlerr.As(err); e == nil || e.Code != cqlerr.WriteTimeout || e.WriteType != tc.writeType ||
			e.Consistency != uint16(engine.All) || e.BlockFor != 1 {
			t.Errorf("%s: got %v, want WriteTimeout %s", tc.query, err, tc.writeType)
		}
	}
}
