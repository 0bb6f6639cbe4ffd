package split

import (
	"strconv"
	"time"

	"github.com/partita-db/partita/internal/backend"
)

// Policy decides when partitions split and merge back.
type Policy struct {
	Enabled bool
	// MaxRows and MaxBytes: a physical partition above either is split.
	MaxRows  int64
	MaxBytes int64
	// MergeFraction: a split partition whose whole size falls below this
	// fraction of both thresholds merges back (well apart from the split
	// thresholds, so a partition does not flap).
	MergeFraction float64
	// Window is how long a condition must hold before acting (hysteresis).
	Window time.Duration
	// MaxConcurrent bounds the migrations under way at once.
	MaxConcurrent int
	// ChunkRows is the number of rows one step moves.
	ChunkRows int
	// BytesPerSecond bounds data movement (0: unlimited).
	BytesPerSecond int64
	// Strategy is "auto" (roll-over for append-only partitions, else
	// range), "range" or "hash".
	Strategy string
	// HashSegments is the number of segments of a hash split.
	HashSegments int
}

// DefaultPolicy is the server default, in the seeds' spirit: 100k rows or
// 100 MiB per physical partition.
func DefaultPolicy() Policy {
	return Policy{
		Enabled: true, MaxRows: 100_000, MaxBytes: 100 << 20, MergeFraction: 0.25,
		Window: 10 * time.Second, MaxConcurrent: 2, ChunkRows: 1000, BytesPerSecond: 4 << 20,
		Strategy: "auto", HashSegments: 8,
	}
}

// Extension option names of the per-table override, set with standard DDL:
//
//	ALTER TABLE t WITH extensions = {'partita.split.max_rows': '50000'};
const (
	ExtEnabled  = "partita.split.enabled"
	ExtMaxRows  = "partita.split.max_rows"
	ExtMaxBytes = "partita.split.max_bytes"
	ExtStrategy = "partita.split.strategy"
	ExtSegments = "partita.split.hash_segments"
)

// WithExtensions returns p overridden by a table's extension options.
func (p Policy) WithExtensions(ext map[string][]byte) Policy {
	if v, ok := ext[ExtEnabled]; ok {
		p.Enabled = string(v) == "true"
	}
	if n, err := strconv.ParseInt(string(ext[ExtMaxRows]), 10, 64); err == nil && n > 0 {
		p.MaxRows = n
	}
	if n, err := strconv.ParseInt(string(ext[ExtMaxBytes]), 10, 64); err == nil && n > 0 {
		p.MaxBytes = n
	}
	if v, ok := ext[ExtStrategy]; ok && (string(v) == "range" || string(v) == "hash" || string(v) == "auto") {
		p.Strategy = string(v)
	}
	if n, err := strconv.Atoi(string(ext[ExtSegments])); err == nil && n > 1 {
		p.HashSegments = n
	}
	return p
}

// PolicyFunc gives the policy of a table (the server default overridden by
// the table's options).
type PolicyFunc func(backend.TableID) Policy
