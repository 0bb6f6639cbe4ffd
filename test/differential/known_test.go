package differential

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSameAnswer(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"k | v\n1 | 2\n(1 rows)\n", "k | v\n1 | 2\n(1 rows)\n", true},
		{"k | v\n1 | 2\n(1 rows)\n", "k | v\n1 | 3\n(1 rows)\n", false},
		// A TTL that ticked down by a second or two on one side.
		{"v | ttl(v)\n1 | 1999\n(1 rows)\n", "v | ttl(v)\n1 | 2000\n(1 rows)\n", true},
		{"v | ttl(v)\n1 | 1990\n(1 rows)\n", "v | ttl(v)\n1 | 2000\n(1 rows)\n", false},
		{"v | w\n1 | 1999\n(1 rows)\n", "v | w\n1 | 2000\n(1 rows)\n", false},
		// Signature lists in another order.
		{"error (Invalid 0x2200): f, none of its type signatures match (known type signatures: system.f : (int) -> int, system.f : (bigint) -> bigint)\n",
			"error (Invalid 0x2200): f, none of its type signatures match (known type signatures: system.f : (bigint) -> bigint, system.f : (int) -> int)\n", true},
		{"error (Invalid 0x2200): f, none of its type signatures match (known type signatures: system.f : (int) -> int)\n",
			"error (Invalid 0x2200): f, none of its type signatures match (known type signatures: system.f : (bigint) -> bigint)\n", false},
	} {
		if got := SameAnswer(c.a, c.b); got != c.same {
			t.Errorf("SameAnswer(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}

func TestLoadKnown(t *testing.T) {
	path := filepath.Join(t.TempDir(), "known.txt")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("# comment\nfile: a\nstmt: SELECT  *\n   FROM t\nwhy: because\n\nfile: b\nstmt: X\nwhy: y\n")
	known, err := LoadKnown(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(known) != 2 || known[Key{"a", "SELECT * FROM t"}] != "because" {
		t.Fatalf("LoadKnown = %v", known)
	}
	for _, bad := range []string{"file: a\nstmt: X\n", "file: a\nstmt: X\nwhy: TODO\n", "file: a\nstmt: X\nwhy: y\n\nfile: a\nstmt: X\nwhy: z\n", "junk\n"} {
		write(bad)
		if _, err := LoadKnown(path); err == nil {
			t.Errorf("LoadKnown accepted %q", bad)
		}
	}
}
