package catalog

import (
	"sort"
	"strings"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/types"
)

// UUID is a 16-byte uuid (table ids, schema versions).
type UUID [16]byte

// ColumnKind is the role of a column in its table.
type ColumnKind uint8

const (
	PartitionKey ColumnKind = iota
	Clustering
	Static
	Regular
)

// String is the kind as system_schema.columns.kind names it.
func (k ColumnKind) String() string {
	switch k {
	case PartitionKey:
		return "partition_key"
	case Clustering:
		return "clustering"
	case Static:
		return "static"
	}
	return "regular"
}

// Column is one column of a table.
type Column struct {
	Name string
	Type *types.Type
	Kind ColumnKind
	// Position is the index within the partition key or clustering columns;
	// -1 for static and regular columns.
	Position int
	// Desc marks a clustering column stored in descending order.
	Desc bool
	ID   backend.ColumnID
	// HiddenUpTo, for a column re-added after a drop, is the drop's
	// timestamp (microseconds): the column keeps the dropped one's ID, and
	// its cells written at or before HiddenUpTo are not read, as Cassandra
	// skips a dropped column's older cells. 0: none hidden.
	HiddenUpTo int64
}

// IsPrimaryKey reports whether c is part of the primary key.
func (c *Column) IsPrimaryKey() bool { return c.Kind == PartitionKey || c.Kind == Clustering }

// Dropped records a dropped column, shown in system_schema.dropped_columns
// and checked when a column of that name is added again. A re-added column
// takes back the dropped one's ID (when recorded: HasID), hiding its cells
// written at or before DroppedAt (microseconds), so those written after it
// are read again, as in Cassandra.
type Dropped struct {
	Type      *types.Type
	DroppedAt int64
	Kind      ColumnKind
	ID        backend.ColumnID
	HasID     bool
}

// Index is a secondary index on one column of a table.
type Index struct {
	Name   string
	Column string
	// Target is "values", "keys", "entries", "full" or "" (a plain column).
	Target  string
	Custom  bool
	Class   string
	Options map[string]string
	// StorageID is the key prefix of the index's entries in storage.
	StorageID backend.TableID
}

// Table is a table's schema.
type Table struct {
	Keyspace string
	Name     string
	ID       UUID
	// StorageID is the table's key prefix in storage (invariant 4).
	StorageID    backend.TableID
	Columns      []*Column // partition key, clustering, then static and regular by name
	PartitionKey []*Column
	Clustering   []*Column
	Statics      []*Column // sorted by name
	Regulars     []*Column // sorted by name
	Options      Options
	Dropped      map[string]Dropped
	Indexes      []*Index
	IsCounter    bool
	// View is set when the table is a materialized view (ddl_view.go).
	View *ViewDef
	// Virtual tables are answered by package systables, not by storage.
	Virtual bool
	// NextColumnID is the next unused ColumnID.
	NextColumnID backend.ColumnID

	byName map[string]*Column
	byID   map[backend.ColumnID]*Column
}

// Column returns the column with this (exact, already case-folded) name.
func (t *Table) Column(name string) *Column { return t.byName[name] }

// ColumnByID returns the column with this storage id, or nil.
func (t *Table) ColumnByID(id backend.ColumnID) *Column { return t.byID[id] }

// HasStatics reports whether the table has static columns.
func (t *Table) HasStatics() bool { return len(t.Statics) > 0 }

// QualifiedName is keyspace.table, quoted where CQL needs it.
func (t *Table) QualifiedName() string {
	return types.QuoteIdent(t.Keyspace) + "." + types.QuoteIdent(t.Name)
}

// IndexOn returns the index on a column, or nil.
func (t *Table) IndexOn(column string) *Index {
	for _, ix := range t.Indexes {
		if ix.Column == column {
			return ix
		}
	}
	return nil
}

// finish sorts the columns and builds the lookup maps. It is called on every
// new or changed table before it is published.
func (t *Table) finish() {
	t.PartitionKey, t.Clustering, t.Statics, t.Regulars = nil, nil, nil, nil
	for _, c := range t.Columns {
		switch c.Kind {
		case PartitionKey:
			t.PartitionKey = append(t.PartitionKey, c)
		case Clustering:
			t.Clustering = append(t.Clustering, c)
		case Static:
			t.Statics = append(t.Statics, c)
		default:
			t.Regulars = append(t.Regulars, c)
		}
	}
	sort.SliceStable(t.PartitionKey, func(i, j int) bool { return t.PartitionKey[i].Position < t.PartitionKey[j].Position })
	sort.SliceStable(t.Clustering, func(i, j int) bool { return t.Clustering[i].Position < t.Clustering[j].Position })
	byNameBytes := func(cs []*Column) {
		sort.Slice(cs, func(i, j int) bool { return cs[i].Name < cs[j].Name })
	}
	byNameBytes(t.Statics)
	byNameBytes(t.Regulars)
	all := make([]*Column, 0, len(t.Columns))
	all = append(all, t.PartitionKey...)
	all = append(all, t.Clustering...)
	all = append(all, t.Statics...)
	all = append(all, t.Regulars...)
	t.Columns = all
	t.byName = make(map[string]*Column, len(all))
	t.byID = make(map[backend.ColumnID]*Column, len(all))
	t.IsCounter = false
	for _, c := range all {
		t.byName[c.Name] = c
		t.byID[c.ID] = c
		if c.Type.IsCounter() {
			t.IsCounter = true
		}
	}
}

