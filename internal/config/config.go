package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/server"
)

// CommitlogSyncBatch is the only commitlog_sync mode: every write group is
// fsynced before any write in it is acknowledged (Cassandra's "batch").
// Cassandra's "periodic" and "group" acknowledge before the sync and are
// not offered.
const CommitlogSyncBatch = "batch"

// Config is the node's configuration, with sizes in bytes.
type Config struct {
	// ClusterName is system.local.cluster_name (cluster_name).
	ClusterName string
	// DataDir is the data directory: the first of data_file_directories.
	DataDir string
	// RPCAddress and NativeTransportPort are where the CQL server listens
	// (rpc_address, native_transport_port).
	RPCAddress          string
	NativeTransportPort int
	// MaxFrameSize bounds a request frame (native_transport_max_frame_size).
	MaxFrameSize int
	// Request bytes held at once, node-wide and per client address
	// (native_transport_max_request_data_in_flight, _per_ip).
	MaxRequestDataInFlight      int64
	MaxRequestDataInFlightPerIP int64
	// Connection timeouts: between frames (native_transport_idle_timeout;
	// 0 disables it), from a frame's first byte to its last
	// (native_transport_frame_read_timeout), and for a client that takes
	// none of its replies (native_transport_write_timeout); and the reply
	// bytes queued per connection before it is not read
	// (native_transport_max_queued_reply_bytes). All but the first are
	// Partita's.
	IdleTimeout         time.Duration
	FrameReadTimeout    time.Duration
	WriteTimeout        time.Duration
	MaxQueuedReplyBytes int64
	// Connections served at once, in all and per client address
	// (native_transport_max_concurrent_connections, _per_ip; -1, the
	// default as in Cassandra, or 0 is no limit).
	MaxConcurrentConnections      int
	MaxConcurrentConnectionsPerIP int
	// PreparedStatementsCacheSize bounds the estimated memory of the
	// prepared statements kept (prepared_statements_cache_size).
	PreparedStatementsCacheSize int64
	// Tombstones read by one query before a warning and before failing
	// (tombstone_warn_threshold, tombstone_failure_threshold).
	TombstoneWarnThreshold    int
	TombstoneFailureThreshold int
	// Batch sizes, in bytes of mutation, that warn and that fail
	// (batch_size_warn_threshold, batch_size_fail_threshold).
	BatchSizeWarnThreshold int
	BatchSizeFailThreshold int
	// Partitions an unlogged batch may touch before a warning
	// (unlogged_batch_across_partitions_warn_threshold).
	UnloggedBatchAcrossPartitionsWarnThreshold int

	// HTTPAddress serves /healthz and /metrics; empty disables it
	// (http_address).
	HTTPAddress string
	// AdminToken, when set, is the bearer token every /admin request on
	// the HTTP port must carry; without one /admin answers only loopback
	// clients (admin_token, Partita's; PARTITA_ADMIN_TOKEN overrides it).
	AdminToken string
	// DataCenter and Rack are system.local's data_center and rack.
	DataCenter string
	Rack       string
	// MaxPageBytes bounds the bytes of one result page (max_page_bytes).
	MaxPageBytes int
	// CommitlogSync is always CommitlogSyncBatch (commitlog_sync).
	CommitlogSync string
	// LogLevel is debug, info, warn or error (log_level).
	LogLevel string
	// MaterializedViewsEnabled and UserDefinedFunctionsEnabled are
	// materialized_views_enabled and user_defined_functions_enabled (off
	// by default, as in Cassandra 5.0).
	MaterializedViewsEnabled    bool
	UserDefinedFunctionsEnabled bool
	// Partition splitting (partita only): split_enabled,
	// split_max_partition_rows, split_max_partition_bytes,
	// split_max_concurrent, split_bytes_per_second, split_strategy.
	SplitEnabled           bool
	SplitMaxPartitionRows  int64
	SplitMaxPartitionBytes int64
	SplitMaxConcurrent     int
	SplitBytesPerSecond    int64
	SplitStrategy          string
	// TraceProbability is the fraction of requests traced without the
	// client asking, 0 to 1 (trace_probability, as nodetool
	// settraceprobability sets it in Cassandra).
	TraceProbability float64
	// MinFreeSpacePerDrive is the free space the embedded store keeps on
	// its file system, refusing writes below it (min_free_space_per_drive,
	// Cassandra's 50MiB default; 0 disables the reserve).
	MinFreeSpacePerDrive int64
	// Authenticator is AllowAllAuthenticator (the default: no login) or
	// PasswordAuthenticator (authenticator, as in cassandra.yaml, with or
	// without the org.apache.cassandra.auth package).
	Authenticator string
	// Authorizer is AllowAllAuthorizer (the default) or CassandraAuthorizer
	// (authorizer): statements check the permissions of the role logged in.
	Authorizer string
	// Where the data lives (Partita's own options): Backend is "pebble",
	// the embedded store in DataDir, or "cassandra", a gateway over the
	// cluster at BackendContactPoints (host:port each), keeping its tables
	// in keyspace BackendKeyspace and reading and writing at
	// BackendConsistency, as BackendUsername when the cluster asks for a
	// login (backend, backend_contact_points, backend_keyspace,
	// backend_consistency, backend_username; the password comes from the
	// environment, cmd/partita).
	Backend              string
	BackendContactPoints []string
	BackendKeyspace      string
	BackendConsistency   string
	BackendUsername      string
	// BackendSingleGateway (backend_single_gateway) says this is the only
	// gateway over the keyspace: read-modify-writes take no cluster-wide
	// lease (docs/design/gateway.md).
	BackendSingleGateway bool
	// BackendLease (backend_lease) is the tenure of a read-modify-write's
	// cluster-wide lease, renewed while held; BackendStateLease and
	// BackendStateDrain (backend_state_lease, backend_state_drain) are how
	// long a gateway routes by the split states it read, and how long a
	// request routed so may run past that (docs/design/splitting.md,
	// "Several gateways"). 0 keeps the store's defaults: 3s, 10s, 10s.
	BackendLease      time.Duration
	BackendStateLease time.Duration
	BackendStateDrain time.Duration
	// BackendReplication (backend_replication) is the replication of the
	// keyspace when the gateway creates it, in one of ParseReplication's
	// forms ("": SimpleStrategy with one replica, for a one-node cluster).
	// A keyspace that exists keeps its own.
	BackendReplication string
	// BackendTLS is the encryption of the gateway's connections to the
	// cluster (backend_tls, backend_tls_*; backendtls.go).
	BackendTLS BackendTLS
	// ClientEncryption is client_encryption_options: TLS for CQL clients,
	// with the keystore and truststore as PEM files (tls.go).
	ClientEncryption server.EncryptionOptions
	// Request timeouts, guardrails and the per-partition write-rate
	// thresholds (limits.go).
	Timeouts                        engine.Timeouts
	Guardrails                      engine.Guardrails
	PartitionWriteRateWarnThreshold int64
	PartitionWriteRateFailThreshold int64
}

