package systables

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/types"
)

// benchSchema has one keyspace of 50 tables with 10 columns each, about
// what a driver's schema load reads for a modest application.
func benchSchema(b *testing.B) *catalog.Schema {
	ctx := context.Background()
	cat := openCatalog(b)
	res, err := cat.CreateKeyspace(ctx, catalog.KeyspaceSpec{Name: "app", Properties: []catalog.Property{
		replication(map[string]string{"class": "SimpleStrategy", "replication_factor": "1"})}})
	mustDDL(b, res, err)
	for i := range 50 {
		cols := []catalog.ColumnSpec{{Name: "pk", Type: types.UUID}, {Name: "ck", Type: types.Timestamp}}
		for j := range 8 {
			cols = append(cols, catalog.ColumnSpec{Name: fmt.Sprintf("c%d", j), Type: types.MapOf(types.Text, types.Int)})
		}
		res, err := cat.CreateTable(ctx, catalog.TableSpec{Keyspace: "app", Name: fmt.Sprintf("t%02d", i),
			PrimaryKeyDecls: 1, Columns: cols, PartitionKey: []string{"pk"}, Clustering: []string{"ck"}})
		mustDDL(b, res, err)
	}
	return cat.Current()
}

func BenchmarkRows(b *testing.B) {
	env := &Env{Schema: benchSchema(b), Node: fixtureNode()}
	for _, name := range []string{"system.local", "system_schema.tables", "system_schema.columns"} {
		keyspace, table, _ := strings.Cut(name, ".")
		tbl := env.Schema.Table(keyspace, table)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Rows(context.Background(), env, tbl); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
