package backend

import (
	"bytes"
	"math"

	"github.com/partita-db/partita/internal/token"
)

// TableID identifies a table in storage. It is assigned by the catalog and
// never reused, so the data of a dropped table can be removed lazily.
type TableID uint64

// ColumnID identifies a column of a table in storage; stable across renames.
type ColumnID uint32

// Shard numbers a physical partition inside a logical partition.
type Shard uint32

// HomeShard is the shard of every unsplit partition and the home of a split
// partition's static row and partition-level metadata.
const HomeShard Shard = 0

// NoDeletionTime marks a cell or liveness that neither expires nor is a
// tombstone (Cassandra's Cell.NO_DELETION_TIME).
const NoDeletionTime int64 = math.MaxInt64

// NoTimestamp marks an absent liveness or deletion.
const NoTimestamp int64 = math.MinInt64

// LogicalPartition is a partition as CQL sees it.
type LogicalPartition struct {
	Table TableID
	Token token.Token
	// Key is the serialized partition key (token.SerializeKey of its
	// components); Token is token.Of(Key).
	Key []byte
}

// PhysicalPartition is one child of a logical partition.
type PhysicalPartition struct {
	LogicalPartition
	Shard Shard
}

// Physical returns the given shard of p.
func (p LogicalPartition) Physical(s Shard) PhysicalPartition {
	return PhysicalPartition{LogicalPartition: p, Shard: s}
}

// Equal reports whether p and o are the same logical partition.
func (p LogicalPartition) Equal(o LogicalPartition) bool {
	return p.Table == o.Table && p.Token == o.Token && bytes.Equal(p.Key, o.Key)
}

// Compare orders logical partitions as a full scan returns them: by table,
// then token, then key bytes.
func (p LogicalPartition) Compare(o LogicalPartition) int {
	switch {
	case p.Table < o.Table:
		return -1
	case p.Table > o.Table:
		return 1
	case p.Token < o.Token:
		return -1
	case p.Token > o.Token:
		return 1
	}
	return bytes.Compare(p.Key, o.Key)
}

// DeletionTime is a tombstone's timestamp and the local time (seconds since
// the epoch) at which it was written; MarkedForDeleteAt == NoTimestamp means
// live (no deletion).
type DeletionTime struct {
	MarkedForDeleteAt int64
	LocalDeletionTime int64
}

// LiveDeletion is "not deleted".
var LiveDeletion = DeletionTime{MarkedForDeleteAt: NoTimestamp, LocalDeletionTime: NoDeletionTime}

// IsLive reports whether d deletes nothing.
func (d DeletionTime) IsLive() bool { return d.MarkedForDeleteAt == NoTimestamp }

// Deletes reports whether d shadows something written at timestamp ts.
func (d DeletionTime) Deletes(ts int64) bool { return !d.IsLive() && ts <= d.MarkedForDeleteAt }

// Supersedes reports whether d wins over o.
func (d DeletionTime) Supersedes(o DeletionTime) bool {
	return d.MarkedForDeleteAt > o.MarkedForDeleteAt ||
		(d.MarkedForDeleteAt == o.MarkedForDeleteAt && d.LocalDeletionTime > o.LocalDeletionTime)
}

// Max returns the deletion that wins of d and o.
func (d DeletionTime) Max(o DeletionTime) DeletionTime {
	if o.Supersedes(d) {
		return o
	}
	return d
}

// Liveness is a row's primary-key liveness (the row marker INSERT writes).
// Timestamp == NoTimestamp means the row has none (it was only UPDATEd).
type Liveness struct {
	Timestamp int64
	TTL       int32
	// ExpiresAt is the local expiration time in seconds for an expiring
	// liveness, NoDeletionTime otherwise.
	ExpiresAt int64
}

// NoLiveness is an absent row marker.
var NoLiveness = Liveness{Timestamp: NoTimestamp, ExpiresAt: NoDeletionTime}

// IsEmpty reports whether l is absent.
func (l Liveness) IsEmpty() bool { return l.Timestamp == NoTimestamp }

