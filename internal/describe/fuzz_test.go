package describe_test

import (
	"testing"

	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cql/parser"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/describe"
)

// fuzzSchema is a schema with a bit of everything DESCRIBE renders.
const fuzzSchema = `
CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE KEYSPACE "Other" WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': 1};
CREATE TYPE ks.point (x int, y int);
CREATE TYPE ks.shape (name text, pts frozen<list<frozen<point>>>);
CREATE TABLE ks.t (k int, c text, s int static, v frozen<shape>, m map<text, int>, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC);
CREATE TABLE ks.u (k int PRIMARY KEY, a int, b int);
ALTER TABLE ks.u DROP a USING TIMESTAMP 10;
ALTER TABLE ks.u DROP b USING TIMESTAMP 20;
ALTER TABLE ks.u ADD a int;
CREATE INDEX t_m ON ks.t (keys(m));
CREATE TABLE "Other"."T" ("K" int PRIMARY KEY, n counter);
`

// FuzzDescribe checks that no DESCRIBE statement, in any session keyspace,
// panics or fails with anything but an Invalid error, and that every row
// fits the columns (invariant 5).
func FuzzDescribe(f *testing.F) {
	for _, seed := range []string{
		"DESCRIBE CLUSTER", "DESCRIBE SCHEMA", "DESC FULL SCHEMA WITH INTERNALS", "DESCRIBE KEYSPACES",
		"DESCRIBE KEYSPACE ks", "DESCRIBE ONLY KEYSPACE", "DESCRIBE TABLES", "DESCRIBE TABLE ks.t WITH INTERNALS",
		"DESCRIBE INDEX t_m", "DESCRIBE TYPES", "DESCRIBE TYPE ks.shape", `DESCRIBE "Other"."T"`, "DESCRIBE u",
		"DESCRIBE FUNCTIONS", "DESCRIBE FUNCTION f", "DESCRIBE AGGREGATES", "DESCRIBE AGGREGATE ks.a",
		"DESCRIBE MATERIALIZED VIEW ks.v", "DESCRIBE system_virtual_schema", "DESCRIBE nope.nope",
	} {
		f.Add(seed, "")
		f.Add(seed, "ks")
	}
	h := newHarness(f)
	if out := h.runSchema(fuzzSchema); out != "ok" {
		f.Fatal(out)
	}
	schema := h.snapshot()
	f.Fuzz(func(t *testing.T, text, keyspace string) {
		stmt, err := parser.Parse(text)
		if err != nil {
			return
		}
		d, ok := stmt.(*ast.Describe)
		if !ok {
			return
		}
		res, err := describe.DescribeWith(schema, keyspace, d, testCluster)
		if err != nil {
			if !cqlerr.Is(err, cqlerr.Invalid) {
				t.Fatalf("%s: unexpected error %v", text, err)
			}
			return
		}
		for _, row := range res.Rows {
			want := len(res.Columns)
			if res.RangeOwnership != nil {
				want--
			}
			if len(row) != want {
				t.Fatalf("%s: row %q does not fit columns %v", text, row, res.Columns)
			}
		}
		if len(res.Values()) != len(res.Rows) {
			t.Fatalf("%s: Values has %d rows, want %d", text, len(res.Values()), len(res.Rows))
		}
	})
}
