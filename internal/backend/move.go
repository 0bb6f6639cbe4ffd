package backend

import "context"

// Mover is an optional capability of a Backend (found by type assertion):
// moving data between the physical partitions of one logical partition, as
// a partition split needs.
type Mover interface {
	// Move moves everything stored in cmd.Slice of the From shards — rows
	// with every cell, timestamp, TTL and tombstone, range tombstones clipped
	// to the slice, and the partition deletion — to the shard cmd.Route
	// names for each row, removes it from the sources, and writes cmd.Meta,
	// in one atomic, durable batch. Rows that Route keeps in their own shard
	// stay where they are.
	Move(ctx context.Context, cmd MoveCommand) (MoveStats, error)
	// EstimateSize returns the approximate bytes a physical partition takes
	// on disk; cheap, and precise enough to decide whether to measure.
	EstimateSize(ctx context.Context, p PhysicalPartition) (int64, error)
}

// MoveCommand is one step of a data movement.
type MoveCommand struct {
	Partition LogicalPartition
	From      []Shard
	Slice     Slice
	Route     func(clustering []byte) Shard
	// Targets lists every shard Route may return; each receives the
	// sources' partition deletion.
	Targets []Shard
	Meta    []MetaWrite
}

// MoveStats says what one step moved.
type MoveStats struct {
	Rows  int64
	Bytes int64
}

// Snapshotter is an optional capability of a Backend: reading a consistent
// point-in-time view while writes go on, so a split can verify a large
// partition without stopping its traffic.
type Snapshotter interface {
	// Snapshot returns a view of every physical partition as of now.
	Snapshot(ctx context.Context) (Snapshot, error)
}

// Snapshot reads one point-in-time view; Close releases it.
type Snapshot interface {
	Read(ctx context.Context, cmd ReadCommand) (RowIterator, error)
	Close() error
}
