package plan_test

import (
	"context"
	"testing"

	"github.com/partita-db/partita/internal/cql/parser"
	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/plan"
)

// benchPlan plans one parsed statement against seed 003's table, as every
// EXECUTE after a schema change and every unprepared QUERY does.
func benchPlan(b *testing.B, query string) {
	h := cqltest.New(b)
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		`CREATE TABLE ks.events_by_asset_day (asset_id text, day date, event_ts timestamp, payload text,
			PRIMARY KEY ((asset_id, day), event_ts)) WITH CLUSTERING ORDER BY (event_ts DESC)`,
	} {
		if _, err := h.Session.Query(context.Background(), q, nil); err != nil {
			b.Fatal(err)
		}
	}
	stmt, err := parser.Parse(query)
	if err != nil {
		b.Fatal(err)
	}
	schema := h.Engine.Catalog().Current()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := plan.Plan(stmt, schema, "ks"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPlanSelect(b *testing.B) {
	benchPlan(b, "SELECT event_ts, payload FROM events_by_asset_day WHERE asset_id = ? AND day = ? AND event_ts >= ? AND event_ts < ? ORDER BY event_ts ASC LIMIT 100")
}

func BenchmarkPlanInsert(b *testing.B) {
	benchPlan(b, "INSERT INTO events_by_asset_day (asset_id, day, event_ts, payload) VALUES (?, ?, ?, ?) USING TTL 86400")
}
