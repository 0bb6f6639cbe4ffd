package engine

import (
	"net"
	"time"

	"github.com/partita-db/partita/internal/auth"
	"github.com/partita-db/partita/internal/split"
)

// Config is what the engine needs to know of the node it runs on and the
// limits it enforces. Names follow cassandra.yaml where one exists.
type Config struct {
	ClusterName string
	DataCenter  string
	Rack        string
	// RPCAddress is the address clients dial (system.local.rpc_address);
	// ListenAddress is the node's own address.
	RPCAddress    net.IP
	ListenAddress net.IP
	NativePort    int
	// Tokens are the node's ring tokens (system.local.tokens).
	Tokens []int64

	TombstoneWarnThreshold            int
	TombstoneFailureThreshold         int
	BatchSizeWarnThresholdBytes       int
	BatchSizeFailThresholdBytes       int
	UnloggedBatchAcrossPartitionsWarn int
	// MaxPageBytes bounds the bytes of one result page.
	MaxPageBytes int
	// PreparedCacheSize bounds the number of prepared statements kept, and
	// PreparedCacheBytes their estimated memory (prepared_statements_cache_size;
	// Cassandra's default is max(10 MiB, heap/256), Partita's a fixed
	// DefaultPreparedCacheBytes). A statement larger than the whole cache
	// is refused, as in Cassandra.
	PreparedCacheSize  int
	PreparedCacheBytes int64
	// Split is the server-wide partition split policy; SplitTick is how
	// often the detector and the data movement run (0: never in the
	// background).
	Split     split.Policy
	SplitTick time.Duration
	// GCInterval is how often garbage collection visits the next
	// GCPartitionsPerStep partitions (0: never).
	GCInterval          time.Duration
	GCPartitionsPerStep int
	// TraceProbability is the fraction of requests traced without the
	// client asking (nodetool settraceprobability); 0 traces none.
	// Completed sessions are kept in memory, at most TraceMaxSessions of
	// them in about TraceMaxBytes, each for TraceTTL (trace.go).
	TraceProbability float64
	TraceMaxSessions int
	TraceMaxBytes    int
	TraceTTL         time.Duration
	// MaterializedViewsEnabled and UserDefinedFunctionsEnabled are
	// cassandra.yaml's materialized_views_enabled and
	// user_defined_functions_enabled (both off by default, as in
	// Cassandra 5.0).
	MaterializedViewsEnabled    bool
	UserDefinedFunctionsEnabled bool
	// Auth configures authentication and the role manager (the
	// authenticator option; the default superuser's password).
	Auth auth.Options
	// Timeouts are the request timeouts (timeout.go), Guardrails
	// Cassandra's guardrails (guardrails.go), and the partition write-rate
	// thresholds, writes per second to one logical partition, -1 off
	// (writerate.go).
	Timeouts                        Timeouts
	Guardrails                      Guardrails
	PartitionWriteRateWarnThreshold int64
	PartitionWriteRateFailThreshold int64
}

// DefaultPreparedCacheBytes is the default of Config.PreparedCacheBytes.
const DefaultPreparedCacheBytes = 64 << 20

// DefaultConfig returns Cassandra's defaults for one node.
func DefaultConfig() Config {
	return Config{
		ClusterName:                       "Partita Cluster",
		DataCenter:                        "datacenter1",
		Rack:                              "rack1",
		RPCAddress:                        net.IPv4(127, 0, 0, 1),
		ListenAddress:                     net.IPv4(127, 0, 0, 1),
		NativePort:                        9042,
		TombstoneWarnThreshold:            1000,
		TombstoneFailureThreshold:         100000,
		BatchSizeWarnThresholdBytes:       5 << 10,
		BatchSizeFailThresholdBytes:       50 << 10,
		UnloggedBatchAcrossPartitionsWarn: 10,
		MaxPageBytes:                      8 << 20,
		PreparedCacheSize:                 10000,
		PreparedCacheBytes:                DefaultPreparedCacheBytes,
		Split:                             split.DefaultPolicy(),
		SplitTick:                         time.Second,
		GCInterval:                        10 * time.Second,
		GCPartitionsPerStep:               2000,
		TraceMaxSessions:                  1000,
		TraceMaxBytes:                     16 << 20,
		// tracetype_query_ttl: 1d (cassandra.yaml).
		TraceTTL:                        24 * time.Hour,
		Timeouts:                        DefaultTimeouts(),
		Guardrails:                      DefaultGuardrails(),
		PartitionWriteRateWarnThreshold: -1,
		PartitionWriteRateFailThreshold: -1,
	}
}