// Backends: the values of Config.Backend.
const (
	BackendPebble    = "pebble"
	BackendCassandra = "cassandra"
)

// backendConsistencies are the consistency levels a gateway may use for
// its reads and writes (SERIAL levels are for conditions only).
var backendConsistencies = []string{"ANY", "ONE", "TWO", "THREE", "QUORUM", "ALL", "LOCAL_QUORUM", "EACH_QUORUM", "LOCAL_ONE"}

// file is the YAML file's shape. Pointers tell an absent or null option
// (nil: keep the default) from a given one (invariant 3); sizes are read
// as text and parsed by ParseSize.
type file struct {
	ClusterName                                *string         `yaml:"cluster_name"`
	DataFileDirectories                        *[]string       `yaml:"data_file_directories"`
	RPCAddress                                 *string         `yaml:"rpc_address"`
	NativeTransportPort                        *int            `yaml:"native_transport_port"`
	NativeTransportMaxFrameSize                *string         `yaml:"native_transport_max_frame_size"`
	NativeTransportMaxRequestDataInFlight      *string         `yaml:"native_transport_max_request_data_in_flight"`
	NativeTransportMaxRequestDataInFlightPerIP *string         `yaml:"native_transport_max_request_data_in_flight_per_ip"`
	NativeTransportIdleTimeout                 *string         `yaml:"native_transport_idle_timeout"`
	NativeTransportFrameReadTimeout            *string         `yaml:"native_transport_frame_read_timeout"`
	NativeTransportWriteTimeout                *string         `yaml:"native_transport_write_timeout"`
	NativeTransportMaxQueuedReplyBytes         *string         `yaml:"native_transport_max_queued_reply_bytes"`
	NativeTransportMaxConcurrentConnections    *int            `yaml:"native_transport_max_concurrent_connections"`
	NativeTransportMaxConcurrentRequestsBytes  *int64          `yaml:"native_transport_max_concurrent_requests_in_bytes"`
	NativeTransportMaxConcurrentReqBytesPerIP  *int64          `yaml:"native_transport_max_concurrent_requests_in_bytes_per_ip"`
	NativeTransportMaxConcurrentConnsPerIP     *int            `yaml:"native_transport_max_concurrent_connections_per_ip"`
	AdminToken                                 *string         `yaml:"admin_token"`
	PreparedStatementsCacheSize                *string         `yaml:"prepared_statements_cache_size"`
	TombstoneWarnThreshold                     *int            `yaml:"tombstone_warn_threshold"`
	TombstoneFailureThreshold                  *int            `yaml:"tombstone_failure_threshold"`
	BatchSizeWarnThreshold                     *string         `yaml:"batch_size_warn_threshold"`
	BatchSizeFailThreshold                     *string         `yaml:"batch_size_fail_threshold"`
	UnloggedBatchAcrossPartitionsWarnThreshold *int            `yaml:"unlogged_batch_across_partitions_warn_threshold"`
	HTTPAddress                                *string         `yaml:"http_address"`
	DataCenter                                 *string         `yaml:"data_center"`
	Rack                                       *string         `yaml:"rack"`
	MaxPageBytes                               *string         `yaml:"max_page_bytes"`
	CommitlogSync                              *string         `yaml:"commitlog_sync"`
	LogLevel                                   *string         `yaml:"log_level"`
	MaterializedViewsEnabled                   *bool           `yaml:"materialized_views_enabled"`
	UserDefinedFunctionsEnabled                *bool           `yaml:"user_defined_functions_enabled"`
	SplitEnabled                               *bool           `yaml:"split_enabled"`
	SplitMaxPartitionRows                      *int64          `yaml:"split_max_partition_rows"`
	SplitMaxPartitionBytes                     *string         `yaml:"split_max_partition_bytes"`
	SplitMaxConcurrent                         *int            `yaml:"split_max_concurrent"`
	SplitBytesPerSecond                        *string         `yaml:"split_bytes_per_second"`
	SplitStrategy                              *string         `yaml:"split_strategy"`
	Backend                                    *string         `yaml:"backend"`
	BackendContactPoints                       *[]string       `yaml:"backend_contact_points"`
	BackendKeyspace                            *string         `yaml:"backend_keyspace"`
	BackendConsistency                         *string         `yaml:"backend_consistency"`
	BackendUsername                            *string         `yaml:"backend_username"`
	BackendSingleGateway                       *bool           `yaml:"backend_single_gateway"`
	BackendLease                               *string         `yaml:"backend_lease"`
	BackendStateLease                          *string         `yaml:"backend_state_lease"`
	BackendStateDrain                          *string         `yaml:"backend_state_drain"`
	BackendReplication                         *replicaMap     `yaml:"backend_replication"`
	BackendTLS                                 *bool           `yaml:"backend_tls"`
	BackendTLSCAFile                           *string         `yaml:"backend_tls_ca_file"`
	BackendTLSCertFile                         *string         `yaml:"backend_tls_cert_file"`
	BackendTLSKeyFile                          *string         `yaml:"backend_tls_key_file"`
	BackendTLSServerName                       *string         `yaml:"backend_tls_server_name"`
	BackendTLSHostVerification                 *bool           `yaml:"backend_tls_host_verification"`
	TraceProbability                           *float64        `yaml:"trace_probability"`
	MinFreeSpacePerDrive                       *string         `yaml:"min_free_space_per_drive"`
	Authenticator                              *string         `yaml:"authenticator"`
	Authorizer                                 *string         `yaml:"authorizer"`
	ClientEncryptionOptions                    *encryptionFile `yaml:"client_encryption_options"`
	// limits are the request-limit options (limits.go).
	limits limitsFile
}

