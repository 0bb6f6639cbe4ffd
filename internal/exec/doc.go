// Package exec runs plans: it evaluates terms with the bound values, turns
// modification plans into mutations of logical partitions, and runs
// SELECT plans — partition and slice selection, filtering, limits, paging,
// aggregation — over the split layer (or the system tables).
//
// Invariants:
//  1. One statement execution uses one "now" for TTL expiry and one write
//     timestamp for all of its cells (a batch shares one too, but for a
//     counter batch, whose statements are each stamped above the total
//     they read). A statement that reads before writing chooses its
//     timestamp under its partitions' locks, after the read
//     (Request.lockedTimestamp).
//  2. Paging state is self-contained: the last partition key and clustering
//     key returned, the remaining limits, and a hash of the statement; a
//     page resumes strictly after the last row returned, so no row is
//     lost or repeated even if data changes between pages.
//  3. A row is returned at most once per page and rows of one partition
//     come in clustering order (reversed when the plan says so).
//  4. With GROUP BY, LIMIT, PER PARTITION LIMIT and the page size count
//     groups, and a page holds whole groups: it ends after the last row of
//     its last group, so the next page starts a new group (groupby.go).
package exec
