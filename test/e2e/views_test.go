package e2e_test

import (
	"sort"
	"testing"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/test/internal/testserver"
)

// TestMaterializedViewThroughGocql reads a materialized view through gocql:
// prepared statements and paging over the view, the view kept in step
// with the base's writes, and the view in gocql's schema metadata
// (system_schema.views).
func TestMaterializedViewThroughGocql(t *testing.T) {
	srv, err := testserver.Start(testserver.Options{MaterializedViews: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	c := newCluster(srv.Host, srv.Port)
	admin, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	mustExec(t, admin, "CREATE KEYSPACE go_mv WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	c.Keyspace = "go_mv"
	s, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mustExec(t, s, "CREATE TABLE users (id int PRIMARY KEY, country text, name text)")
	for i := 0; i < 50; i++ {
		country := []string{"FR", "DE"}[i%2]
		if err := s.Query("INSERT INTO users (id, country, name) VALUES (?, ?, ?)", i, country, "u").Exec(); err != nil {
			t.Fatal(err)
		}
	}
	mustExec(t, s, `CREATE MATERIALIZED VIEW users_by_country AS SELECT * FROM users
		WHERE id IS NOT NULL AND country IS NOT NULL PRIMARY KEY (country, id)`)
	if err := s.Query("UPDATE users SET country = 'IT' WHERE id = ?", 0).Exec(); err != nil {
		t.Fatal(err)
	}

	count := func(country string) int {
		iter := s.Query("SELECT id, name FROM users_by_country WHERE country = ?", country).PageSize(7).Iter()
		n := 0
		var id int
		var name string
		for iter.Scan(&id, &name) {
			n++
		}
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
		return n
	}
	equal(t, "FR rows", count("FR"), 24)
	equal(t, "DE rows", count("DE"), 25)
	equal(t, "IT rows", count("IT"), 1)

	if err := s.Query("INSERT INTO users_by_country (country, id) VALUES ('FR', 99)").Exec(); err == nil {
		t.Fatal("a write to the view was accepted")
	} else if re, ok := err.(gocql.RequestError); !ok || re.Code() != gocql.ErrCodeInvalid || re.Message() != "Cannot directly modify a materialized view" {
		t.Fatalf("write to the view: %T %v", err, err)
	}

	ks, err := s.KeyspaceMetadata("go_mv")
	if err != nil {
		t.Fatal(err)
	}
	mv := ks.MaterializedViews["users_by_country"]
	if mv == nil {
		t.Fatalf("materialized views: %v", ks.MaterializedViews)
	}
	equal(t, "base table", mv.BaseTable != nil && mv.BaseTable.Name == "users", true)
	equal(t, "include all columns", mv.IncludeAllColumns, true)
	var tables []string
	for name := range ks.Tables {
		tables = append(tables, name)
	}
	sort.Strings(tables)
	// system_schema.columns holds the view's columns as Cassandra's does,
	// and gocql files them under a table entry of the view's name.
	equal(t, "tables", tables, []string{"users", "users_by_country"})
}
