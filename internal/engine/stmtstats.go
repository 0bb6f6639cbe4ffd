package engine

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/partita-db/partita/internal/cql/parser"
	"github.com/partita-db/partita/internal/exec"
	"github.com/partita-db/partita/internal/systables"
)

// maxStatementStats bounds the statements whose statistics are kept; when
// full, the least used half of those not seen for a minute is dropped.
const maxStatementStats = 2000

// statementStats keeps, per normalized statement (parser.Normalize) and
// keyspace, how often it ran, how often it failed, its latency
// distribution and what it read: system_partita.statements and the
// statement metrics on /metrics.
type statementStats struct {
	mu      sync.RWMutex
	entries map[stmtKey]*stmtEntry

	// normalized caches the key of QUERY texts seen recently, so that a
	// text sent again is not lexed again (cleared when full).
	normMu     sync.RWMutex
	normalized map[string]string
}

// maxNormalizedCache bounds the cache of normalized QUERY texts.
const maxNormalizedCache = 4096

type stmtKey struct{ keyspace, statement string }

type stmtEntry struct {
	kind                                  string
	count, errors                         atomic.Int64
	rowsRead, rowsReturned, partitions    atomic.Int64
	tombstones, totalMicros               atomic.Int64
	ranges, indexed, filtered, lastSeenNs atomic.Int64
	// latency counts requests by duration: bucket b holds those of
	// [2^(b/4), 2^((b+1)/4)) µs, four buckets per doubling.
	latency [latencyBuckets]atomic.Int64
}

const latencyBuckets = 4 * 36 // up to 2^36 µs, 19 hours

func newStatementStats() *statementStats {
	return &statementStats{entries: map[stmtKey]*stmtEntry{}, normalized: map[string]string{}}
}

// latencyBucket is the bucket of a duration in µs.
func latencyBucket(us int64) int {
	if us < 1 {
		return 0
	}
	// 4·log2(us), from the leading bit and the next two bits.
	lead := 63 - bits.LeadingZeros64(uint64(us))
	frac := 0
	if lead >= 2 {
		frac = int(uint64(us)>>(lead-2)) & 3
	} else if lead == 1 {
		frac = int(uint64(us)&1) * 2
	}
	return min(4*lead+frac, latencyBuckets-1)
}

// bucketUpper is the upper bound of a bucket in µs.
func bucketUpper(b int) float64 {
	lead, frac := b/4, b%4
	return math.Ldexp(1+float64(frac+1)/4, lead)
}

// record notes one run of a statement. read is nil for statements that
// are not SELECTs.
func (s *statementStats) record(keyspace, statement, kind string, d time.Duration, failed bool, returned int, read *exec.ReadSummary) {
	k := stmtKey{keyspace, statement}
	s.mu.RLock()
	e := s.entries[k]
	s.mu.RUnlock()
	if e == nil {
		s.mu.Lock()
		if e = s.entries[k]; e == nil {
			if len(s.entries) >= maxStatementStats {
				s.evictLocked()
			}
			e = &stmtEntry{kind: kind}
			s.entries[k] = e
		}
		s.mu.Unlock()
	}
	us := d.Microseconds()
	e.count.Add(1)
	e.totalMicros.Add(us)
	e.latency[latencyBucket(us)].Add(1)
	if now := time.Now().UnixNano(); now-e.lastSeenNs.Load() > int64(time.Second) {
		e.lastSeenNs.Store(now) // to the second: a hot statement's line is not written every run
	}
	if failed {
		e.errors.Add(1)
		return
	}
	if returned > 0 {
		e.rowsReturned.Add(int64(returned))
	}
	if read != nil {
		e.rowsRead.Add(read.Rows)
		e.partitions.Add(read.Partitions)
		e.tombstones.Add(read.Tombstones)
		if read.Range {
			e.ranges.Add(1)
		}
		if read.Index {
			e.indexed.Add(1)
		}
		if read.Filtering {
			e.filtered.Add(1)
		}
	}
}

// evictLocked drops the less used half of the entries idle for a minute
// (all idle ones when fewer), or the less used half of all.
func (s *statementStats) evictLocked() {
	cutoff := time.Now().Add(-time.Minute).UnixNano()
	var idle []stmtKey
	for k, e := range s.entries {
		if e.lastSeenNs.Load() < cutoff {
			idle = append(idle, k)
		}
	}
	if len(idle) == 0 {
		for k := range s.entries {
			idle = append(idle, k)
		}
	}
	slices.SortFunc(idle, func(a, b stmtKey) int { return cmp.Compare(s.entries[a].count.Load(), s.entries[b].count.Load()) })
	for _, k := range idle[:max(len(idle)/2, 1)] {
		delete(s.entries, k)
	}
}

