package main

import (
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// serveSession starts `partita serve` and connects gocql to it; it
// returns the session (closed when t ends) and the HTTP address.
func serveSession(t *testing.T) (*gocql.Session, string) {
	t.Helper()
	_, cqlAddr, httpAddr, logs := startServe(t)
	host, port, _ := strings.Cut(cqlAddr, ":")
	c := gocql.NewCluster(host)
	fmt.Sscan(port, &c.Port)
	c.Timeout = 10 * time.Second
	s, err := c.CreateSession()
	if err != nil {
		t.Fatalf("%v\n%s", err, logs)
	}
	t.Cleanup(s.Close)
	return s, httpAddr
}

// TestTableStatsCommands drives `partita tablestats`, `tablehistograms`
// and `toppartitions` against a running server.
func TestTableStatsCommands(t *testing.T) {
	s, httpAddr := serveSession(t)
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.events (asset text, ts int, v text, PRIMARY KEY (asset, ts))",
		"CREATE TABLE ks.other (k int PRIMARY KEY)",
	} {
		if err := s.Query(q).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	// 'hot' gets 400 rows, a1..a9 ten each; 'hot' is read 5 times.
	write := func(asset string, n int) {
		for i := range n {
			if err := s.Query("INSERT INTO ks.events (asset, ts, v) VALUES (?, ?, 'x')", asset, i).Exec(); err != nil {
				t.Fatal(err)
			}
		}
	}
	write("hot", 400)
	for a := 1; a <= 9; a++ {
		write(fmt.Sprintf("a%d", a), 10)
	}
	for range 5 {
		if err := s.Query("SELECT * FROM ks.events WHERE asset = 'hot' LIMIT 10").Exec(); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Query("DELETE FROM ks.events WHERE asset = 'a1' AND ts = 3").Exec(); err != nil {
		t.Fatal(err)
	}
	bin := buildPartita(t)
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(bin, append(args, "--http-addr", httpAddr)...).CombinedOutput()
		if err != nil {
			t.Fatalf("partita %v: %v\n%s", args, err, out)
		}
		return string(out)
	}

	out := run("tablestats", "ks")
	for _, want := range []string{
		"Total number of tables: 2\n----------------\nKeyspace : ks\n\tRead Count: 5\n",
		"\tWrite Count: 491\n",
		"\t\tTable: events\n\t\tSpace used (live): ",
		// Not measured yet: the rows written, the deletion of a row too.
		"\t\tNumber of partitions (estimate): 10\n\t\tNumber of rows (estimate): 491\n\t\tSplit partitions: 0\n\t\tLocal read count: 5\n",
		"\t\tLocal write count: 491\n",
		"\t\tTombstones written: 1\n\t\tMaximum tombstones per partition: 1\n",
		"\t\tTable: other\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("tablestats lacks %q:\n%s", want, out)
		}
	}
	if one := run("tablestats", "ks.other"); !strings.Contains(one, "Total number of tables: 1\n") || strings.Contains(one, "Table: events") {
		t.Errorf("tablestats ks.other:\n%s", one)
	}

	out = run("tablehistograms", "ks", "events")
	// Ten partitions: nine of 10 rows, one of 400.
	for _, re := range []string{`(?m)^ks/events histograms$`, `(?m)^\s*Percentile\s+Read Latency\s+Partition Size\s+Row Count\s+Tombstones\s*$`,
		`(?m)^\s*50%\s+0\s+\d+\s+10\s+0\s*$`, `(?m)^\s*Max\s+\d+\s+\d+\s+400\s+1\s*$`, `(?m)^\s*Min\s+0\s+\d+\s+10\s+0\s*$`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("tablehistograms does not match %s:\n%s", re, out)
		}
	}

	// toppartitions sees what happens while it samples.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		time.Sleep(300 * time.Millisecond)
		write("hot", 30)
		write("a2", 5)
		for range 3 {
			_ = s.Query("SELECT * FROM ks.events WHERE asset = 'a3'").Exec()
		}
	}()
	out = run("toppartitions", "ks", "events", "3000")
	wg.Wait()
	if !regexp.MustCompile(`(?s)WRITES Sampler:\n  Cardinality: ~2\n  Top 10 partitions:\n\s+Partition\s+Count\s+\+/-\n\s+'hot'\s+30\s+0\n\s+'a2'\s+5\s+0\n\nREADS Sampler:\n  Cardinality: ~1\n  Top 10 partitions:\n\s+Partition\s+Count\s+\+/-\n\s+'a3'\s+3\s+0\n`).MatchString(out) {
		t.Errorf("toppartitions:\n%s", out)
	}
	// Errors: a table that does not exist, a sampling window too long.
	for _, args := range [][]string{{"tablestats", "ks.nope"}, {"toppartitions", "ks", "events", "60000"}} {
		if out, err := exec.Command(bin, append(args, "--http-addr", httpAddr)...).CombinedOutput(); err == nil || !strings.Contains(string(out), "400 Bad Request") {
			t.Errorf("partita %v: %v %s", args, err, out)
		}
	}
}