// IsExpiring reports whether l has a TTL.
func (l Liveness) IsExpiring() bool { return l.TTL != 0 }

// IsLive reports whether l keeps its row alive at now (seconds).
func (l Liveness) IsLive(now int64) bool {
	return !l.IsEmpty() && (!l.IsExpiring() || now < l.ExpiresAt)
}

// ExpiredLivenessTTL is the TTL of an expired row marker, which only
// materialized views write (LivenessInfo.EXPIRED_LIVENESS_TTL): it kills a
// view row whose key column moved, and wins over a live marker of the same
// timestamp.
const ExpiredLivenessTTL = math.MaxInt32

// ExpiredLiveness is an expired row marker at ts, written at now.
func ExpiredLiveness(ts, now int64) Liveness {
	return Liveness{Timestamp: ts, TTL: ExpiredLivenessTTL, ExpiresAt: now}
}

// IsExpiredMarker reports whether l is an ExpiredLiveness.
func (l Liveness) IsExpiredMarker() bool { return l.TTL == ExpiredLivenessTTL }

// Supersedes is Cassandra's LivenessInfo.supersedes.
func (l Liveness) Supersedes(o Liveness) bool {
	if l.Timestamp != o.Timestamp {
		return l.Timestamp > o.Timestamp
	}
	if l.IsExpiredMarker() != o.IsExpiredMarker() {
		return l.IsExpiredMarker()
	}
	if l.IsExpiring() == o.IsExpiring() {
		return l.ExpiresAt > o.ExpiresAt
	}
	return l.IsExpiring()
}

// Cell is one value of a row with its write metadata. A regular cell has
// TTL 0 and LocalDeletionTime NoDeletionTime; an expiring cell has TTL > 0
// and LocalDeletionTime = its expiration time; a tombstone has TTL 0, a
// LocalDeletionTime and no value. This mirrors Cassandra's Cell.
type Cell struct {
	Column ColumnID
	// Path addresses an element of a multi-cell column (list element id, set
	// element, map key, UDT field); nil for simple columns.
	Path              []byte
	Value             []byte
	Timestamp         int64
	TTL               int32
	LocalDeletionTime int64
}

// IsTombstone reports whether c is a deletion marker.
func (c *Cell) IsTombstone() bool { return c.TTL == 0 && c.LocalDeletionTime != NoDeletionTime }

// IsExpiring reports whether c has a TTL.
func (c *Cell) IsExpiring() bool { return c.TTL != 0 }

// IsLive reports whether c holds a value at now (seconds).
func (c *Cell) IsLive(now int64) bool {
	if c.TTL != 0 {
		return now < c.LocalDeletionTime
	}
	return c.LocalDeletionTime == NoDeletionTime
}

// ComparePosition orders cells within a row: by column, then path.
func ComparePosition(a, b *Cell) int {
	switch {
	case a.Column < b.Column:
		return -1
	case a.Column > b.Column:
		return 1
	}
	return bytes.Compare(a.Path, b.Path)
}

// Reconcile returns the winning version of two cells at the same position
// (invariant 1; Cassandra's Cells.resolveRegular).
func Reconcile(a, b *Cell) *Cell {
	if a.Timestamp != b.Timestamp {
		if a.Timestamp > b.Timestamp {
			return a
		}
		return b
	}
	aDel, bDel := a.LocalDeletionTime != NoDeletionTime, b.LocalDeletionTime != NoDeletionTime
	if aDel || bDel {
		if aDel != bDel {
			if aDel {
				return a
			}
			return b
		}
		aTomb, bTomb := a.TTL == 0, b.TTL == 0
		if aTomb != bTomb {
			if aTomb {
				return a
			}
			return b
		}
		if a.LocalDeletionTime != b.LocalDeletionTime {
			if a.LocalDeletionTime > b.LocalDeletionTime {
				return a
			}
			return b
		}
	}
	if bytes.Compare(a.Value, b.Value) >= 0 {
		return a
	}
	return b
}

