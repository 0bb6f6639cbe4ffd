package systables

import (
	"context"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/types"
)

// TestRows renders the built-in tables from the fixture schema
// (fixtureSchema) and node (fixtureNode).
//
// Commands:
//
//	rows table=<keyspace.table> [ks=<keyspace>] [vertical]
//	    prints every row of the table, in the order Rows returns them, as
//	    column=literal pairs; ks keeps only the rows whose first column (the
//	    partition key, keyspace_name in system_schema) is that keyspace;
//	    vertical prints one column per line.
func TestRows(t *testing.T) {
	env := &Env{Schema: fixtureSchema(t), Node: fixtureNode()}
	datadriven.RunTest(t, "testdata/rows", func(t *testing.T, d *datadriven.TestData) string {
		switch d.Cmd {
		case "rows":
			var name, ks string
			d.ScanArgs(t, "table", &name)
			if d.HasArg("ks") {
				d.ScanArgs(t, "ks", &ks)
			}
			keyspace, table, _ := strings.Cut(name, ".")
			tbl := env.Schema.Table(keyspace, table)
			if tbl == nil {
				t.Fatalf("no table %s", name)
			}
			rows, err := Rows(context.Background(), env, tbl)
			if err != nil {
				return "error: " + err.Error()
			}
			if ks != "" {
				rows = keepKeyspace(rows, ks)
			}
			return formatRows(tbl, rows, d.HasArg("vertical"))
		default:
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		}
	})
}

func keepKeyspace(rows [][][]byte, ks string) [][][]byte {
	var out [][][]byte
	for _, r := range rows {
		if string(r[0]) == ks {
			out = append(out, r)
		}
	}
	return out
}

// TestRowsEveryTable renders every built-in table Keyspaces declares and
// checks that each has a renderer, every value set names a real column,
// and every value is a valid serialization of its column's type.
func TestRowsEveryTable(t *testing.T) {
	env := &Env{Schema: fixtureSchema(t), Node: fixtureNode()}
	for _, ks := range Keyspaces() {
		for _, name := range ks.TableNames() {
			tbl := ks.Tables[name]
			t.Run(ks.Name+"."+name, func(t *testing.T) {
				if !Answers(tbl) {
					t.Fatalf("no renderer")
				}
				rows, err := Rows(context.Background(), env, tbl)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range rows {
					if len(r) != len(tbl.Columns) {
						t.Fatalf("row has %d values, table %d columns", len(r), len(tbl.Columns))
					}
					for i, c := range tbl.Columns {
						if c.IsPrimaryKey() && r[i] == nil {
							t.Errorf("null primary key column %s", c.Name)
						}
						if r[i] != nil {
							if err := types.Validate(c.Type, r[i]); err != nil {
								t.Errorf("column %s: %v", c.Name, err)
							}
						}
					}
				}
			})
		}
	}
}

// TestRowsSeeDDL checks invariant 2: a DDL is visible in the next read, and
// system.local.schema_version follows the snapshot.
func TestRowsSeeDDL(t *testing.T) {
	ctx := context.Background()
	cat := openCatalog(t)
	local := cat.Current().Table(SystemKeyspace, "local")
	tables := cat.Current().Table(SchemaKeyspace, "tables")
	read := func(tbl *catalog.Table) [][][]byte {
		t.Helper()
		rows, err := Rows(ctx, &Env{Schema: cat.Current(), Node: fixtureNode()}, tbl)
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	versionCol := columnIndex(local, "schema_version")
	before := read(local)[0][versionCol]
	nTables := len(read(tables))

	res, err := cat.CreateKeyspace(ctx, catalog.KeyspaceSpec{Name: "fresh", Properties: []catalog.Property{
		replication(map[string]string{"class": "SimpleStrategy", "replication_factor": "1"})}})
	mustDDL(t, res, err)
	res, err = cat.CreateTable(ctx, catalog.TableSpec{Keyspace: "fresh", Name: "t", PrimaryKeyDecls: 1,
		Columns: fixtureColumns(), PartitionKey: []string{"k"}})
	mustDDL(t, res, err)

	after := read(local)[0][versionCol]
	if string(after) == string(before) {
		t.Errorf("schema_version did not change")
	}
	if want := cat.Current().Version; string(after) != string(want[:]) {
		t.Errorf("schema_version %x, snapshot version %x", after, want)
	}
	if got := len(read(tables)); got != nTables+1 {
		t.Errorf("system_schema.tables has %d rows after CREATE TABLE, want %d", got, nTables+1)
	}
}

func fixtureColumns() []catalog.ColumnSpec {
	return []catalog.ColumnSpec{{Name: "k", Type: text}, {Name: "v", Type: text}}
}

func columnIndex(t *catalog.Table, name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

func TestRowsErrors(t *testing.T) {
	s := fixtureSchema(t)
	user := s.Table("ks", "users")
	local := s.Table(SystemKeyspace, "local")
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		env  *Env
		tbl  *catalog.Table
	}{
		{"not built in", context.Background(), &Env{Schema: s}, user},
		{"no schema", context.Background(), &Env{}, local},
		{"nil env", context.Background(), nil, local},
		{"canceled", canceled, &Env{Schema: s}, local},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Rows(tc.ctx, tc.env, tc.tbl); err == nil {
				t.Fatal("no error")
			}
		})
	}
}
