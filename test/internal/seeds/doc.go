// Package seeds holds the gocql scenarios of the seed documents, the
// product's minimum acceptance set: their tables and queries as written
// (seed 000's notes_by_user, key forms and time buckets; seed 001's
// iot_data_error and iot_data_optimized; seed 003's events_by_asset_day,
// its sharded table, split metadata and client-side fan-out read; seed
// 004's user_events_by_day and its sibling tables, the §7 queries that
// succeed and fail, logged batches, tuple cursors, IN on partition key
// parts).
//
// Each scenario runs against a cqltest.Target: test/e2e runs them, one Go
// test each (TestSeed000NotesByUser, ...), against its in-process node;
// test/clusterstore TestSeedsThroughGateway runs All as subtests through
// one `partita serve --backend cassandra` process over Apache Cassandra.
//
// Invariants:
//  1. A scenario works in keyspaces of its own (a seed's tests that share
//     tables share their keyspace through Target.SharedKeyspace and write
//     keys of their own), so scenarios may run in any order on one target.
//  2. A scenario asserts the same answers on every target: none is
//     weakened for one of them (all pass through the gateway as they do
//     on a single node).
package seeds

import (
	"testing"

	"github.com/partita-db/partita/test/internal/cqltest"
)

// Scenario is one test of the seed documents.
type Scenario struct {
	// Name is the test's name without its "Test" prefix.
	Name string
	Run  func(*testing.T, *cqltest.Target)
}

// All lists every scenario, in the order of the seed documents.
var All = []Scenario{
	{"Seed000NotesByUser", Seed000NotesByUser},
	{"Seed000KeyForms", Seed000KeyForms},
	{"Seed000TimeBuckets", Seed000TimeBuckets},
	{"Seed001IoT", Seed001IoT},
	{"Seed003EventsByAssetDay", Seed003EventsByAssetDay},
	{"Seed003SplitMetadata", Seed003SplitMetadata},
	{"Seed003ReadPath", Seed003ReadPath},
	{"Seed003ReadPathUnsplit", Seed003ReadPathUnsplit},
	{"Seed004NowAndLiteralTimeUUID", Seed004NowAndLiteralTimeUUID},
	{"Seed004RangeAndLatest", Seed004RangeAndLatest},
	{"Seed004SkippedClusteringColumn", Seed004SkippedClusteringColumn},
	{"Seed004NoPartitionKey", Seed004NoPartitionKey},
	{"Seed004LoginEventsByDay", Seed004LoginEventsByDay},
	{"Seed004HourBuckets", Seed004HourBuckets},
	{"Seed004RoomEvents16Buckets", Seed004RoomEvents16Buckets},
	{"Seed004Orders", Seed004Orders},
	{"Seed004LoggedBatch", Seed004LoggedBatch},
	{"Seed004LoggedBatchAsPreparedText", Seed004LoggedBatchAsPreparedText},
	{"Seed004TupleCursorPaging", Seed004TupleCursorPaging},
	{"Seed004TupleRelationOnMixedOrder", Seed004TupleRelationOnMixedOrder},
	{"Seed004InOnPartitionKeyParts", Seed004InOnPartitionKeyParts},
}