// clone returns a copy of t that can be changed without touching t.
func (t *Table) clone() *Table {
	n := *t
	n.Columns = make([]*Column, len(t.Columns))
	for i, c := range t.Columns {
		cc := *c
		n.Columns[i] = &cc
	}
	n.Options = t.Options.clone()
	n.Dropped = make(map[string]Dropped, len(t.Dropped))
	for k, v := range t.Dropped {
		n.Dropped[k] = v
	}
	n.Indexes = append([]*Index(nil), t.Indexes...)
	n.finish()
	return &n
}

// Keyspace is a keyspace's schema.
type Keyspace struct {
	Name          string
	DurableWrites bool
	// Replication holds "class" (the full Java class name) and the
	// strategy's options.
	Replication map[string]string
	Tables      map[string]*Table
	// Types are the user-defined types, in creation order (a type may use
	// only types created before it).
	Types   []*types.Type
	Virtual bool
}

// Table returns the table with this name, or nil.
func (k *Keyspace) Table(name string) *Table { return k.Tables[name] }

// Type returns the user-defined type with this name, or nil.
func (k *Keyspace) Type(name string) *types.Type {
	for _, t := range k.Types {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// TableNames returns the table names in order.
func (k *Keyspace) TableNames() []string {
	names := make([]string, 0, len(k.Tables))
	for n := range k.Tables {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// IsSystem reports whether the keyspace belongs to the server.
func (k *Keyspace) IsSystem() bool { return IsSystemKeyspace(k.Name) }

// IsSystemKeyspace reports whether name is one of the server's keyspaces.
func IsSystemKeyspace(name string) bool {
	switch name {
	case "system", "system_schema", "system_auth", "system_distributed", "system_traces",
		"system_views", "system_virtual_schema", "system_partita":
		return true
	}
	return false
}

func (k *Keyspace) clone() *Keyspace {
	n := *k
	n.Replication = cloneStrings(k.Replication)
	n.Tables = make(map[string]*Table, len(k.Tables))
	for name, t := range k.Tables {
		n.Tables[name] = t
	}
	n.Types = append([]*types.Type(nil), k.Types...)
	return &n
}

// Schema is one immutable version of the whole schema (invariant 1).
type Schema struct {
	Version   UUID
	Keyspaces map[string]*Keyspace
	// NextTableID is the next unused storage TableID.
	NextTableID backend.TableID

	byStorageID map[backend.TableID]*Table
}

// Keyspace returns the keyspace with this name, or nil.
func (s *Schema) Keyspace(name string) *Keyspace { return s.Keyspaces[name] }

// Table returns a table, or nil.
func (s *Schema) Table(keyspace, name string) *Table {
	if ks := s.Keyspaces[keyspace]; ks != nil {
		return ks.Tables[name]
	}
	return nil
}

// TableByStorageID returns the table stored under id, or nil.
func (s *Schema) TableByStorageID(id backend.TableID) *Table { return s.byStorageID[id] }

// KeyspaceNames returns every keyspace name in order.
func (s *Schema) KeyspaceNames() []string {
	names := make([]string, 0, len(s.Keyspaces))
	for n := range s.Keyspaces {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (s *Schema) clone() *Schema {
	n := &Schema{Version: s.Version, NextTableID: s.NextTableID, Keyspaces: make(map[string]*Keyspace, len(s.Keyspaces))}
	for name, ks := range s.Keyspaces {
		n.Keyspaces[name] = ks
	}
	return n
}

func (s *Schema) index() {
	s.byStorageID = map[backend.TableID]*Table{}
	for _, ks := range s.Keyspaces {
		for _, t := range ks.Tables {
			if !t.Virtual {
				s.byStorageID[t.StorageID] = t
			}
		}
	}
}

func cloneStrings(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	n := make(map[string]string, len(m))
	for k, v := range m {
		n[k] = v
	}
	return n
}

// FormatStringMap prints a map the way Cassandra prints option maps:
// {'a': 'b', 'c': 'd'} with keys in order.
func FormatStringMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteString(k))
		b.WriteString(": ")
		b.WriteString(quoteString(m[k]))
	}
	b.WriteByte('}')
	return b.String()
}

func quoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
