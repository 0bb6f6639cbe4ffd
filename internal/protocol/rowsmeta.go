package protocol

import (
	"github.com/partita-db/partita/internal/types"
)

// Rows metadata flags (§4.2.5.2).
const (
	metaGlobalTablesSpec int32 = 0x0001
	metaHasMorePages     int32 = 0x0002
	metaNoMetadata       int32 = 0x0004
)

// ColumnSpec describes a result column or a bind marker (§4.2.5.2,
// §4.2.5.4): its table, its name (the column, alias or marker name) and
// its type.
type ColumnSpec struct {
	Keyspace, Table, Name string
	Type                  *types.Type
}

// RowsMetadata is the <metadata> of a Rows result and the result metadata
// of a Prepared result (§4.2.5.2). The Global_tables_spec flag is not a
// field: the encoder sets it whenever all columns share one keyspace and
// table, as Cassandra does, and the decoder fills every ColumnSpec.
type RowsMetadata struct {
	// Columns are the column specs, in result order.
	Columns []ColumnSpec
	// NoMetadata sends only the column count (the client asked to skip
	// metadata, or this is the result metadata of a non-SELECT).
	NoMetadata bool
	// ColumnCount is the column count when NoMetadata hides the columns:
	// the decoder sets it then (and only then); the encoder writes it when
	// NoMetadata is set and Columns is empty, len(Columns) otherwise.
	ColumnCount int
	// PagingState, when non-nil, sets Has_more_pages and is sent as the
	// state to resume from.
	PagingState []byte
}

// columnCount is the columns_count the encoder writes.
func (m *RowsMetadata) columnCount() int {
	if m.NoMetadata && len(m.Columns) == 0 {
		return max(m.ColumnCount, 0)
	}
	return len(m.Columns)
}

func appendRowsMetadata(dst []byte, m *RowsMetadata) []byte {
	var flags int32
	global := !m.NoMetadata && sameTable(m.Columns)
	if global {
		flags |= metaGlobalTablesSpec
	}
	if m.PagingState != nil {
		flags |= metaHasMorePages
	}
	if m.NoMetadata {
		flags |= metaNoMetadata
	}
	dst = appendInt(dst, flags)
	dst = appendInt(dst, int32(m.columnCount()))
	if m.PagingState != nil {
		dst = appendBytes(dst, m.PagingState)
	}
	if m.NoMetadata {
		return dst
	}
	return appendColumnSpecs(dst, m.Columns, global)
}

// sameTable reports whether there is at least one column and all columns
// belong to the same table.
func sameTable(cols []ColumnSpec) bool {
	if len(cols) == 0 {
		return false
	}
	for _, c := range cols[1:] {
		if c.Keyspace != cols[0].Keyspace || c.Table != cols[0].Table {
			return false
		}
	}
	return true
}

// appendColumnSpecs appends [<global_table_spec>]<col_spec_1>...<col_spec_n>.
func appendColumnSpecs(dst []byte, cols []ColumnSpec, global bool) []byte {
	if global {
		dst = appendString(dst, cols[0].Keyspace)
		dst = appendString(dst, cols[0].Table)
	}
	for i := range cols {
		c := &cols[i]
		if !global {
			dst = appendString(dst, c.Keyspace)
			dst = appendString(dst, c.Table)
		}
		dst = appendString(dst, c.Name)
		dst = AppendTypeOption(dst, c.Type)
	}
	return dst
}

func (r *reader) readRowsMetadata(m *RowsMetadata) {
	flags := r.readInt("metadata flags")
	n := r.readInt("columns count")
	if r.failed() {
		return
	}
	if n < 0 {
		r.fail("Invalid columns count %d", n)
		return
	}
	if flags&metaHasMorePages != 0 {
		m.PagingState = r.readBytes("paging state")
	}
	m.NoMetadata = flags&metaNoMetadata != 0
	if m.NoMetadata {
		m.ColumnCount = int(n)
		return
	}
	m.Columns = r.readColumnSpecs(int(n), flags&metaGlobalTablesSpec != 0)
}

// readColumnSpecs reads [<global_table_spec>] and n column specs.
func (r *reader) readColumnSpecs(n int, global bool) []ColumnSpec {
	var ks, table string
	if global {
		ks = r.readString("keyspace")
		table = r.readString("table")
	}
	// Each spec takes at least a [string] name and an [option]: 4 bytes.
	cols := make([]ColumnSpec, 0, min(n, r.remaining()/4))
	for i := 0; i < n && !r.failed(); i++ {
		c := ColumnSpec{Keyspace: ks, Table: table}
		if !global {
			c.Keyspace = r.readString("keyspace")
			c.Table = r.readString("table")
		}
		c.Name = r.readString("column name")
		c.Type = r.readTypeOption(0)
		cols = append(cols, c)
	}
	return cols
}
