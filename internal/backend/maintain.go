package backend

import (
	"context"
	"time"
)

// Maintainer is an optional capability of a Backend: purging tombstones
// and expired cells once they are older than their table's gc_grace_seconds.
type Maintainer interface {
	// SetGCGrace installs the per-table grace lookup; ok false means the
	// table no longer exists and its data may be removed.
	SetGCGrace(f func(TableID) (seconds int64, ok bool))
	// CollectGarbageStep does a bounded amount of collection and reports
	// whether a full pass over the data just ended.
	CollectGarbageStep(ctx context.Context, now time.Time, maxPartitions int) (passDone bool, err error)
}
