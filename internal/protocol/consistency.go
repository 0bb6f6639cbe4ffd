package protocol

import "fmt"

// Consistency is a [consistency] level (§3).
type Consistency uint16

// Consistency levels (§3).
const (
	Any         Consistency = 0x0000
	One         Consistency = 0x0001
	Two         Consistency = 0x0002
	Three       Consistency = 0x0003
	Quorum      Consistency = 0x0004
	All         Consistency = 0x0005
	LocalQuorum Consistency = 0x0006
	EachQuorum  Consistency = 0x0007
	Serial      Consistency = 0x0008
	LocalSerial Consistency = 0x0009
	LocalOne    Consistency = 0x000A
)

var consistencyNames = [...]string{
	Any: "ANY", One: "ONE", Two: "TWO", Three: "THREE", Quorum: "QUORUM", All: "ALL",
	LocalQuorum: "LOCAL_QUORUM", EachQuorum: "EACH_QUORUM", Serial: "SERIAL",
	LocalSerial: "LOCAL_SERIAL", LocalOne: "LOCAL_ONE",
}

// String returns the level's CQL name, e.g. "LOCAL_QUORUM".
func (c Consistency) String() string {
	if c.valid() {
		return consistencyNames[c]
	}
	return fmt.Sprintf("Consistency(%d)", uint16(c))
}

func (c Consistency) valid() bool { return int(c) < len(consistencyNames) }

// IsSerial reports whether c is SERIAL or LOCAL_SERIAL, the only levels
// valid for the serial phase of a conditional update (§4.1.4 flag 0x10).
func (c Consistency) IsSerial() bool { return c == Serial || c == LocalSerial }
