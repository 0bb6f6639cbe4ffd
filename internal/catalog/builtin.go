package catalog

// BuiltinTable declares a table answered by the server itself (package
// systables) rather than by storage.
type BuiltinTable struct {
	Keyspace, Name string
	PartitionKey   []ColumnSpec
	Clustering     []ColumnSpec
	// Regular columns (static columns are not used by built-in tables).
	Regular []ColumnSpec
	Comment string
	// Desc lists clustering columns stored in descending order.
	Desc map[string]bool
}

// NewBuiltinTable builds the schema of a built-in table.
func NewBuiltinTable(b BuiltinTable) *Table {
	t := &Table{Keyspace: b.Keyspace, Name: b.Name, Virtual: true, Options: DefaultOptions(), Dropped: map[string]Dropped{}}
	t.Options.Comment = b.Comment
	t.ID = nameUUID(b.Keyspace + "." + b.Name)
	for i, c := range b.PartitionKey {
		t.addColumn(c.Name, c.Type, PartitionKey, i, false)
	}
	for i, c := range b.Clustering {
		t.addColumn(c.Name, c.Type, Clustering, i, b.Desc[c.Name])
	}
	for _, c := range b.Regular {
		t.addColumn(c.Name, c.Type, Regular, -1, false)
	}
	t.finish()
	return t
}

// NewBuiltinKeyspace groups built-in tables. A virtual keyspace is listed in
// system_virtual_schema only; the others (system, system_schema, ...) are
// listed in system_schema.keyspaces like user keyspaces.
func NewBuiltinKeyspace(name string, virtual bool, replication map[string]string, tables ...*Table) *Keyspace {
	ks := &Keyspace{Name: name, DurableWrites: true, Replication: replication, Tables: map[string]*Table{}, Virtual: virtual}
	for _, t := range tables {
		ks.Tables[t.Name] = t
	}
	return ks
}

// nameUUID derives a stable version-3-style id from a name, so built-in
// tables keep their ids across restarts.
func nameUUID(name string) UUID {
	var u UUID
	h := fnv128(name)
	copy(u[:], h[:])
	u[6] = (u[6] & 0x0f) | 0x30
	u[8] = (u[8] & 0x3f) | 0x80
	return u
}

func fnv128(s string) [16]byte {
	var a, b uint64 = 0xcbf29ce484222325, 0x84222325cbf29ce4
	for i := 0; i < len(s); i++ {
		a = (a ^ uint64(s[i])) * 0x100000001b3
		b = (b ^ uint64(s[len(s)-1-i])) * 0x100000001b3
	}
	var out [16]byte
	for i := 0; i < 8; i++ {
		out[i] = byte(a >> (56 - 8*i))
		out[8+i] = byte(b >> (56 - 8*i))
	}
	return out
}
