package protocol

// BatchType is a BATCH <type> (§4.1.7).
type BatchType byte

// Batch types (§4.1.7).
const (
	BatchLogged   BatchType = 0
	BatchUnlogged BatchType = 1
	BatchCounter  BatchType = 2
)

// String returns the batch type as CQL writes it.
func (t BatchType) String() string {
	switch t {
	case BatchLogged:
		return "LOGGED"
	case BatchUnlogged:
		return "UNLOGGED"
	case BatchCounter:
		return "COUNTER"
	}
	return "BatchType(?)"
}

// Batch statement kinds (§4.1.7 <kind>).
const (
	batchKindQuery    = 0
	batchKindPrepared = 1
)

// batchFlags are the query flags that mean something for a batch.
const batchFlags = FlagSerialConsistency | FlagDefaultTimestamp | FlagNamesForValues

// BatchStatement is one <query_i> of a BATCH: a query string (kind 0) or a
// prepared id (kind 1), with its values.
type BatchStatement struct {
	// Prepared tells which of Query and ID is set.
	Prepared bool
	Query    string
	ID       []byte
	Values   []Value
}

// Batch is BATCH (§4.1.7).
//
// Flag 0x40 (names for values) cannot work, as the spec itself says: the
// flags come after the statements they would describe. Like Cassandra
// (transport/messages/BatchMessage.java), values are read without names
// whatever the flags say. The trailing <consistency><flags>... is decoded
// with the QUERY parameter decoder, again like Cassandra, so the fields of
// bits 0x01-0x08 (which the spec says must be 0) are parsed and dropped.
type Batch struct {
	Type       BatchType
	Statements []BatchStatement
	// Consistency, Flags, SerialConsistency (SERIAL when absent) and
	// Timestamp (with FlagDefaultTimestamp) mean what they mean in QUERY.
	Consistency       Consistency
	Flags             QueryFlags
	SerialConsistency Consistency
	Timestamp         int64
}

func (*Batch) Opcode() Opcode { return OpBatch }
func (*Batch) isRequest()     {}

// Has reports whether all the bits of f are set.
func (m *Batch) Has(f QueryFlags) bool { return m.Flags&f == f }

func (m *Batch) Encode(dst []byte) []byte {
	dst = append(dst, byte(m.Type))
	stmts := m.Statements[:min(len(m.Statements), maxShort)]
	dst = appendShort(dst, uint16(len(stmts)))
	for i := range stmts {
		s := &stmts[i]
		if s.Prepared {
			dst = append(dst, batchKindPrepared)
			dst = appendShortBytes(dst, s.ID)
		} else {
			dst = append(dst, batchKindQuery)
			dst = appendLongString(dst, s.Query)
		}
		dst = appendValueList(dst, s.Values, nil, false)
	}
	// Only the bits that mean something for a batch are written.
	p := QueryParameters{
		Consistency:       m.Consistency,
		Flags:             m.Flags & batchFlags,
		SerialConsistency: m.SerialConsistency,
		Timestamp:         m.Timestamp,
	}
	return appendQueryParameters(dst, &p)
}

func (m *Batch) Decode(body []byte) error {
	r := newReader(body)
	m.Type = BatchType(r.readByte("batch type"))
	if !r.failed() && m.Type > BatchCounter {
		// Cassandra's text (BatchMessage.Codec.toType).
		r.fail("Invalid BATCH message type %d", byte(m.Type))
	}
	n := int(r.readShort("batch statement count"))
	if r.failed() {
		return r.err()
	}
	// Each statement takes at least 1+2+2 bytes.
	m.Statements = make([]BatchStatement, 0, min(n, r.remaining()/5))
	for i := 0; i < n && !r.failed(); i++ {
		var s BatchStatement
		switch kind := r.readByte("batch statement kind"); {
		case r.failed():
		case kind == batchKindQuery:
			s.Query = r.readLongString("query")
		case kind == batchKindPrepared:
			s.Prepared = true
			s.ID = r.readShortBytes("prepared statement id")
		default:
			// Cassandra's text (BatchMessage.Codec.decode).
			r.fail("Invalid query kind in BATCH messages. Must be 0 or 1 but got %d", int8(kind))
		}
		s.Values, _ = r.readValueList(false)
		m.Statements = append(m.Statements, s)
	}
	var p QueryParameters
	r.readQueryParameters(&p)
	m.Consistency, m.SerialConsistency, m.Timestamp = p.Consistency, p.SerialConsistency, p.Timestamp
	m.Flags = p.Flags & batchFlags
	return r.err()
}
