// Package advisor turns what a node knows about its tables — the schema,
// the measured size, rows, writes and tombstones of the partitions it
// tracks, and the range of time their clustering keys span — into the
// data-modeling checklist of the Cassandra guidance Partita follows:
// partitions under ~100 MB and ~100k rows, a time bucket in the partition
// key of anything that grows with time, no history overwritten by a key
// without a clustering column, no write hot spot on one partition, even
// load over the token ring, few tombstones per read.
//
// Each finding names the table and the worst partitions with the numbers
// that show the problem, and a concrete fix: the bucket size derived from
// the measured growth rate, the query table written out as CREATE TABLE,
// or the split policy that would handle the partition. The package is
// pure: the engine gathers the Input (engine/advise.go), `partita advise`
// prints the Report as text or JSON.
package advisor
