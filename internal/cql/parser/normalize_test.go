package parser

import "testing"

func TestNormalize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"select * from ks.t where k = 'a' and c > 3;", "SELECT * FROM ks.t WHERE k = ? AND c > ?"},
		{"SELECT  *\n FROM t -- latest\n WHERE k IN ('a','b', 'c') LIMIT 10", "SELECT * FROM t WHERE k IN (?, ...) LIMIT ?"},
		{"SELECT * FROM t WHERE k IN (?)", "SELECT * FROM t WHERE k IN (?)"},
		{"INSERT INTO t (k, v) VALUES (?, ?) USING TTL 30", "INSERT INTO t(k, v) VALUES (?, ...) USING TTL ?"},
		{`UPDATE "Tab" SET m = m + {'a': 1} WHERE k = 0x0a IF v = -1.5`, `UPDATE "Tab" SET m = m + {?: ?} WHERE k = ? IF v = ?`},
		{"SELECT count(*), toJson(x) FROM t WHERE id = 5b6962dd-3f90-4c93-8f61-eabfa4a803e2", "SELECT count(*), toJson(x) FROM t WHERE id = ?"},
		{"SELECT 'unterminated", "SELECT 'unterminated"},
	} {
		if got := Normalize(tc.in); got != tc.want {
			t.Errorf("Normalize(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}
