package e2e_test

import (
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// TestLWTSkewedClientTimestamps checks that a conditional write that
// reports [applied] = true is visible afterwards, whatever client-side
// timestamp came with it and whatever timestamp the data it replaced was
// written at. Cassandra writes a lightweight transaction at its Paxos
// ballot's timestamp, taken from the server's clock and above the last
// ballot of the partition (StorageProxy.beginAndRepairPaxos,
// ClientState.getTimestampForPaxos, Commit.newProposal); the client's
// default timestamp is not used.
func TestLWTSkewedClientTimestamps(t *testing.T) {
	s := newKeyspace(t, "lwt_skew")
	mustExec(t, s, "CREATE TABLE t (k int PRIMARY KEY, v int)")
	future := time.Now().Add(time.Hour).UnixMicro()

	read := func(k int) (int, bool) {
		t.Helper()
		var v int
		err := s.Query("SELECT v FROM t WHERE k = ?", k).Consistency(gocql.Consistency(gocql.Serial)).Scan(&v)
		if err == gocql.ErrNotFound {
			return 0, false
		}
		if err != nil {
			t.Fatal(err)
		}
		return v, true
	}
	cas := func(ts int64, stmt string, args ...any) bool {
		t.Helper()
		applied, err := s.Query(stmt, args...).WithTimestamp(ts).MapScanCAS(map[string]any{})
		if err != nil {
			t.Fatalf("%s at %d: %v", stmt, ts, err)
		}
		return applied
	}
	wantRow := func(k, want int, after string) {
		t.Helper()
		if v, ok := read(k); !ok || v != want {
			t.Fatalf("after %s: v = %d (row present %v), want %d", after, v, ok, want)
		}
	}

	// The case: a row at client timestamp 2000, then an update
	// stamped 1000 whose condition holds.
	if err := s.Query("INSERT INTO t (k, v) VALUES (0, 1)").WithTimestamp(2000).Exec(); err != nil {
		t.Fatal(err)
	}
	if !cas(1000, "UPDATE t SET v = 2 WHERE k = 0 IF v = 1") {
		t.Fatal("UPDATE IF v = 1 not applied on v = 1")
	}
	wantRow(0, 2, "an applied UPDATE IF v = 1 stamped 1000 over a row stamped 2000")
	if !cas(1, "DELETE FROM t WHERE k = 0 IF v = 2") {
		t.Fatal("DELETE IF v = 2 not applied on v = 2")
	}
	if v, ok := read(0); ok {
		t.Fatalf("after an applied DELETE IF v = 2 stamped 1: the row is still there with v = %d", v)
	}
	if !cas(1, "INSERT INTO t (k, v) VALUES (0, 3) IF NOT EXISTS") {
		t.Fatal("INSERT IF NOT EXISTS not applied after the row was deleted")
	}
	wantRow(0, 3, "an applied INSERT IF NOT EXISTS stamped 1 after a conditional DELETE")

	// A row written by a client whose clock runs an hour ahead: the
	// conditional update of a client on time must still show.
	if err := s.Query("INSERT INTO t (k, v) VALUES (1, 1)").WithTimestamp(future).Exec(); err != nil {
		t.Fatal(err)
	}
	if !cas(time.Now().UnixMicro(), "UPDATE t SET v = 2 WHERE k = 1 IF v = 1") {
		t.Fatal("UPDATE IF v = 1 not applied on v = 1")
	}
	wantRow(1, 2, "an applied UPDATE IF v = 1 over a row stamped an hour ahead")

	// A conditional batch takes its ballot's timestamp too
	// (BatchStatement.executeWithConditions).
	b := s.NewBatch(gocql.LoggedBatch).WithTimestamp(1500)
	b.Query("UPDATE t SET v = 4 WHERE k = 0 IF v = 3")
	applied, _, err := s.MapExecuteBatchCAS(b, map[string]any{})
	if err != nil || !applied {
		t.Fatalf("conditional batch on v = 3: applied %v, %v", applied, err)
	}
	wantRow(0, 4, "an applied conditional batch stamped 1500")
}