// optionFields maps each option name to its field index in file.
var optionFields = func() map[string]int {
	fields := make(map[string]int)
	t := reflect.TypeFor[file]()
	for i := range t.NumField() {
		if tag := t.Field(i).Tag.Get("yaml"); tag != "" {
			fields[tag] = i
		}
	}
	return fields
}()

// decodeOptions decodes a mapping one option at a time, so that every
// error names the option and its line (invariant 1).
func decodeOptions(root *yaml.Node) (*file, error) {
	var f file
	seen := make(map[string]int)
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, value := root.Content[i], root.Content[i+1]
		target, ok := optionTarget(&f, key.Value)
		if !ok {
			return nil, fmt.Errorf("line %d: unknown option %q", key.Line, key.Value)
		}
		if line, dup := seen[key.Value]; dup {
			return nil, fmt.Errorf("line %d: option %q already set at line %d", key.Line, key.Value, line)
		}
		seen[key.Value] = key.Line
		if err := value.Decode(target.Addr().Interface()); err != nil {
			return nil, fmt.Errorf("line %d: %s: %s", value.Line, key.Value, yamlErrorText(err))
		}
	}
	return &f, nil
}

// yamlErrorText strips the decoder's "yaml: unmarshal errors: line N:"
// framing, which the caller replaces with the option's name.
func yamlErrorText(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg := te.Errors[0]
		if _, rest, ok := strings.Cut(msg, ": "); ok && strings.HasPrefix(msg, "line ") {
			return rest
		}
		return msg
	}
	return err.Error()
}

