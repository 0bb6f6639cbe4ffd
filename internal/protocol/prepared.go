package protocol

// PreparedMetadata is the bind-variable <metadata> of a Prepared result
// (§4.2.5.4). As for rows, Global_tables_spec is derived from Columns.
type PreparedMetadata struct {
	// PKIndexes holds, for each partition key column in key order, the
	// index of the bind marker that gives its value; empty when some key
	// column has no marker of its own. Drivers route with it.
	PKIndexes []uint16
	// Columns describe the bind markers: the marker name, or the column's
	// for an anonymous marker, and the type the value must have.
	Columns []ColumnSpec
}

// PreparedResult is the Prepared RESULT (§4.2.5.4): the statement id, the
// bind-variable metadata and the metadata of the rows EXECUTE will return.
// ResultMetadata should be NoMetadata with no columns for anything but a
// SELECT.
type PreparedResult struct {
	ID             []byte
	Variables      PreparedMetadata
	ResultMetadata RowsMetadata
}

func (*PreparedResult) Opcode() Opcode { return OpResult }
func (*PreparedResult) isResponse()    {}

func (m *PreparedResult) Encode(dst []byte) []byte {
	dst = appendInt(dst, int32(ResultPrepared))
	dst = appendShortBytes(dst, m.ID)
	v := &m.Variables
	global := sameTable(v.Columns)
	var flags int32
	if global {
		flags |= metaGlobalTablesSpec
	}
	dst = appendInt(dst, flags)
	dst = appendInt(dst, int32(len(v.Columns)))
	dst = appendInt(dst, int32(len(v.PKIndexes)))
	for _, i := range v.PKIndexes {
		dst = appendShort(dst, i)
	}
	dst = appendColumnSpecs(dst, v.Columns, global)
	return appendRowsMetadata(dst, &m.ResultMetadata)
}

func (m *PreparedResult) Decode(body []byte) error {
	r := newReader(body)
	r.readResultKind(ResultPrepared)
	m.ID = r.readShortBytes("prepared statement id")
	flags := r.readInt("metadata flags")
	n := r.readInt("columns count")
	pk := r.readInt("pk count")
	if r.failed() {
		return r.err()
	}
	if n < 0 || pk < 0 {
		r.fail("Invalid prepared metadata counts %d, %d", n, pk)
		return r.err()
	}
	m.Variables.PKIndexes = make([]uint16, 0, min(int(pk), r.remaining()/2))
	for i := 0; i < int(pk) && !r.failed(); i++ {
		m.Variables.PKIndexes = append(m.Variables.PKIndexes, r.readShort("pk index"))
	}
	m.Variables.Columns = r.readColumnSpecs(int(n), flags&metaGlobalTablesSpec != 0)
	r.readRowsMetadata(&m.ResultMetadata)
	return r.err()
}
