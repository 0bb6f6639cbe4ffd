package protocol

import "net/netip"

// Topology and status changes (§4.2.6).
const (
	TopologyNewNode     = "NEW_NODE"
	TopologyRemovedNode = "REMOVED_NODE"
	StatusUp            = "UP"
	StatusDown          = "DOWN"
)

// EventStream is the stream id of every EVENT (§2.3, §4.2.6).
const EventStream int16 = -1

// Event is EVENT (§4.2.6), pushed on stream EventStream to connections that
// registered for its type. For TOPOLOGY_CHANGE and STATUS_CHANGE, Change
// and Address are sent; for SCHEMA_CHANGE, Schema.
type Event struct {
	Type    EventType
	Change  string
	Address netip.AddrPort
	Schema  SchemaChange
}

func (*Event) Opcode() Opcode { return OpEvent }
func (*Event) isResponse()    {}

func (m *Event) Encode(dst []byte) []byte {
	dst = appendString(dst, string(m.Type))
	if m.Type == EventSchemaChange {
		return appendSchemaChange(dst, &m.Schema)
	}
	dst = appendString(dst, m.Change)
	return appendInet(dst, m.Address)
}

func (m *Event) Decode(body []byte) error {
	r := newReader(body)
	name := r.readString("event type")
	m.Type = EventType(name)
	switch {
	case r.failed():
	case m.Type == EventSchemaChange:
		r.readSchemaChange(&m.Schema)
	case m.Type.valid():
		m.Change = r.readString("event change")
		m.Address = r.readInet("event address")
	default:
		r.fail("Invalid value '%s' for Type", name)
	}
	return r.err()
}
