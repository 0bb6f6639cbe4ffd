package advisor

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"
)

// Input is what the node knows, gathered by the engine.
type Input struct {
	Now    time.Time
	Limits Limits
	Tables []Table
}

// Limits are the sizes the guidance keeps a partition under, and the
// tombstone count above which a read warns (tombstone_warn_threshold).
type Limits struct {
	MaxRows, MaxBytes, TombstoneWarn int64
}

// Column is one column of a table, with its CQL type as written in DDL.
type Column struct {
	Name, Type string
	Desc       bool // a clustering column in descending order
}

// Table is one table with the partitions the node tracks.
type Table struct {
	Keyspace, Name                    string
	PartitionKey, Clustering, Regular []Column
	DefaultTTL                        int32
	// Split is the table's split policy: whether Partita splits its
	// oversized partitions by itself, and above what.
	Split      SplitPolicy
	Partitions []Partition
	// Statements are the reads of this table that scanned or filtered.
	Statements []Statement
}

// Statement is one normalized statement's read figures since the node
// started (system_partita.statements) with the columns its WHERE clause
// restricts by equality and by range.
type Statement struct {
	Text                          string
	Count, RowsRead, RowsReturned int64
	RangeScans, Filtered          int64
	EqualityColumns, RangeColumns []string
}

// SplitPolicy is the part of the split policy a finding refers to.
type SplitPolicy struct {
	Enabled           bool
	MaxRows, MaxBytes int64
}

// Partition is one tracked partition's figures. Counts of writes cover the
// writes since the node started; Rows and Bytes are measured when Measured.
type Partition struct {
	Key   string // its partition key as CQL literals
	Token int64
	Rows  int64
	Bytes int64
	// Measured: Rows and Bytes were counted, not estimated from writes.
	Measured                              bool
	RowsWritten, BytesWritten, Tombstones int64
	FirstWrite, LastWrite                 time.Time
	// Ascending, Descending and Interior count written rows by where
	// their clustering key fell: above every key seen, below every key
	// seen, or in between (an append-only partition has no Interior).
	Ascending, Descending, Interior int64
	// SpanStart and SpanEnd are the times the first clustering column
	// spans, when it is a timestamp, timeuuid or date (zero otherwise).
	SpanStart, SpanEnd time.Time
	Children           int // physical partitions of a split partition; 0 when not split
}

// Report is the advisor's answer.
type Report struct {
	GeneratedAt time.Time      `json:"generated_at"`
	Limits      Limits         `json:"limits"`
	Tables      []TableSummary `json:"tables"`
	Findings    []Finding      `json:"findings"`
}

// TableSummary describes the distribution of one table's partitions.
type TableSummary struct {
	Keyspace   string `json:"keyspace"`
	Table      string `json:"table"`
	Partitions int    `json:"partitions_tracked"`
	// Rows, bytes and tombstones per partition.
	Rows       Dist        `json:"rows_per_partition"`
	Bytes      Dist        `json:"bytes_per_partition"`
	Tombstones Dist        `json:"tombstones_per_partition"`
	Largest    string      `json:"largest_partition,omitempty"`
	Imbalance  []Imbalance `json:"token_imbalance,omitempty"`
}

// Dist is a distribution over the tracked partitions.
type Dist struct {
	P50 int64 `json:"p50"`
	P99 int64 `json:"p99"`
	Max int64 `json:"max"`
}

// Imbalance is the simulated load of the busiest node of an N-node
// cluster over the mean node (num_tokens 16, replication factor 3).
type Imbalance struct {
	Nodes int `json:"nodes"`
	// Bytes: the busiest node's share of the data over the mean's;
	// Partitions: the same by partition count, the ring's own unevenness.
	Bytes      float64 `json:"bytes_max_over_mean"`
	Partitions float64 `json:"partitions_max_over_mean"`
}

// Severity orders findings.
type Severity string

const (
	Critical Severity = "critical" // already past a limit
	Warning  Severity = "warning"  // on its way there, or costing reads now
	Info     Severity = "info"     // handled, or worth knowing
)

// Finding is one problem with its evidence and fix.
type Finding struct {
	Severity Severity `json:"severity"`
	// Check names the rule: overwrite, unbounded-growth, large-partition,
	// hot-partition, tombstones, token-imbalance.
	Check    string   `json:"check"`
	Keyspace string   `json:"keyspace"`
	Table    string   `json:"table"`
	Worst    []string `json:"worst_partitions,omitempty"`
	Problem  string   `json:"problem"`
	Fix      string   `json:"fix"`
	// FixCQL is the statement the fix writes out (a CREATE TABLE or an
	// ALTER TABLE), when there is one.
	FixCQL string `json:"fix_cql,omitempty"`
	// Effect says which numbers the fix changes and to what.
	Effect string `json:"effect,omitempty"`
}

