package protocol

import "strings"

// EventType names a kind of server push (§4.2.6).
type EventType string

// Event types (§4.2.6).
const (
	EventTopologyChange EventType = "TOPOLOGY_CHANGE"
	EventStatusChange   EventType = "STATUS_CHANGE"
	EventSchemaChange   EventType = "SCHEMA_CHANGE"
)

func (t EventType) valid() bool {
	return t == EventTopologyChange || t == EventStatusChange || t == EventSchemaChange
}

// Register is REGISTER (§4.1.8): the event types the connection wants.
// Names are matched case-insensitively and an unknown one is a Protocol
// error, as in Cassandra (CBUtil.readEnumValue).
type Register struct {
	EventTypes []EventType
}

func (*Register) Opcode() Opcode { return OpRegister }
func (*Register) isRequest()     {}

func (m *Register) Encode(dst []byte) []byte {
	l := make([]string, len(m.EventTypes))
	for i, t := range m.EventTypes {
		l[i] = string(t)
	}
	return appendStringList(dst, l)
}

func (m *Register) Decode(body []byte) error {
	r := newReader(body)
	names := r.readStringList("event types")
	if r.failed() {
		return r.err()
	}
	m.EventTypes = make([]EventType, len(names))
	for i, n := range names {
		t := EventType(strings.ToUpper(n))
		if !t.valid() {
			r.fail("Invalid value '%s' for Type", n)
			return r.err()
		}
		m.EventTypes[i] = t
	}
	return nil
}