// Default returns the configuration of a node without a file: the engine's
// defaults (Cassandra's), listening on 127.0.0.1:9042.
func Default() Config {
	e := engine.DefaultConfig()
	return Config{
		ClusterName:                                e.ClusterName,
		DataDir:                                    "./partita-data",
		MinFreeSpacePerDrive:                       50 << 20,
		RPCAddress:                                 "127.0.0.1",
		NativeTransportPort:                        9042,
		MaxFrameSize:                               server.DefaultMaxFrameSize,
		MaxRequestDataInFlight:                     server.DefaultMaxRequestDataInFlight,
		MaxRequestDataInFlightPerIP:                server.DefaultMaxRequestDataInFlightPerIP,
		FrameReadTimeout:                           server.DefaultFrameReadTimeout,
		WriteTimeout:                               server.DefaultWriteTimeout,
		MaxQueuedReplyBytes:                        server.DefaultMaxQueuedReplyBytes,
		PreparedStatementsCacheSize:                e.PreparedCacheBytes,
		TombstoneWarnThreshold:                     e.TombstoneWarnThreshold,
		TombstoneFailureThreshold:                  e.TombstoneFailureThreshold,
		BatchSizeWarnThreshold:                     e.BatchSizeWarnThresholdBytes,
		BatchSizeFailThreshold:                     e.BatchSizeFailThresholdBytes,
		UnloggedBatchAcrossPartitionsWarnThreshold: e.UnloggedBatchAcrossPartitionsWarn,
		HTTPAddress:                                "127.0.0.1:9180",
		MaxConcurrentConnections:                   -1,
		MaxConcurrentConnectionsPerIP:              -1,
		DataCenter:                                 e.DataCenter,
		Rack:                                       e.Rack,
		MaxPageBytes:                               e.MaxPageBytes,
		CommitlogSync:                              CommitlogSyncBatch,
		LogLevel:                                   "info",
		Authenticator:                              "AllowAllAuthenticator",
		Authorizer:                                 "AllowAllAuthorizer",

		SplitEnabled:           e.Split.Enabled,
		SplitMaxPartitionRows:  e.Split.MaxRows,
		SplitMaxPartitionBytes: e.Split.MaxBytes,
		SplitMaxConcurrent:     e.Split.MaxConcurrent,
		SplitBytesPerSecond:    e.Split.BytesPerSecond,
		SplitStrategy:          e.Split.Strategy,

		Backend:            BackendPebble,
		BackendKeyspace:    "partita",
		BackendConsistency: "LOCAL_QUORUM",
		BackendTLS:         BackendTLS{HostVerification: true},

		Timeouts:                        e.Timeouts,
		Guardrails:                      e.Guardrails,
		PartitionWriteRateWarnThreshold: e.PartitionWriteRateWarnThreshold,
		PartitionWriteRateFailThreshold: e.PartitionWriteRateFailThreshold,
	}
}

// Load reads the YAML file at path over the defaults and validates the
// result. Errors name the file and the option at fault.
func Load(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	c, err := Parse(data)
	if err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}

