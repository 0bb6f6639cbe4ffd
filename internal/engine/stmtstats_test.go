package engine_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/engine"
)

// statementRow reads one statement's figures from system_partita.statements.
func statementRow(t *testing.T, s *engine.Session, keyspace, statement string) map[string]int64 {
	t.Helper()
	cols := []string{"count", "errors", "rows_read", "rows_returned", "partitions_read", "range_scans", "index_reads", "filtered", "p50_latency_us", "max_latency_us"}
	res, err := s.Query(context.Background(), "SELECT count, errors, rows_read, rows_returned, partitions_read, range_scans, index_reads, filtered, p50_latency_us, max_latency_us, kind FROM system_partita.statements WHERE keyspace_name = ? AND statement = ?",
		&engine.Options{Values: []engine.Value{{Bytes: []byte(keyspace)}, {Bytes: []byte(statement)}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 {
		all, _ := s.Query(context.Background(), "SELECT keyspace_name, statement FROM system_partita.statements", nil)
		var seen []string
		for _, r := range all.Rows {
			seen = append(seen, string(r[0])+": "+string(r[1]))
		}
		t.Fatalf("statement %q: %d rows; the table holds %q", statement, len(res.Rows), seen)
	}
	out := map[string]int64{}
	for i, c := range cols {
		out[c] = int64(binary.BigEndian.Uint64(res.Rows[0][i]))
	}
	return out
}

// Statement statistics group statements by shape (values and IN list
// lengths aside), count errors, and say what reads read against what they
// returned, and how (scan, index, filtering).
func TestStatementStatistics(t *testing.T) {
	h := cqltest.New(t)
	s := h.Session
	mustExec(t, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"USE ks",
		"CREATE TABLE t (k int, c int, v text, PRIMARY KEY (k, c))",
		"CREATE INDEX ON t (v)")
	for k := range 10 {
		for c := range 20 {
			mustExec(t, s, fmt.Sprintf("INSERT INTO t (k, c, v) VALUES (%d, %d, '%s')", k, c, []string{"a", "b"}[c%2]))
		}
	}
	mustExec(t, s, "SELECT * FROM t WHERE k = 1 LIMIT 5", "SELECT * FROM t WHERE k = 2 LIMIT 3",
		"SELECT * FROM t WHERE k IN (1, 2, 3)", "SELECT * FROM t WHERE k IN (4, 5)",
		"SELECT * FROM t WHERE c = 3 ALLOW FILTERING",
		"SELECT * FROM t WHERE v = 'a' AND k = 1")
	if _, err := s.Query(context.Background(), "SELECT * FROM t WHERE k = 'x'", nil); err == nil {
		t.Fatal("a text value for an int key was accepted")
	}

	ins := statementRow(t, s, "ks", "INSERT INTO t(k, c, v) VALUES (?, ...)")
	if ins["count"] != 200 || ins["errors"] != 0 || ins["rows_read"] != 0 {
		t.Errorf("inserts: %v", ins)
	}
	latest := statementRow(t, s, "ks", "SELECT * FROM t WHERE k = ? LIMIT ?")
	if latest["count"] != 2 || latest["rows_returned"] != 8 || latest["partitions_read"] != 2 || latest["range_scans"] != 0 {
		t.Errorf("single-partition reads: %v", latest)
	}
	if latest["p50_latency_us"] <= 0 || latest["max_latency_us"] < latest["p50_latency_us"] {
		t.Errorf("latencies: %v", latest)
	}
	in := statementRow(t, s, "ks", "SELECT * FROM t WHERE k IN (?, ...)")
	if in["count"] != 2 || in["rows_returned"] != 100 || in["partitions_read"] != 5 {
		t.Errorf("IN reads: %v", in)
	}
	// The filtering scan read every partition up to c = 3 (and left it
	// there) to return 10 rows.
	filt := statementRow(t, s, "ks", "SELECT * FROM t WHERE c = ? ALLOW FILTERING")
	if filt["rows_returned"] != 10 || filt["rows_read"] < 40 || filt["partitions_read"] != 10 || filt["range_scans"] != 1 || filt["filtered"] != 1 {
		t.Errorf("filtering scan: %v", filt)
	}
	idx := statementRow(t, s, "ks", "SELECT * FROM t WHERE v = ? AND k = ?")
	if idx["index_reads"] != 1 || idx["rows_returned"] != 10 {
		t.Errorf("index read: %v", idx)
	}
	bad := statementRow(t, s, "ks", "SELECT * FROM t WHERE k = ?")
	if bad["count"] != 1 || bad["errors"] != 1 {
		t.Errorf("failed statement: %v", bad)
	}
	// A prepared statement is keyed by its text, whatever its values.
	prep, err := s.Prepare(context.Background(), "SELECT v FROM t WHERE k = ? AND c = ?")
	if err != nil {
		t.Fatal(err)
	}
	for k := range 3 {
		key := make([]byte, 4)
		binary.BigEndian.PutUint32(key, uint32(k))
		if _, err := s.Execute(context.Background(), prep.PreparedID, &engine.Options{Values: []engine.Value{{Bytes: key}, {Bytes: key}}}); err != nil {
			t.Fatal(err)
		}
	}
	if p := statementRow(t, s, "ks", "SELECT v FROM t WHERE k = ? AND c = ?"); p["count"] != 3 || p["rows_returned"] != 3 {
		t.Errorf("prepared: %v", p)
	}
	// A BATCH is counted under its distinct statements.
	for range 2 {
		if _, err := s.Batch(context.Background(), &engine.BatchRequest{Type: engine.LoggedBatch, Statements: []engine.BatchStatement{
			{Query: "INSERT INTO t (k, c, v) VALUES (1, 1, 'x')"}, {Query: "INSERT INTO t (k, c, v) VALUES (2, 1, 'y')"},
			{Query: "DELETE FROM t WHERE k = 3 AND c = 1"}}}); err != nil {
			t.Fatal(err)
		}
	}
	if b := statementRow(t, s, "ks", "BATCH LOGGED: INSERT INTO t(k, c, v) VALUES (?, ...); DELETE FROM t WHERE k = ? AND c = ?"); b["count"] != 2 || b["errors"] != 0 {
		t.Errorf("batch: %v", b)
	}
}
