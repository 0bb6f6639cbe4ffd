package main

import (
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestSplitCommand drives `partita split` against a running server: split
// a partition by hash and wait for it, see it in `split status`, merge it
// back, and get a clear error for a table that does not exist.
func TestSplitCommand(t *testing.T) {
	s, httpAddr := serveSession(t)
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.events (asset text, ts int, v text, PRIMARY KEY (asset, ts))",
	} {
		if err := s.Query(q).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 3000; i++ {
		if err := s.Query("INSERT INTO ks.events (asset, ts, v) VALUES ('hot', ?, 'x')", i).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	// The partition statistics are exported per table, largest first.
	resp, err := http.Get("http://" + httpAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`partita_table_partitions_tracked{keyspace="ks",table="events"} 1`,
		`partita_top_partition_rows{keyspace="ks",partition_key="'hot'",split="no",table="events"} 3000`,
		"partita_storage_block_cache_hits_total ",
		"partita_storage_memtable_bytes ",
		"partita_storage_read_amplification ",
		// The statements run most, with their values as ?.
		`partita_statement_requests_total{keyspace="",kind="INSERT",statement="INSERT INTO ks.events(asset, ts, v) VALUES (?, ...)"} 3000`,
		`partita_statement_latency_seconds{keyspace="",kind="INSERT",quantile="0.99",statement="INSERT INTO ks.events(asset, ts, v) VALUES (?, ...)"} `,
	} {
		if !strings.Contains(string(metrics), want) {
			t.Fatalf("/metrics lacks %s:\n%s", want, grepLines(string(metrics), "partita_t"))
		}
	}
	bin := buildPartita(t)
	run := func(args ...string) (string, error) {
		out, err := exec.Command(bin, append([]string{"split"}, append(args, "--http-addr", httpAddr)...)...).CombinedOutput()
		return string(out), err
	}
	key := []string{"--keyspace", "ks", "--table", "events", "--key", "'hot'"}
	out, err := run(append([]string{"split", "--strategy", "hash"}, key...)...)
	if err != nil {
		t.Fatalf("split: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`(?s)split of ks\.events \('hot'\) started\n.*done\nchildren: shard 0: hash segment 0 of 8; .*shard 7: hash segment 7 of 8\n$`).MatchString(out) {
		t.Fatalf("split printed:\n%s", out)
	}
	out, err = run("status")
	if err != nil || !regexp.MustCompile(`(?m)^ks\.events\s+'hot'\s+active\s+\d+\s+hash\s+-\s+(not measured yet|3000 rows, \d+ bytes)\s+shard 0: hash segment 0 of 8; `).MatchString(out) {
		t.Fatalf("status (%v):\n%s", err, out)
	}
	var n int
	if err := s.Query("SELECT COUNT(*) FROM ks.events WHERE asset = 'hot'").Scan(&n); err != nil || n != 3000 {
		t.Fatalf("COUNT(*) after the split: %d, %v", n, err)
	}
	if out, err = run(append([]string{"merge"}, key...)...); err != nil {
		t.Fatalf("merge: %v\n%s", err, out)
	}
	if out, err = run("status"); err != nil || !strings.Contains(out, "no split partitions") {
		t.Fatalf("status after the merge (%v):\n%s", err, out)
	}
	out, err = run("split", "--keyspace", "ks", "--table", "nope", "--key", "'hot'")
	if err == nil || !strings.Contains(out, "table ks.nope does not exist") {
		t.Fatalf("split of a missing table: %v\n%s", err, out)
	}
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