// Parse reads a YAML document over the defaults and validates the result.
func Parse(data []byte) (Config, error) {
	c := Default()
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return c, c.Validate() // an empty file: all defaults
		}
		return Config{}, err
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return c, c.Validate()
	}
	if root.Kind != yaml.MappingNode {
		return Config{}, fmt.Errorf("line %d: the configuration must be a mapping of option names to values", root.Line)
	}
	f, err := decodeOptions(root)
	if err != nil {
		return Config{}, err
	}
	if err := c.applyDeprecated(f); err != nil {
		return Config{}, err
	}
	if err := c.apply(f); err != nil {
		return Config{}, err
	}
	if err := c.applyLimits(&f.limits); err != nil {
		return Config{}, err
	}
	return c, c.Validate()
}

// apply copies the options given in f onto c.
func (c *Config) apply(f *file) error {
	setString(&c.ClusterName, f.ClusterName)
	if f.DataFileDirectories != nil && len(*f.DataFileDirectories) > 0 {
		c.DataDir = (*f.DataFileDirectories)[0]
	}
	setString(&c.RPCAddress, f.RPCAddress)
	setInt(&c.NativeTransportPort, f.NativeTransportPort)
	setInt(&c.TombstoneWarnThreshold, f.TombstoneWarnThreshold)
	setInt(&c.TombstoneFailureThreshold, f.TombstoneFailureThreshold)
	setInt(&c.UnloggedBatchAcrossPartitionsWarnThreshold, f.UnloggedBatchAcrossPartitionsWarnThreshold)
	setString(&c.HTTPAddress, f.HTTPAddress)
	setString(&c.AdminToken, f.AdminToken)
	setInt(&c.MaxConcurrentConnections, f.NativeTransportMaxConcurrentConnections)
	setInt(&c.MaxConcurrentConnectionsPerIP, f.NativeTransportMaxConcurrentConnsPerIP)
	setString(&c.DataCenter, f.DataCenter)
	setString(&c.Rack, f.Rack)
	setString(&c.CommitlogSync, f.CommitlogSync)
	setString(&c.LogLevel, f.LogLevel)
	setString(&c.Authenticator, f.Authenticator)
	setString(&c.Authorizer, f.Authorizer)
	setString(&c.Backend, f.Backend)
	if f.BackendContactPoints != nil {
		c.BackendContactPoints = append([]string(nil), (*f.BackendContactPoints)...)
	}
	setString(&c.BackendKeyspace, f.BackendKeyspace)
	setString(&c.BackendConsistency, f.BackendConsistency)
	setString(&c.BackendUsername, f.BackendUsername)
	if f.BackendSingleGateway != nil {
		c.BackendSingleGateway = *f.BackendSingleGateway
	}
	if f.BackendReplication != nil {
		c.BackendReplication = f.BackendReplication.text
	}
	if f.BackendTLS != nil {
		c.BackendTLS.Enabled = *f.BackendTLS
	}
	setString(&c.BackendTLS.CAFile, f.BackendTLSCAFile)
	setString(&c.BackendTLS.CertFile, f.BackendTLSCertFile)
	setString(&c.BackendTLS.KeyFile, f.BackendTLSKeyFile)
	setString(&c.BackendTLS.ServerName, f.BackendTLSServerName)
	if f.BackendTLSHostVerification != nil {
		c.BackendTLS.HostVerification = *f.BackendTLSHostVerification
	}
	if f.ClientEncryptionOptions != nil {
		c.ClientEncryption = f.ClientEncryptionOptions.options()
	}
	if f.MaterializedViewsEnabled != nil {
		c.MaterializedViewsEnabled = *f.MaterializedViewsEnabled
	}
	if f.UserDefinedFunctionsEnabled != nil {
		c.UserDefinedFunctionsEnabled = *f.UserDefinedFunctionsEnabled
	}
	if f.SplitEnabled != nil {
		c.SplitEnabled = *f.SplitEnabled
	}
	if f.SplitMaxPartitionRows != nil {
		c.SplitMaxPartitionRows = *f.SplitMaxPartitionRows
	}
	setInt(&c.SplitMaxConcurrent, f.SplitMaxConcurrent)
	setString(&c.SplitStrategy, f.SplitStrategy)
	if f.TraceProbability != nil {
		c.TraceProbability = *f.TraceProbability
	}
	for _, s := range []struct {
		name string
		dst  *int64
		src  *string
	}{
		{"split_max_partition_bytes", &c.SplitMaxPartitionBytes, f.SplitMaxPartitionBytes},
		{"split_bytes_per_second", &c.SplitBytesPerSecond, f.SplitBytesPerSecond},
		{"min_free_space_per_drive", &c.MinFreeSpacePerDrive, f.MinFreeSpacePerDrive},
		{"native_transport_max_request_data_in_flight", &c.MaxRequestDataInFlight, f.NativeTransportMaxRequestDataInFlight},
		{"native_transport_max_request_data_in_flight_per_ip", &c.MaxRequestDataInFlightPerIP, f.NativeTransportMaxRequestDataInFlightPerIP},
		{"native_transport_max_queued_reply_bytes", &c.MaxQueuedReplyBytes, f.NativeTransportMaxQueuedReplyBytes},
		{"prepared_statements_cache_size", &c.PreparedStatementsCacheSize, f.PreparedStatementsCacheSize},
	} {
		if s.src == nil {
			continue
		}
		n, err := ParseSize(*s.src)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		*s.dst = n
	}
	for _, d := range []struct {
		name string
		dst  *time.Duration
		src  *string
	}{
		{"native_transport_idle_timeout", &c.IdleTimeout, f.NativeTransportIdleTimeout},
		{"native_transport_frame_read_timeout", &c.FrameReadTimeout, f.NativeTransportFrameReadTimeout},
		{"native_transport_write_timeout", &c.WriteTimeout, f.NativeTransportWriteTimeout},
		{"backend_lease", &c.BackendLease, f.BackendLease},
		{"backend_state_lease", &c.BackendStateLease, f.BackendStateLease},
		{"backend_state_drain", &c.BackendStateDrain, f.BackendStateDrain},
	} {
		if d.src == nil {
			continue
		}
		v, err := ParseDuration(*d.src)
		if err != nil {
			return fmt.Errorf("%s: %w", d.name, err)
		}
		*d.dst = v
	}
	sizes := []struct {
		name string
		dst  *int
		src  *string
	}{
		{"native_transport_max_frame_size", &c.MaxFrameSize, f.NativeTransportMaxFrameSize},
		{"batch_size_warn_threshold", &c.BatchSizeWarnThreshold, f.BatchSizeWarnThreshold},
		{"batch_size_fail_threshold", &c.BatchSizeFailThreshold, f.BatchSizeFailThreshold},
		{"max_page_bytes", &c.MaxPageBytes, f.MaxPageBytes},
	}
	for _, s := range sizes {
		if s.src == nil {
			continue
		}
		n, err := ParseSize(*s.src)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		if n > math.MaxInt32 {
			return fmt.Errorf("%s: %s is more than the 2GiB-1B it may be", s.name, *s.src)
		}
		*s.dst = int(n)
	}
	return nil
}

