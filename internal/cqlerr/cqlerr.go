package cqlerr

import (
	"errors"
	"fmt"
)

// Code is a native protocol error code (native_protocol_v4.spec §9).
type Code int32

// Error codes, native_protocol_v4.spec §9.
const (
	ServerError     Code = 0x0000
	ProtocolError   Code = 0x000A
	BadCredentials  Code = 0x0100
	Unavailable     Code = 0x1000
	Overloaded      Code = 0x1001
	IsBootstrapping Code = 0x1002
	TruncateError   Code = 0x1003
	WriteTimeout    Code = 0x1100
	ReadTimeout     Code = 0x1200
	ReadFailure     Code = 0x1300
	FunctionFailure Code = 0x1400
	WriteFailure    Code = 0x1500
	SyntaxError     Code = 0x2000
	Unauthorized    Code = 0x2100
	Invalid         Code = 0x2200
	ConfigError     Code = 0x2300
	AlreadyExists   Code = 0x2400
	Unprepared      Code = 0x2500
)

var codeNames = map[Code]string{
	ServerError:     "Server",
	ProtocolError:   "Protocol",
	BadCredentials:  "BadCredentials",
	Unavailable:     "Unavailable",
	Overloaded:      "Overloaded",
	IsBootstrapping: "IsBootstrapping",
	TruncateError:   "Truncate",
	WriteTimeout:    "WriteTimeout",
	ReadTimeout:     "ReadTimeout",
	ReadFailure:     "ReadFailure",
	FunctionFailure: "FunctionFailure",
	WriteFailure:    "WriteFailure",
	SyntaxError:     "Syntax",
	Unauthorized:    "Unauthorized",
	Invalid:         "Invalid",
	ConfigError:     "Config",
	AlreadyExists:   "AlreadyExists",
	Unprepared:      "Unprepared",
}

// String names the code the way test output prints it, e.g. "Invalid 0x2200".
func (c Code) String() string {
	name, ok := codeNames[c]
	if !ok {
		name = "Unknown"
	}
	return fmt.Sprintf("%s 0x%04X", name, int32(c))
}

// Error is an error that a client receives as an ERROR message. The fields
// after Message are the code-specific parts of the ERROR body; only those
// that belong to Code are sent.
type Error struct {
	Code    Code
	Message string

	// AlreadyExists: the keyspace and table ("" for a keyspace).
	Keyspace, Table string
	// Unprepared: the statement id the client sent.
	UnpreparedID []byte
	// Unavailable, timeouts and failures.
	Consistency uint16
	Required    int32
	Alive       int32
	Received    int32
	BlockFor    int32
	NumFailures int32
	DataPresent bool
	WriteType   string
	// FunctionFailure.
	Function string
	ArgTypes []string
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// New returns an error with the given code and a formatted message.
func New(code Code, format string, args ...any) *Error {
	if len(args) == 0 {
		return &Error{Code: code, Message: format}
	}
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalidf returns an Invalid (0x2200) error: a request that is well formed
// but cannot be executed.
func Invalidf(format string, args ...any) *Error { return New(Invalid, format, args...) }

// Syntaxf returns a Syntax error (0x2000).
func Syntaxf(format string, args ...any) *Error { return New(SyntaxError, format, args...) }

// Protocolf returns a Protocol error (0x000A); the connection that caused it
// may be closed after it is sent.
func Protocolf(format string, args ...any) *Error { return New(ProtocolError, format, args...) }

// Serverf returns a Server error (0x0000).
func Serverf(format string, args ...any) *Error { return New(ServerError, format, args...) }

// Configf returns a Config error (0x2300).
func Configf(format string, args ...any) *Error { return New(ConfigError, format, args...) }

// NewAlreadyExists returns an AlreadyExists error (0x2400) for a keyspace
// (table == "") or a table.
func NewAlreadyExists(keyspace, table, format string, args ...any) *Error {
	e := New(AlreadyExists, format, args...)
	e.Keyspace, e.Table = keyspace, table
	return e
}

// NewUnprepared returns the Unprepared error (0x2500) for an unknown
// statement id, with Cassandra's message.
func NewUnprepared(id []byte) *Error {
	e := New(Unprepared, "Prepared query with ID %x not found (either the query was not prepared on this host (maybe the host has been restarted?) or you have prepared too many queries and it has been evicted from the internal cache)", id)
	e.UnpreparedID = append([]byte(nil), id...)
	return e
}

// As returns err as a *Error, converting any other error into a Server error
// that keeps its text.
func As(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: ServerError, Message: err.Error()}
}

// CodeOf returns the protocol code err is sent with.
func CodeOf(err error) Code { return As(err).Code }

// Is reports whether err carries the given code.
func Is(err error, code Code) bool { return err != nil && CodeOf(err) == code }

// NewReadTimeout returns a ReadTimeout error (0x1200): received of blockFor
// replicas answered in time, with or without the data, and Cassandra's
// message (exceptions/RequestTimeoutException.java).
func NewReadTimeout(consistency uint16, received, blockFor int32, dataPresent bool) *Error {
	e := New(ReadTimeout, "Operation timed out - received only %d responses.", received)
	e.Consistency, e.Received, e.BlockFor, e.DataPresent = consistency, received, blockFor, dataPresent
	return e
}

// NewWriteTimeout returns a WriteTimeout error (0x1100) of the given write
// type (SIMPLE, BATCH, UNLOGGED_BATCH, COUNTER, BATCH_LOG, CAS, VIEW, CDC).
func NewWriteTimeout(consistency uint16, received, blockFor int32, writeType string) *Error {
	e := New(WriteTimeout, "Operation timed out - received only %d responses.", received)
	e.Consistency, e.Received, e.BlockFor, e.WriteType = consistency, received, blockFor, writeType
	return e
}

// NewOverloaded returns an Overloaded error (0x1001): the node refuses the
// request for now, and a driver may try it on another node.
func NewOverloaded(format string, args ...any) *Error { return New(Overloaded, format, args...) }
