package e2e_test

import (
	"testing"

	"github.com/gocql/gocql"
)

// typeName renders a gocql column type as CQL.
func typeName(c *gocql.ColumnMetadata) string {
	if c == nil || c.Type == nil {
		return "<nil>"
	}
	return c.Type.Type().String()
}

// TestSchemaMetadata lists keyspaces, tables and columns through gocql's own
// metadata API, and sees another client's DDL arrive through SCHEMA_CHANGE
// events (gocql drops its cached keyspace on each event).
func TestSchemaMetadata(t *testing.T) {
	s := newKeyspace(t, "go_meta")
	mustExec(t, s, `CREATE TABLE meta_events (
    asset_id text,
    day date,
    event_ts timestamp,
    seq int,
    payload text,
    tags set<text>,
    PRIMARY KEY ((asset_id, day), event_ts, seq)
) WITH CLUSTERING ORDER BY (event_ts DESC, seq ASC)`)

	ks, err := s.KeyspaceMetadata("go_meta")
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "strategy", ks.StrategyClass, "org.apache.cassandra.locator.SimpleStrategy")
	tm := ks.Tables["meta_events"]
	if tm == nil {
		t.Fatalf("tables: %v", ks.Tables)
	}
	var pk, ck []string
	for _, c := range tm.PartitionKey {
		pk = append(pk, c.Name)
	}
	for _, c := range tm.ClusteringColumns {
		ck = append(ck, c.Name+" "+c.ClusteringOrder)
	}
	equal(t, "partition key", pk, []string{"asset_id", "day"})
	equal(t, "clustering", ck, []string{"event_ts desc", "seq asc"})
	types := map[string]string{}
	for name, c := range tm.Columns {
		types[name] = typeName(c)
	}
	equal(t, "column types", types, map[string]string{
		"asset_id": "text", "day": "date", "event_ts": "timestamp", "seq": "int", "payload": "text", "tags": "set",
	})
	// gocql keeps system_schema.columns' row order: by column name, the
	// table's clustering order (SchemaKeyspace.Columns).
	equal(t, "ordered columns", tm.OrderedColumns, []string{"asset_id", "day", "event_ts", "payload", "seq", "tags"})

	other := connect(t, "go_meta")
	mustExec(t, other, "CREATE TABLE meta_remote (k int PRIMARY KEY, v text)")
	if !waitFor(waitSchema, func() bool {
		ks, err := s.KeyspaceMetadata("go_meta")
		return err == nil && ks.Tables["meta_remote"] != nil
	}) {
		t.Fatal("CREATE TABLE by another session never reached the metadata")
	}
	mustExec(t, other, "ALTER TABLE meta_remote ADD note text")
	if !waitFor(waitSchema, func() bool {
		ks, err := s.KeyspaceMetadata("go_meta")
		return err == nil && ks.Tables["meta_remote"] != nil && ks.Tables["meta_remote"].Columns["note"] != nil
	}) {
		t.Fatal("ALTER TABLE by another session never reached the metadata")
	}
	mustExec(t, other, "CREATE TYPE address (street text, zip int)")
	if !waitFor(waitSchema, func() bool {
		ks, err := s.KeyspaceMetadata("go_meta")
		return err == nil && ks.UserTypes["address"] != nil
	}) {
		t.Fatal("CREATE TYPE never reached the metadata")
	}
	mustExec(t, other, "DROP TABLE meta_remote")
	if !waitFor(waitSchema, func() bool {
		ks, err := s.KeyspaceMetadata("go_meta")
		return err == nil && ks.Tables["meta_remote"] == nil
	}) {
		t.Fatal("DROP TABLE never reached the metadata")
	}
}