func setString(dst *string, src *string) {
	if src != nil {
		*dst = *src
	}
}

func setInt(dst *int, src *int) {
	if src != nil {
		*dst = *src
	}
}

// Validate checks the values; the error names the option at fault.
func (c *Config) Validate() error {
	var errs []error
	fail := func(option, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", option, fmt.Sprintf(format, args...)))
	}
	if c.ClusterName == "" {
		fail("cluster_name", "must not be empty")
	}
	if c.DataDir == "" {
		fail("data_file_directories", "must name a directory")
	}
	if c.RPCAddress == "" {
		fail("rpc_address", "must not be empty")
	}
	if c.NativeTransportPort < 0 || c.NativeTransportPort > 65535 {
		fail("native_transport_port", "%d is not a port number", c.NativeTransportPort)
	}
	if c.MaxFrameSize <= 0 {
		fail("native_transport_max_frame_size", "must be positive")
	}
	if c.MaxRequestDataInFlight <= 0 {
		fail("native_transport_max_request_data_in_flight", "must be positive")
	}
	if c.MaxRequestDataInFlightPerIP <= 0 {
		fail("native_transport_max_request_data_in_flight_per_ip", "must be positive")
	}
	if c.IdleTimeout < 0 {
		fail("native_transport_idle_timeout", "must not be negative")
	}
	for _, o := range []struct {
		name string
		v    int64
	}{
		{"native_transport_frame_read_timeout", int64(c.FrameReadTimeout)},
		{"native_transport_write_timeout", int64(c.WriteTimeout)},
		{"native_transport_max_queued_reply_bytes", c.MaxQueuedReplyBytes},
		{"prepared_statements_cache_size", c.PreparedStatementsCacheSize},
	} {
		if o.v <= 0 {
			fail(o.name, "must be positive")
		}
	}
	if c.MaxPageBytes <= 0 {
		fail("max_page_bytes", "must be positive")
	}
	if c.SplitMaxPartitionRows < 0 || c.SplitMaxPartitionBytes < 0 {
		fail("split_max_partition_rows", "split thresholds must not be negative")
	}
	switch c.SplitStrategy {
	case "auto", "range", "hash":
	default:
		fail("split_strategy", "must be auto, range or hash")
	}
	if !(c.TraceProbability >= 0 && c.TraceProbability <= 1) {
		fail("trace_probability", "must be between 0 and 1")
	}
	if c.TombstoneWarnThreshold < 0 {
		fail("tombstone_warn_threshold", "must not be negative")
	}
	if c.TombstoneFailureThreshold < 0 {
		fail("tombstone_failure_threshold", "must not be negative")
	}
	if c.UnloggedBatchAcrossPartitionsWarnThreshold < 0 {
		fail("unlogged_batch_across_partitions_warn_threshold", "must not be negative")
	}
	if c.BatchSizeFailThreshold < c.BatchSizeWarnThreshold {
		fail("batch_size_fail_threshold", "%s is below batch_size_warn_threshold (%s)",
			FormatSize(int64(c.BatchSizeFailThreshold)), FormatSize(int64(c.BatchSizeWarnThreshold)))
	}
	if c.CommitlogSync != CommitlogSyncBatch {
		fail("commitlog_sync", "only %q is supported (every write group is fsynced before it is acknowledged), not %q",
			CommitlogSyncBatch, c.CommitlogSync)
	}
	password, err := c.PasswordAuthentication()
	if err != nil {
		fail("authenticator", "%v", err)
	}
	if authorization, err := c.Authorization(); err != nil {
		fail("authorizer", "%v", err)
	} else if authorization && !password {
		// DatabaseDescriptor.applyAuth.
		fail("authorizer", "AllowAllAuthenticator can't be used with %s", c.Authorizer)
	}
	if _, err := ParseLogLevel(c.LogLevel); err != nil {
		fail("log_level", "%v", err)
	}
	c.validateBackend(fail)
	if err := c.validateLimits(); err != nil {
		errs = append(errs, err)
	}
	if err := c.ClientEncryption.Check(); err != nil {
		errs = append(errs, err)
	}
	if err := c.BackendTLS.Check(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// ParseLogLevel parses debug, info, warn or error (any case).
func ParseLogLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("unknown log level %q (want debug, info, warn or error)", s)
}

// PasswordAuthentication reports whether the authenticator option asks
// clients to log in.
func (c *Config) PasswordAuthentication() (bool, error) {
	switch strings.TrimPrefix(c.Authenticator, "org.apache.cassandra.auth.") {
	case "", "AllowAllAuthenticator":
		return false, nil
	case "PasswordAuthenticator":
		return true, nil
	}
	return false, fmt.Errorf("unknown authenticator %q (want AllowAllAuthenticator or PasswordAuthenticator)", c.Authenticator)
}

// Authorization reports whether the authorizer option checks permissions.
func (c *Config) Authorization() (bool, error) {
	switch strings.TrimPrefix(c.Authorizer, "org.apache.cassandra.auth.") {
	case "", "AllowAllAuthorizer":
		return false, nil
	case "CassandraAuthorizer":
		return true, nil
	}
	return false, fmt.Errorf("unknown authorizer %q (want AllowAllAuthorizer or CassandraAuthorizer)", c.Authorizer)
}

// CQLAddress is the host:port the CQL server listens on.
func (c *Config) CQLAddress() string {
	return net.JoinHostPort(c.RPCAddress, strconv.Itoa(c.NativeTransportPort))
}

// SetCQLAddress sets rpc_address and native_transport_port from host:port.
func (c *Config) SetCQLAddress(hostPort string) error {
	host, portText, err := net.SplitHostPort(hostPort)
	if err != nil {
		return fmt.Errorf("CQL address %q: %w", hostPort, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return fmt.Errorf("CQL address %q: bad port", hostPort)
	}
	if host == "" {
		host = "0.0.0.0"
	}
	c.RPCAddress, c.NativeTransportPort = host, port
	return nil
}

// Engine maps the configuration onto the engine's. The addresses are the
// configured ones; the caller replaces them with the address clients
// actually dial once the listener is bound (rpc_address may be 0.0.0.0, a
// host name, or the port 0).
func (c *Config) Engine() engine.Config {
	e := engine.DefaultConfig()
	e.ClusterName = c.ClusterName
	e.DataCenter = c.DataCenter
	e.Rack = c.Rack
	if ip := net.ParseIP(c.RPCAddress); ip != nil {
		e.RPCAddress, e.ListenAddress = ip, ip
	}
	e.NativePort = c.NativeTransportPort
	e.TombstoneWarnThreshold = c.TombstoneWarnThreshold
	e.TombstoneFailureThreshold = c.TombstoneFailureThreshold
	e.BatchSizeWarnThresholdBytes = c.BatchSizeWarnThreshold
	e.BatchSizeFailThresholdBytes = c.BatchSizeFailThreshold
	e.UnloggedBatchAcrossPartitionsWarn = c.UnloggedBatchAcrossPartitionsWarnThreshold
	e.MaxPageBytes = c.MaxPageBytes
	e.PreparedCacheBytes = c.PreparedStatementsCacheSize
	e.MaterializedViewsEnabled = c.MaterializedViewsEnabled
	e.UserDefinedFunctionsEnabled = c.UserDefinedFunctionsEnabled
	e.Split.Enabled = c.SplitEnabled
	e.Split.MaxRows = c.SplitMaxPartitionRows
	e.Split.MaxBytes = c.SplitMaxPartitionBytes
	e.Split.MaxConcurrent = c.SplitMaxConcurrent
	e.Split.BytesPerSecond = c.SplitBytesPerSecond
	e.Split.Strategy = c.SplitStrategy
	e.TraceProbability = c.TraceProbability
	e.Auth.PasswordAuthentication, _ = c.PasswordAuthentication() // validated by Validate
	e.Auth.Authorization, _ = c.Authorization()
	c.engineLimits(&e)
	return e
}

// applyDeprecated reads the names Cassandra 4.0 gave the request-bytes
// limits, which Cassandra 5.0 still accepts: a number of bytes, -1 for the
// default. As in Cassandra, a file may not give both names of an option.
func (c *Config) applyDeprecated(f *file) error {
	var both []string
	for _, o := range []struct {
		old, name string
		src       *int64
		given     bool
		dst       *int64
	}{
		{"native_transport_max_concurrent_requests_in_bytes", "native_transport_max_request_data_in_flight",
			f.NativeTransportMaxConcurrentRequestsBytes, f.NativeTransportMaxRequestDataInFlight != nil, &c.MaxRequestDataInFlight},
		{"native_transport_max_concurrent_requests_in_bytes_per_ip", "native_transport_max_request_data_in_flight_per_ip",
			f.NativeTransportMaxConcurrentReqBytesPerIP, f.NativeTransportMaxRequestDataInFlightPerIP != nil, &c.MaxRequestDataInFlightPerIP},
	} {
		switch {
		case o.src == nil:
		case o.given:
			both = append(both, fmt.Sprintf("[%s -> %s]", o.old, o.name))
		case *o.src < -1:
			return fmt.Errorf("%s: %d is not a number of bytes, nor -1 for the default", o.old, *o.src)
		case *o.src >= 0:
			*o.dst = *o.src
		}
	}
	if len(both) > 0 {
		return fmt.Errorf("Config contains both old and new keys for the same configuration parameters, migrate old -> new: %s", strings.Join(both, ", "))
	}
	return nil
}

// Server maps the configuration onto the CQL server's (metrics are wired
// by the caller).
func (c *Config) Server() server.Config {
	s := server.DefaultConfig()
	s.MaxFrameSize = c.MaxFrameSize
	s.MaxRequestDataInFlight = c.MaxRequestDataInFlight
	s.MaxRequestDataInFlightPerIP = c.MaxRequestDataInFlightPerIP
	s.IdleTimeout = c.IdleTimeout
	s.FrameReadTimeout = c.FrameReadTimeout
	s.WriteTimeout = c.WriteTimeout
	s.MaxQueuedReplyBytes = c.MaxQueuedReplyBytes
	s.MaxConcurrentConnections = max(c.MaxConcurrentConnections, 0)
	s.MaxConcurrentConnectionsPerIP = max(c.MaxConcurrentConnectionsPerIP, 0)
	// TLS itself is built from the files by the caller (TLSConfig).
	s.TLSOptional = c.ClientEncryption.Policy() == server.TLSOptional
	return s
}
