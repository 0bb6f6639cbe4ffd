package protocol

// ResultKind is the [int] kind that starts a RESULT body (§4.2.5).
type ResultKind int32

// Result kinds (§4.2.5).
const (
	ResultVoid         ResultKind = 0x0001
	ResultRows         ResultKind = 0x0002
	ResultSetKeyspace  ResultKind = 0x0003
	ResultPrepared     ResultKind = 0x0004
	ResultSchemaChange ResultKind = 0x0005
)

// newResult returns an empty RESULT message of the kind body starts with.
func newResult(body []byte) (Response, error) {
	r := newReader(body)
	kind := ResultKind(r.readInt("result kind"))
	if r.failed() {
		return nil, r.err()
	}
	switch kind {
	case ResultVoid:
		return &VoidResult{}, nil
	case ResultRows:
		return &RowsResult{}, nil
	case ResultSetKeyspace:
		return &SetKeyspaceResult{}, nil
	case ResultPrepared:
		return &PreparedResult{}, nil
	case ResultSchemaChange:
		return &SchemaChangeResult{}, nil
	}
	r.fail("Unknown result kind %d", int32(kind))
	return nil, r.err()
}

// readResultKind reads the kind and fails unless it is want.
func (r *reader) readResultKind(want ResultKind) {
	kind := ResultKind(r.readInt("result kind"))
	if !r.failed() && kind != want {
		r.fail("Unexpected result kind %d (expected %d)", int32(kind), int32(want))
	}
}

// VoidResult is the Void RESULT (§4.2.5.1): success with nothing to say.
type VoidResult struct{}

func (*VoidResult) Opcode() Opcode { return OpResult }
func (*VoidResult) isResponse()    {}

func (*VoidResult) Encode(dst []byte) []byte { return appendInt(dst, int32(ResultVoid)) }

func (*VoidResult) Decode(body []byte) error {
	r := newReader(body)
	r.readResultKind(ResultVoid)
	return r.err()
}

// SetKeyspaceResult is the Set_keyspace RESULT (§4.2.5.3), the answer to
// USE. gocql fails a USE answered with any other kind.
type SetKeyspaceResult struct {
	Keyspace string
}

func (*SetKeyspaceResult) Opcode() Opcode { return OpResult }
func (*SetKeyspaceResult) isResponse()    {}

func (m *SetKeyspaceResult) Encode(dst []byte) []byte {
	dst = appendInt(dst, int32(ResultSetKeyspace))
	return appendString(dst, m.Keyspace)
}

func (m *SetKeyspaceResult) Decode(body []byte) error {
	r := newReader(body)
	r.readResultKind(ResultSetKeyspace)
	m.Keyspace = r.readString("keyspace")
	return r.err()
}

// SchemaChangeResult is the Schema_change RESULT (§4.2.5.5): the body of a
// SCHEMA_CHANGE event without the event type.
type SchemaChangeResult struct {
	Change SchemaChange
}

func (*SchemaChangeResult) Opcode() Opcode { return OpResult }
func (*SchemaChangeResult) isResponse()    {}

func (m *SchemaChangeResult) Encode(dst []byte) []byte {
	dst = appendInt(dst, int32(ResultSchemaChange))
	return appendSchemaChange(dst, &m.Change)
}

func (m *SchemaChangeResult) Decode(body []byte) error {
	r := newReader(body)
	r.readResultKind(ResultSchemaChange)
	r.readSchemaChange(&m.Change)
	return r.err()
}