// ComplexDeletion deletes every element of a multi-cell column written at
// or before its timestamp (a whole-collection overwrite or delete).
type ComplexDeletion struct {
	Column   ColumnID
	Deletion DeletionTime
}

// Row is a clustering row (or the static row) as written or as read.
// Cells are sorted by (Column, Path) with at most one cell per position.
type Row struct {
	// Clustering is the encoded clustering key; nil for the static row.
	Clustering       []byte
	Liveness         Liveness
	Deletion         DeletionTime
	Cells            []Cell
	ComplexDeletions []ComplexDeletion // sorted by Column
}

// NewRow returns an empty row at clustering.
func NewRow(clustering []byte) Row {
	return Row{Clustering: clustering, Liveness: NoLiveness, Deletion: LiveDeletion}
}

// HasLiveData reports whether r is visible at now (invariant 3).
func (r *Row) HasLiveData(now int64) bool {
	if r.Liveness.IsLive(now) {
		return true
	}
	for i := range r.Cells {
		if r.Cells[i].IsLive(now) {
			return true
		}
	}
	return false
}

// Slice is a half-open interval [Start, End) of encoded clustering keys.
// Any CQL bound maps onto an exact position of that key space: an inclusive
// start at prefix p is p, an exclusive start is PrefixSuccessor(p), an
// inclusive end is PrefixSuccessor(p) and an exclusive end is p. End == nil
// means unbounded above; Start == nil means unbounded below.
type Slice struct {
	Start, End []byte
}

// FullSlice selects every row of a partition.
var FullSlice = Slice{}

// Contains reports whether clustering key k is inside s.
func (s Slice) Contains(k []byte) bool {
	return bytes.Compare(k, s.Start) >= 0 && (s.End == nil || bytes.Compare(k, s.End) < 0)
}

// IsEmpty reports whether no key can be inside s.
func (s Slice) IsEmpty() bool { return s.End != nil && bytes.Compare(s.Start, s.End) >= 0 }

// Intersect returns the keys in both s and o.
func (s Slice) Intersect(o Slice) Slice {
	out := s
	if bytes.Compare(o.Start, out.Start) > 0 {
		out.Start = o.Start
	}
	if o.End != nil && (out.End == nil || bytes.Compare(o.End, out.End) < 0) {
		out.End = o.End
	}
	return out
}

// PrefixSlice is the slice of every key that starts with prefix (all keys
// for an empty prefix).
func PrefixSlice(prefix []byte) Slice {
	if len(prefix) == 0 {
		return FullSlice
	}
	return Slice{Start: prefix, End: PrefixSuccessor(prefix)}
}

// PrefixSuccessor returns the smallest byte string greater than every
// string that has p as a prefix, or nil if there is none (p is all 0xFF).
func PrefixSuccessor(p []byte) []byte {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] != 0xFF {
			out := append([]byte(nil), p[:i+1]...)
			out[i]++
			return out
		}
	}
	return nil
}

// RangeTombstone deletes every row whose clustering falls in Slice and was
// written at or before Deletion.
type RangeTombstone struct {
	Slice    Slice
	Deletion DeletionTime
}

// Mutation is everything one write does to one physical partition.
type Mutation struct {
	Partition         PhysicalPartition
	PartitionDeletion DeletionTime
	RangeTombstones   []RangeTombstone
	Static            *Row
	Rows              []Row
}

// NewMutation returns an empty mutation of p.
func NewMutation(p PhysicalPartition) Mutation {
	return Mutation{Partition: p, PartitionDeletion: LiveDeletion}
}

// MetaWrite sets (Value != nil) or deletes (Value == nil) a metadata key.
type MetaWrite struct {
	Key, Value []byte
}

// WriteBatch is applied atomically and durably (invariant 5).
type WriteBatch struct {
	Mutations []Mutation
	Meta      []MetaWrite
	// DropTables removes every row of these tables (DROP TABLE, TRUNCATE).
	DropTables []TableID
}
