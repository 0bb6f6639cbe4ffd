package differential

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLoadRandomKnown(t *testing.T) {
	path := filepath.Join(t.TempDir(), "known.txt")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`# comment
name: group-by
stmt: GROUP BY
partita: ^k \| v
why: because
  of this
repro:
  CREATE TABLE t (k int PRIMARY KEY, v int)
  [page-size=2] SELECT k, v FROM t GROUP BY k

name: other
stmt: ^INSERT
cassandra: Invalid
why: y
repro:
  INSERT INTO t (k) VALUES (1)
`)
	known, err := LoadRandomKnown(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(known) != 2 || known[0].Why != "because of this" || len(known[0].Repro) != 2 {
		t.Fatalf("LoadRandomKnown = %+v", known)
	}
	if got := known[0].Repro[1]; got != (ReproStmt{Text: "SELECT k, v FROM t GROUP BY k", PageSize: 2}) {
		t.Errorf("repro line = %+v", got)
	}
	if FormatReproLine(known[0].Repro[1]) != "[page-size=2] SELECT k, v FROM t GROUP BY k" {
		t.Errorf("FormatReproLine = %q", FormatReproLine(known[0].Repro[1]))
	}
	for _, c := range []struct {
		stmt, partita, cassandra string
		want                     string
	}{
		{"SELECT k,  v FROM t GROUP BY k", "k | v\n", "k | v\n1 | 2\n", "group-by"},
		{"SELECT k FROM t GROUP BY k", "error (Invalid 0x2200): x\n", "k\n", ""},
		{"INSERT INTO t (k) VALUES (1)", "ok\n", "error (Invalid 0x2200): no\n", "other"},
		{"INSERT INTO t (k) VALUES (1)", "ok\n", "ok\n", ""},
	} {
		got := ""
		if k := MatchRandomKnown(known, c.stmt, c.partita, c.cassandra); k != nil {
			got = k.Name
		}
		if got != c.want {
			t.Errorf("MatchRandomKnown(%q, %q, %q) = %q, want %q", c.stmt, c.partita, c.cassandra, got, c.want)
		}
	}
	for _, bad := range []string{
		"name: a\nstmt: x\nwhy: y\n",                                                       // no repro
		"name: a\nstmt: (\nwhy: y\nrepro:\n  X\n",                                          // bad regexp
		"name: a\nstmt: x\nwhy: y\nrepro:\n  X\n\nname: a\nstmt: x\nwhy: y\nrepro:\n  X\n", // twice
		"name: a\nnope: x\n",
	} {
		write(bad)
		if _, err := LoadRandomKnown(path); err == nil {
			t.Errorf("LoadRandomKnown accepted %q", bad)
		}
	}
}
