package engine

import (
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/exec"
	"github.com/partita-db/partita/internal/types"
)

// Consistency is a native protocol consistency level (§3 [consistency]).
type Consistency uint16

// Consistency levels.
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

// Value is a bound value: nil Bytes is null unless Unset is set.
type Value struct {
	Bytes []byte
	Unset bool
}

// Options are the parameters of a QUERY or EXECUTE.
type Options struct {
	Consistency Consistency
	// ClientLevels marks Consistency and SerialConsistency as a client's
	// (a request from the wire), which are then checked as Cassandra
	// checks them (consistency.go); internal callers leave it unset.
	ClientLevels bool
	Values       []Value
	// Names, when set, name each of Values (QUERY flag 0x40).
	Names []string
	// SkipMetadata asks for rows without column metadata (EXECUTE).
	SkipMetadata bool
	// PageSize <= 0 disables paging.
	PageSize          int32
	PagingState       []byte
	SerialConsistency Consistency
	// Timestamp is the client-side default timestamp (microseconds), used
	// when HasTimestamp is set.
	Timestamp    int64
	HasTimestamp bool
}

// BatchType is LOGGED, UNLOGGED or COUNTER.
type BatchType byte

const (
	LoggedBatch   BatchType = 0
	UnloggedBatch BatchType = 1
	CounterBatch  BatchType = 2
)

// BatchStatement is one statement of a BATCH request: a query string or a
// prepared statement id, with its values.
type BatchStatement struct {
	Query  string
	ID     []byte
	Values []Value
	Names  []string
}

// BatchRequest is a BATCH message.
type BatchRequest struct {
	Type              BatchType
	Statements        []BatchStatement
	Consistency       Consistency
	SerialConsistency Consistency
	Timestamp         int64
	HasTimestamp      bool
	// ClientLevels: as Options.ClientLevels.
	ClientLevels bool
}

// ResultKind is the kind of a RESULT message.
type ResultKind int

const (
	ResultVoid ResultKind = iota + 1
	ResultRows
	ResultSetKeyspace
	ResultPrepared
	ResultSchemaChange
)

// Column describes a result column or a bind variable.
type Column struct {
	Keyspace, Table, Name string
	Type                  *types.Type
}

// Result is the protocol-free outcome of a request.
type Result struct {
	Kind ResultKind

	// Rows: Columns describe the cells of each row (nil cell = null).
	// NoMetadata asks the encoder to omit the column specs (skip_metadata).
	Columns     []Column
	Rows        [][][]byte
	PagingState []byte
	NoMetadata  bool

	// SetKeyspace.
	Keyspace string

	// SchemaChange.
	Change *catalog.Change

	// Prepared: the statement id, its bind variables with the indexes of
	// the partition key's bind markers, and the result columns (Columns).
	PreparedID    []byte
	BindVariables []Column
	PKIndexes     []uint16

	// Warnings go back in the response's warnings field.
	Warnings []string

	// read is what a SELECT read, for the statement statistics.
	read *exec.ReadSummary
}
