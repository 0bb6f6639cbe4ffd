package protocol

import "github.com/partita-db/partita/internal/cqlerr"

// ErrorMessage is ERROR (§4.2.1): an [int] code, a [string] message and
// the extra body §9 defines for the code, all taken from Err. A nil Err is
// sent as a Server error with an empty message.
type ErrorMessage struct {
	Err *cqlerr.Error
}

// NewErrorMessage returns the ERROR message for any error, converting one
// that is not a *cqlerr.Error into a Server error (cqlerr invariant 2).
func NewErrorMessage(err error) *ErrorMessage { return &ErrorMessage{Err: cqlerr.As(err)} }

func (*ErrorMessage) Opcode() Opcode { return OpError }
func (*ErrorMessage) isResponse()    {}

// Encode appends code, message and the code's extra fields (§9).
func (m *ErrorMessage) Encode(dst []byte) []byte {
	e := m.Err
	if e == nil {
		e = &cqlerr.Error{Code: cqlerr.ServerError}
	}
	dst = appendInt(dst, int32(e.Code))
	dst = appendString(dst, e.Message)
	switch e.Code {
	case cqlerr.Unavailable:
		dst = appendShort(dst, e.Consistency)
		dst = appendInt(dst, e.Required)
		dst = appendInt(dst, e.Alive)
	case cqlerr.WriteTimeout, cqlerr.ReadTimeout, cqlerr.ReadFailure, cqlerr.WriteFailure:
		dst = appendShort(dst, e.Consistency)
		dst = appendInt(dst, e.Received)
		dst = appendInt(dst, e.BlockFor)
		if e.Code == cqlerr.ReadFailure || e.Code == cqlerr.WriteFailure {
			dst = appendInt(dst, e.NumFailures)
		}
		if e.Code == cqlerr.WriteTimeout || e.Code == cqlerr.WriteFailure {
			dst = appendString(dst, e.WriteType)
		} else {
			dst = append(dst, boolByte(e.DataPresent))
		}
	case cqlerr.FunctionFailure:
		dst = appendString(dst, e.Keyspace)
		dst = appendString(dst, e.Function)
		dst = appendStringList(dst, e.ArgTypes)
	case cqlerr.AlreadyExists:
		dst = appendString(dst, e.Keyspace)
		dst = appendString(dst, e.Table)
	case cqlerr.Unprepared:
		dst = appendShortBytes(dst, e.UnpreparedID)
	}
	return dst
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// Decode reads code, message and the code's extra fields (§9).
func (m *ErrorMessage) Decode(body []byte) error {
	r := newReader(body)
	e := &cqlerr.Error{Code: cqlerr.Code(r.readInt("error code"))}
	e.Message = r.readString("error message")
	switch e.Code {
	case cqlerr.Unavailable:
		e.Consistency = r.readShort("consistency")
		e.Required = r.readInt("required")
		e.Alive = r.readInt("alive")
	case cqlerr.WriteTimeout, cqlerr.ReadTimeout, cqlerr.ReadFailure, cqlerr.WriteFailure:
		e.Consistency = r.readShort("consistency")
		e.Received = r.readInt("received")
		e.BlockFor = r.readInt("blockfor")
		if e.Code == cqlerr.ReadFailure || e.Code == cqlerr.WriteFailure {
			e.NumFailures = r.readInt("numfailures")
		}
		if e.Code == cqlerr.WriteTimeout || e.Code == cqlerr.WriteFailure {
			e.WriteType = r.readString("write type")
		} else {
			e.DataPresent = r.readByte("data present") != 0
		}
	case cqlerr.FunctionFailure:
		e.Keyspace = r.readString("keyspace")
		e.Function = r.readString("function")
		e.ArgTypes = r.readStringList("argument types")
	case cqlerr.AlreadyExists:
		e.Keyspace = r.readString("keyspace")
		e.Table = r.readString("table")
	case cqlerr.Unprepared:
		e.UnpreparedID = r.readShortBytes("prepared statement id")
	}
	m.Err = e
	return r.err()
}