// snapshot lists the statements, most run first.
func (s *statementStats) snapshot() []systables.StatementInfo {
	s.mu.RLock()
	out := make([]systables.StatementInfo, 0, len(s.entries))
	for k, e := range s.entries {
		st := systables.StatementInfo{Keyspace: k.keyspace, Statement: k.statement, Kind: e.kind,
			Count: e.count.Load(), Errors: e.errors.Load(), RowsRead: e.rowsRead.Load(),
			RowsReturned: e.rowsReturned.Load(), Partitions: e.partitions.Load(), Tombstones: e.tombstones.Load(),
			RangeScans: e.ranges.Load(), IndexReads: e.indexed.Load(), Filtered: e.filtered.Load(),
			LastSeen: e.lastSeenNs.Load() / 1e6}
		if st.Count > 0 {
			st.MeanMicros = e.totalMicros.Load() / st.Count
		}
		var hist [latencyBuckets]int64
		var n int64
		for i := range hist {
			hist[i] = e.latency[i].Load()
			n += hist[i]
		}
		st.P50Micros, st.P99Micros, st.MaxMicros = quantile(hist[:], n, 0.5), quantile(hist[:], n, 0.99), quantile(hist[:], n, 1)
		out = append(out, st)
	}
	s.mu.RUnlock()
	slices.SortFunc(out, func(a, b systables.StatementInfo) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Keyspace, b.Keyspace), cmp.Compare(a.Statement, b.Statement))
	})
	return out
}

// quantile is the upper bound of the bucket holding the q-th request.
func quantile(hist []int64, n int64, q float64) int64 {
	if n == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(n)))
	var seen int64
	for b, c := range hist {
		if seen += c; seen >= max(rank, 1) {
			return int64(math.Ceil(bucketUpper(b)))
		}
	}
	return int64(bucketUpper(len(hist) - 1))
}

// Statements lists the statement statistics, most run first
// (system_partita.statements).
func (e *Engine) Statements() []systables.StatementInfo { return e.stmtStats.snapshot() }

// normalizedStatement is the statistics key of a statement's text.
func normalizedStatement(query string) string { return normalizedLimit(parser.Normalize(query)) }

// normalizedLimit cuts a statistics key at 1,000 bytes.
func normalizedLimit(n string) string {
	if len(n) > 1000 {
		n = n[:1000] + "..."
	}
	return n
}

// recordRun is deferred by Query and Execute: it records the statement's
// run once it returned. normalized is the prepared statement's key, or ""
// to normalize query.
func (s *statementStats) recordRun(keyspace, query, normalized string, start time.Time, res **Result, err *error) {
	d := time.Since(start)
	if normalized == "" {
		normalized = s.normalize(query)
	}
	kind := normalized
	if i := strings.IndexByte(kind, ' '); i > 0 {
		kind = kind[:i]
	}
	returned := 0
	var read *exec.ReadSummary
	if r := *res; r != nil {
		returned, read = len(r.Rows), r.read
	}
	s.record(keyspace, normalized, kind, d, *err != nil, returned, read)
}

// batchStatement is a BATCH message's statistics key: its type and its
// distinct statements, normalized, in the order they first appear.
func (e *Engine) batchStatement(b *BatchRequest) string {
	var parts []string
	seen := map[string]bool{}
	for _, st := range b.Statements {
		n := "?"
		if st.ID != nil {
			if ps := e.prepared.get(st.ID); ps != nil {
				n = ps.normalized
			}
		} else {
			n = normalizedStatement(st.Query)
		}
		if !seen[n] {
			seen[n] = true
			parts = append(parts, n)
		}
	}
	kind := map[BatchType]string{LoggedBatch: "LOGGED", UnloggedBatch: "UNLOGGED", CounterBatch: "COUNTER"}[b.Type]
	return normalizedLimit("BATCH " + kind + ": " + strings.Join(parts, "; "))
}

// normalize is normalizedStatement through the cache of recent texts.
func (s *statementStats) normalize(query string) string {
	s.normMu.RLock()
	n, ok := s.normalized[query]
	s.normMu.RUnlock()
	if ok {
		return n
	}
	n = normalizedStatement(query)
	if len(query) <= 4096 {
		s.normMu.Lock()
		if len(s.normalized) >= maxNormalizedCache {
			clear(s.normalized)
		}
		s.normalized[query] = n
		s.normMu.Unlock()
	}
	return n
}