// Advise runs every check over the input.
func Advise(in Input) Report {
	if in.Limits.MaxRows <= 0 {
		in.Limits.MaxRows = 100_000
	}
	if in.Limits.MaxBytes <= 0 {
		in.Limits.MaxBytes = 100 << 20
	}
	if in.Limits.TombstoneWarn <= 0 {
		in.Limits.TombstoneWarn = 1000
	}
	r := Report{GeneratedAt: in.Now, Limits: in.Limits, Tables: []TableSummary{}, Findings: []Finding{}}
	for i := range in.Tables {
		t := &in.Tables[i]
		r.Tables = append(r.Tables, summarize(t))
		for _, check := range []func(*Table, Limits) *Finding{checkOverwrite, checkUnbounded, checkLarge, checkHot, checkTombstones, checkImbalance} {
			if f := check(t, in.Limits); f != nil {
				f.Keyspace, f.Table = t.Keyspace, t.Name
				r.Findings = append(r.Findings, *f)
			}
		}
		for _, st := range t.Statements {
			if f := checkStatement(t, st); f != nil {
				f.Keyspace, f.Table = t.Keyspace, t.Name
				r.Findings = append(r.Findings, *f)
			}
		}
	}
	rank := map[Severity]int{Critical: 0, Warning: 1, Info: 2}
	slices.SortStableFunc(r.Findings, func(a, b Finding) int { return cmp.Compare(rank[a.Severity], rank[b.Severity]) })
	return r
}

func summarize(t *Table) TableSummary {
	s := TableSummary{Keyspace: t.Keyspace, Table: t.Name, Partitions: len(t.Partitions)}
	pick := func(f func(*Partition) int64) Dist {
		vs := make([]int64, len(t.Partitions))
		for i := range t.Partitions {
			vs[i] = f(&t.Partitions[i])
		}
		return dist(vs)
	}
	s.Rows = pick(func(p *Partition) int64 { return p.Rows })
	s.Bytes = pick(func(p *Partition) int64 { return p.Bytes })
	s.Tombstones = pick(func(p *Partition) int64 { return p.Tombstones })
	if p := largest(t.Partitions); p != nil {
		s.Largest = p.Key
	}
	s.Imbalance = simulateRing(t.Partitions)
	return s
}

func dist(vs []int64) Dist {
	if len(vs) == 0 {
		return Dist{}
	}
	slices.Sort(vs)
	at := func(q float64) int64 { return vs[int(math.Ceil(q*float64(len(vs))))-1] }
	return Dist{P50: at(0.5), P99: at(0.99), Max: vs[len(vs)-1]}
}

func largest(ps []Partition) *Partition {
	var best *Partition
	for i := range ps {
		if best == nil || ps[i].Bytes > best.Bytes {
			best = &ps[i]
		}
	}
	return best
}

// worst names up to five partitions, most extreme first by f.
func worst(ps []Partition, keep func(*Partition) bool, f func(*Partition) float64) []*Partition {
	var out []*Partition
	for i := range ps {
		if keep(&ps[i]) {
			out = append(out, &ps[i])
		}
	}
	slices.SortFunc(out, func(a, b *Partition) int { return cmp.Compare(f(b), f(a)) })
	return out[:min(len(out), 5)]
}

func keys(ps []*Partition) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = "(" + p.Key + ")"
	}
	return out
}

// timeLike reports whether a CQL type carries a point in time.
func timeLike(typ string) bool {
	switch typ {
	case "timestamp", "timeuuid", "date":
		return true
	}
	return false
}

// bucketed reports whether the partition key already carries a time
// bucket: a time-typed column, or one named as buckets usually are.
func bucketed(t *Table) bool {
	for _, c := range t.PartitionKey {
		if timeLike(c.Type) {
			return true
		}
		n := strings.ToLower(c.Name)
		for _, w := range []string{"bucket", "day", "date", "month", "year", "hour", "week", "period", "shard"} {
			if strings.Contains(n, w) {
				return true
			}
		}
	}
	return false
}

// writesPerDay is the rate rows were written to p since the node began
// counting (0 when fewer than two writes were seen).
func writesPerDay(p *Partition) float64 {
	d := p.LastWrite.Sub(p.FirstWrite)
	if p.RowsWritten < 2 || d <= 0 {
		return 0
	}
	return float64(p.RowsWritten) / d.Hours() * 24
}

// growthPerDay is how many rows p gains per day of the time its
// clustering keys span (robust to bulk loads and restarts), or of the
// time it was written in when its clustering keys carry no time.
func growthPerDay(p *Partition) (rows, bytes float64, basis string) {
	if span := p.SpanEnd.Sub(p.SpanStart); span >= time.Minute && p.Rows > 1 {
		days := span.Hours() / 24
		return float64(p.Rows) / days, float64(p.Bytes) / days, "of the time its clustering keys span"
	}
	w := writesPerDay(p)
	if w == 0 {
		return 0, 0, ""
	}
	perRow := 0.0
	if p.RowsWritten > 0 {
		perRow = float64(p.BytesWritten) / float64(p.RowsWritten)
	}
	return w, w * perRow, "of writes seen since the node started"
}
