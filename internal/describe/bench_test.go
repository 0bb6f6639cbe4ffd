package describe_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/describe"
)

// BenchmarkDescribeSchema renders DESCRIBE SCHEMA of 100 tables with ten
// columns, an index and a dropped column each, as cqlsh asks for it.
func BenchmarkDescribeSchema(b *testing.B) {
	h := newHarness(b)
	var script strings.Builder
	script.WriteString("CREATE KEYSPACE bench WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n")
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&script, "CREATE TABLE bench.t%d (k int, c int, v0 text, v1 int, v2 list<int>, v3 map<text, int>, v4 blob, v5 double, v6 uuid, v7 timestamp, PRIMARY KEY (k, c));\n", i)
		fmt.Fprintf(&script, "CREATE INDEX ON bench.t%d (v1);\n", i)
		fmt.Fprintf(&script, "ALTER TABLE bench.t%d DROP v7 USING TIMESTAMP 1;\n", i)
	}
	if out := h.runSchema(script.String()); out != "ok" {
		b.Fatal(out)
	}
	schema := h.snapshot()
	for _, internals := range []bool{false, true} {
		b.Run(fmt.Sprintf("internals=%v", internals), func(b *testing.B) {
			d := &ast.Describe{Kind: ast.DescribeSchema, WithInternals: internals}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := describe.Describe(schema, "", d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
