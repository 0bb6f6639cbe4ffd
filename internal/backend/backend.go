package backend

import (
	"context"

	"github.com/partita-db/partita/internal/token"
)

// Backend stores physical partitions. Implementations must be safe for
// concurrent use.
type Backend interface {
	// Apply writes a batch atomically and durably (invariant 5).
	Apply(ctx context.Context, b *WriteBatch) error
	// Read returns the live rows of one physical partition inside
	// cmd.Slices, in clustering order or its reverse.
	Read(ctx context.Context, cmd ReadCommand) (RowIterator, error)
	// Scan returns the live rows of every physical partition of a table
	// whose token lies in cmd's range, in token order, then partition key,
	// then shard, then clustering order.
	Scan(ctx context.Context, cmd ScanCommand) (RowIterator, error)
	// GetMeta returns the value of a metadata key, or nil if it is absent.
	GetMeta(ctx context.Context, key []byte) ([]byte, error)
	// ScanMeta returns every metadata key/value whose key starts with prefix,
	// in key order.
	ScanMeta(ctx context.Context, prefix []byte) ([]MetaWrite, error)
	// Close releases the store; pending writes are durable afterwards.
	Close() error
}

// ReadCommand reads one physical partition.
type ReadCommand struct {
	Partition PhysicalPartition
	// Slices are disjoint and sorted in clustering order; empty means none
	// (only the static row, if Static is set). Use []Slice{FullSlice} for all.
	Slices []Slice
	// Reverse returns rows in reverse clustering order.
	Reverse bool
	// Static includes the static row, before any clustering row.
	Static bool
	// Now is the local time in seconds at which TTLs are judged.
	Now int64
}

// TokenBound is one end of a token range.
type TokenBound struct {
	Token     token.Token
	Inclusive bool
	// Key, when set, narrows the bound to a partition key at this token
	// (resume a scan after a given partition).
	Key []byte
}

// ScanCommand reads a range of partitions of a table.
type ScanCommand struct {
	Table TableID
	// Start and End bound the token range; a nil bound is unbounded.
	Start, End *TokenBound
	// After, when set, resumes strictly after this clustering key of the
	// first partition (paging); it applies only to the partition at Start.
	After []byte
	// Static includes each partition's static row.
	Static bool
	Now    int64
}

// RowIterator yields live rows. Rows are valid only until the next call to
// Next.
type RowIterator interface {
	// Next advances to the next row; false at the end or on error.
	Next() bool
	// Row returns the current row; its Clustering is nil for a static row.
	Row() *Row
	// Partition returns the physical partition of the current row.
	Partition() PhysicalPartition
	// SkipPartition makes the next call to Next move to the next physical
	// partition (Scan only).
	SkipPartition()
	// Stats returns what the iteration has read so far.
	Stats() ReadStats
	Err() error
	Close() error
}

// ReadStats counts what a read went through, for tombstone thresholds and
// partition statistics.
type ReadStats struct {
	LiveRows   int64
	Tombstones int64 // cell, row and range tombstones and expired cells met
	Bytes      int64
}
