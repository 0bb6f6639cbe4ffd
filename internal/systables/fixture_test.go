package systables

import (
	"context"
	"crypto/md5"
	"maps"
	"net"
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/types"
)

// memStore is a catalog.Store that keeps nothing.
type memStore struct{}

func (memStore) LoadSchema(context.Context) ([]byte, error) { return nil, nil }
func (memStore) SaveSchema(context.Context, []byte, []backend.TableID) error {
	return nil
}

func openCatalog(tb testing.TB) *catalog.Catalog {
	tb.Helper()
	cat, err := catalog.Open(context.Background(), memStore{},
		catalog.Topology{DataCenters: []string{"datacenter1"}, Nodes: 1}, Keyspaces())
	if err != nil {
		tb.Fatal(err)
	}
	return cat
}

func mustDDL(tb testing.TB, _ catalog.Result, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

func replication(m map[string]string) catalog.Property {
	return catalog.Property{Name: "replication", IsMap: true, Map: m}
}

// fixtureSchema builds, through the catalog's DDL, two keyspaces with a
// user-defined type, a table with a composite partition key, DESC
// clustering, a static column and a dropped column, a counter table, and a
// table with three secondary indexes. Table ids and the schema version are
// then fixed so that the rendered rows are stable.
func fixtureSchema(tb testing.TB) *catalog.Schema {
	ctx := context.Background()
	cat := openCatalog(tb)
	res, err := cat.CreateKeyspace(ctx, catalog.KeyspaceSpec{Name: "ks", Properties: []catalog.Property{
		replication(map[string]string{"class": "SimpleStrategy", "replication_factor": "1"})}})
	mustDDL(tb, res, err)
	res, err = cat.CreateKeyspace(ctx, catalog.KeyspaceSpec{Name: "other", Properties: []catalog.Property{
		replication(map[string]string{"class": "NetworkTopologyStrategy", "datacenter1": "1"}),
		{Name: "durable_writes", Value: "false"}}})
	mustDDL(tb, res, err)
	res, err = cat.CreateType(ctx, catalog.TypeSpec{Keyspace: "ks", Name: "address",
		FieldNames: []string{"street", "zip"}, FieldTypes: []*types.Type{types.Text, types.Int}})
	mustDDL(tb, res, err)
	address := types.Frozen(cat.Current().Keyspace("ks").Type("address"))

	res, err = cat.CreateTable(ctx, catalog.TableSpec{Keyspace: "ks", Name: "users", PrimaryKeyDecls: 1,
		Columns: []catalog.ColumnSpec{
			{Name: "id", Type: types.UUID},
			{Name: "name", Type: types.Text},
			{Name: "home", Type: address},
			{Name: "tags", Type: types.SetOf(types.Text)},
			{Name: "prefs", Type: types.MapOf(types.Text, types.Int)},
			{Name: "Nick Name", Type: types.Text},
		},
		PartitionKey: []string{"id"}})
	mustDDL(tb, res, err)
	res, err = cat.CreateTable(ctx, catalog.TableSpec{Keyspace: "ks", Name: "events", PrimaryKeyDecls: 1,
		Columns: []catalog.ColumnSpec{
			{Name: "tenant", Type: types.Text},
			{Name: "day", Type: types.Int},
			{Name: "ts", Type: types.Timestamp},
			{Name: "seq", Type: types.Int},
			{Name: "note", Type: types.Text, Static: true},
			{Name: "payload", Type: types.Frozen(types.MapOf(types.Text, types.Int))},
			{Name: "old_home", Type: address},
		},
		PartitionKey:    []string{"tenant", "day"},
		Clustering:      []string{"ts", "seq"},
		ClusteringOrder: []catalog.OrderSpec{{Column: "ts", Desc: true}, {Column: "seq"}},
		Properties: []catalog.Property{
			{Name: "comment", Value: "event log"},
			{Name: "default_time_to_live", Value: "3600"},
			{Name: "compaction", IsMap: true, Map: map[string]string{"class": "LeveledCompactionStrategy", "sstable_size_in_mb": "160"}},
			{Name: "extensions", IsMap: true, Map: map[string]string{"origin": "ab"}},
		}})
	mustDDL(tb, res, err)
	res, err = cat.AlterTable(ctx, catalog.AlterTableSpec{Keyspace: "ks", Name: "events",
		Drop: []string{"old_home"}, DropTimestamp: 1700000000123456})
	mustDDL(tb, res, err)
	res, err = cat.CreateTable(ctx, catalog.TableSpec{Keyspace: "other", Name: "hits", PrimaryKeyDecls: 1,
		Columns:      []catalog.ColumnSpec{{Name: "page", Type: types.Text}, {Name: "n", Type: types.Counter}},
		PartitionKey: []string{"page"}})
	mustDDL(tb, res, err)

	s := fixStable(cat.Current())
	return withIndexes(s, "ks", "users",
		&catalog.Index{Name: "users_name_idx", Column: "name"},
		&catalog.Index{Name: "users_tags_idx", Column: "tags", Target: "values"},
		&catalog.Index{Name: "users_nick_idx", Column: "Nick Name"},
		&catalog.Index{Name: "users_prefs_idx", Column: "prefs", Target: "keys", Custom: true,
			Class: "org.example.PrefsIndex", Options: map[string]string{"mode": "fast"}})
}

// fixStable returns a copy of s whose user tables have ids derived from
// their names and whose version is fixed.
func fixStable(s *catalog.Schema) *catalog.Schema {
	n := *s
	n.Version = catalog.UUID{0x5c, 0x4e, 0x1a, 0x2b, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, 1}
	n.Keyspaces = maps.Clone(s.Keyspaces)
	for name, ks := range s.Keyspaces {
		if ks.IsSystem() {
			continue
		}
		k := *ks
		k.Tables = maps.Clone(ks.Tables)
		for tname, t := range ks.Tables {
			c := *t
			c.ID = catalog.UUID(md5.Sum([]byte(name + "." + tname)))
			k.Tables[tname] = &c
		}
		n.Keyspaces[name] = &k
	}
	return &n
}

// withIndexes returns a copy of s in which table keyspace.table has the
// given indexes (the catalog has no CREATE INDEX of its own yet).
func withIndexes(s *catalog.Schema, keyspace, table string, ixs ...*catalog.Index) *catalog.Schema {
	n := *s
	n.Keyspaces = maps.Clone(s.Keyspaces)
	k := *s.Keyspaces[keyspace]
	k.Tables = maps.Clone(k.Tables)
	t := *k.Tables[table]
	t.Indexes = append(append([]*catalog.Index(nil), t.Indexes...), ixs...)
	k.Tables[table] = &t
	n.Keyspaces[keyspace] = &k
	return &n
}

func fixtureNode() Node {
	return Node{
		ClusterName:      "Partita Cluster",
		HostID:           [16]byte{0x2f, 0x1c, 0x6a, 0x4d, 0x11, 0x22, 0x43, 0x33, 0x84, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa},
		RPCAddress:       net.IPv4(127, 0, 0, 1),
		ListenAddress:    net.IPv4(10, 0, 0, 5),
		NativePort:       9042,
		Tokens:           []int64{4611686018427387904, -9223372036854775807, 0},
		GossipGeneration: 1700000000,
	}
}

// formatRows prints rows one per line as name=literal pairs, or with
// vertical one column per line.
func formatRows(t *catalog.Table, rows [][][]byte, vertical bool) string {
	var b strings.Builder
	for i, r := range rows {
		if vertical {
			if i > 0 {
				b.WriteByte('\n')
			}
			for j, c := range t.Columns {
				b.WriteString(c.Name + ": " + types.FormatLiteral(c.Type, r[j]) + "\n")
			}
			continue
		}
		for j, c := range t.Columns {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(c.Name + "=" + types.FormatLiteral(c.Type, r[j]))
		}
		b.WriteByte('\n')
	}
	return b.String()
}
