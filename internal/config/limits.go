package config

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/partita-db/partita/internal/engine"
)

// limitsFile holds the options of the node's request limits: the request
// timeouts (cassandra.yaml 4.1 names, and the 4.0 *_in_ms names Cassandra
// 5.0 still reads), the guardrails (cassandra.yaml 5.0's names) and
// Partita's per-partition write-rate thresholds. Thresholds are integers,
// -1 off; sizes are DataStorageSpec text ("64KiB"), null off.
type limitsFile struct {
	ReadRequestTimeout             *string `yaml:"read_request_timeout"`
	RangeRequestTimeout            *string `yaml:"range_request_timeout"`
	WriteRequestTimeout            *string `yaml:"write_request_timeout"`
	CounterWriteRequestTimeout     *string `yaml:"counter_write_request_timeout"`
	CasContentionTimeout           *string `yaml:"cas_contention_timeout"`
	TruncateRequestTimeout         *string `yaml:"truncate_request_timeout"`
	ReadRequestTimeoutInMs         *int64  `yaml:"read_request_timeout_in_ms"`
	RangeRequestTimeoutInMs        *int64  `yaml:"range_request_timeout_in_ms"`
	WriteRequestTimeoutInMs        *int64  `yaml:"write_request_timeout_in_ms"`
	CounterWriteRequestTimeoutInMs *int64  `yaml:"counter_write_request_timeout_in_ms"`
	CasContentionTimeoutInMs       *int64  `yaml:"cas_contention_timeout_in_ms"`
	TruncateRequestTimeoutInMs     *int64  `yaml:"truncate_request_timeout_in_ms"`

	CollectionSizeWarnThreshold           *string `yaml:"collection_size_warn_threshold"`
	CollectionSizeFailThreshold           *string `yaml:"collection_size_fail_threshold"`
	ColumnValueSizeWarnThreshold          *string `yaml:"column_value_size_warn_threshold"`
	ColumnValueSizeFailThreshold          *string `yaml:"column_value_size_fail_threshold"`
	ItemsPerCollectionWarnThreshold       *int64  `yaml:"items_per_collection_warn_threshold"`
	ItemsPerCollectionFailThreshold       *int64  `yaml:"items_per_collection_fail_threshold"`
	PartitionKeysInSelectWarnThreshold    *int64  `yaml:"partition_keys_in_select_warn_threshold"`
	PartitionKeysInSelectFailThreshold    *int64  `yaml:"partition_keys_in_select_fail_threshold"`
	InSelectCartesianProductWarnThreshold *int64  `yaml:"in_select_cartesian_product_warn_threshold"`
	InSelectCartesianProductFailThreshold *int64  `yaml:"in_select_cartesian_product_fail_threshold"`
	PageSizeWarnThreshold                 *int64  `yaml:"page_size_warn_threshold"`
	PageSizeFailThreshold                 *int64  `yaml:"page_size_fail_threshold"`
	TablesWarnThreshold                   *int64  `yaml:"tables_warn_threshold"`
	TablesFailThreshold                   *int64  `yaml:"tables_fail_threshold"`
	KeyspacesWarnThreshold                *int64  `yaml:"keyspaces_warn_threshold"`
	KeyspacesFailThreshold                *int64  `yaml:"keyspaces_fail_threshold"`
	ColumnsPerTableWarnThreshold          *int64  `yaml:"columns_per_table_warn_threshold"`
	ColumnsPerTableFailThreshold          *int64  `yaml:"columns_per_table_fail_threshold"`
	SecondaryIndexesPerTableWarnThreshold *int64  `yaml:"secondary_indexes_per_table_warn_threshold"`
	SecondaryIndexesPerTableFailThreshold *int64  `yaml:"secondary_indexes_per_table_fail_threshold"`
	FieldsPerUDTWarnThreshold             *int64  `yaml:"fields_per_udt_warn_threshold"`
	FieldsPerUDTFailThreshold             *int64  `yaml:"fields_per_udt_fail_threshold"`
	MaximumReplicationFactorWarnThreshold *int64  `yaml:"maximum_replication_factor_warn_threshold"`
	MaximumReplicationFactorFailThreshold *int64  `yaml:"maximum_replication_factor_fail_threshold"`

	AllowFilteringEnabled                *bool `yaml:"allow_filtering_enabled"`
	UserTimestampsEnabled                *bool `yaml:"user_timestamps_enabled"`
	DropTruncateTableEnabled             *bool `yaml:"drop_truncate_table_enabled"`
	DropKeyspaceEnabled                  *bool `yaml:"drop_keyspace_enabled"`
	ReadBeforeWriteListOperationsEnabled *bool `yaml:"read_before_write_list_operations_enabled"`
	GroupByEnabled                       *bool `yaml:"group_by_enabled"`
	SimplestrategyEnabled                *bool `yaml:"simplestrategy_enabled"`

	PartitionWriteRateWarnThreshold *int64 `yaml:"partition_write_rate_warn_threshold"`
	PartitionWriteRateFailThreshold *int64 `yaml:"partition_write_rate_fail_threshold"`
}

// limitFields maps each limit option to its field index in limitsFile.
var limitFields = func() map[string]int {
	fields := make(map[string]int)
	t := reflect.TypeFor[limitsFile]()
	for i := range t.NumField() {
		fields[t.Field(i).Tag.Get("yaml")] = i
	}
	return fields
}()

// optionTarget is where option name of file f decodes to.
func optionTarget(f *file, name string) (reflect.Value, bool) {
	if i, ok := optionFields[name]; ok && name != "" {
		return reflect.ValueOf(f).Elem().Field(i), true
	}
	if i, ok := limitFields[name]; ok {
		return reflect.ValueOf(&f.limits).Elem().Field(i), true
	}
	return reflect.Value{}, false
}

// applyLimits copies the limit options given in l onto c.
func (c *Config) applyLimits(l *limitsFile) error {
	var both []string
	for _, o := range []struct {
		name, old string
		src       *string
		ms        *int64
		dst       *time.Duration
	}{
		{"read_request_timeout", "read_request_timeout_in_ms", l.ReadRequestTimeout, l.ReadRequestTimeoutInMs, &c.Timeouts.Read},
		{"range_request_timeout", "range_request_timeout_in_ms", l.RangeRequestTimeout, l.RangeRequestTimeoutInMs, &c.Timeouts.Range},
		{"write_request_timeout", "write_request_timeout_in_ms", l.WriteRequestTimeout, l.WriteRequestTimeoutInMs, &c.Timeouts.Write},
		{"counter_write_request_timeout", "counter_write_request_timeout_in_ms", l.CounterWriteRequestTimeout, l.CounterWriteRequestTimeoutInMs, &c.Timeouts.CounterWrite},
		{"cas_contention_timeout", "cas_contention_timeout_in_ms", l.CasContentionTimeout, l.CasContentionTimeoutInMs, &c.Timeouts.CASContention},
		{"truncate_request_timeout", "truncate_request_timeout_in_ms", l.TruncateRequestTimeout, l.TruncateRequestTimeoutInMs, &c.Timeouts.Truncate},
	} {
		switch {
		case o.src != nil && o.ms != nil:
			both = append(both, fmt.Sprintf("[%s -> %s]", o.old, o.name))
		case o.src != nil:
			d, err := ParseDuration(*o.src)
			if err != nil {
				return fmt.Errorf("%s: %w", o.name, err)
			}
			*o.dst = d
		case o.ms != nil:
			if *o.ms < 0 {
				return fmt.Errorf("%s: %d is not a number of milliseconds", o.old, *o.ms)
			}
			*o.dst = time.Duration(*o.ms) * time.Millisecond
		}
	}
	if len(both) > 0 {
		return fmt.Errorf("Config contains both old and new keys for the same configuration parameters, migrate old -> new: %s", strings.Join(both, ", "))
	}
	g := &c.Guardrails
	for _, s := range []struct {
		name string
		src  *string
		dst  *int64
	}{
		{"collection_size_warn_threshold", l.CollectionSizeWarnThreshold, &g.CollectionSizeWarn},
		{"collection_size_fail_threshold", l.CollectionSizeFailThreshold, &g.CollectionSizeFail},
		{"column_value_size_warn_threshold", l.ColumnValueSizeWarnThreshold, &g.ColumnValueSizeWarn},
		{"column_value_size_fail_threshold", l.ColumnValueSizeFailThreshold, &g.ColumnValueSizeFail},
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
	for _, t := range []struct {
		src *int64
		dst *int64
	}{
		{l.ItemsPerCollectionWarnThreshold, &g.ItemsPerCollectionWarn}, {l.ItemsPerCollectionFailThreshold, &g.ItemsPerCollectionFail},
		{l.PartitionKeysInSelectWarnThreshold, &g.PartitionKeysInSelectWarn}, {l.PartitionKeysInSelectFailThreshold, &g.PartitionKeysInSelectFail},
		{l.InSelectCartesianProductWarnThreshold, &g.InSelectCartesianProductWarn}, {l.InSelectCartesianProductFailThreshold, &g.InSelectCartesianProductFail},
		{l.PageSizeWarnThreshold, &g.PageSizeWarn}, {l.PageSizeFailThreshold, &g.PageSizeFail},
		{l.TablesWarnThreshold, &g.TablesWarn}, {l.TablesFailThreshold, &g.TablesFail},
		{l.KeyspacesWarnThreshold, &g.KeyspacesWarn}, {l.KeyspacesFailThreshold, &g.KeyspacesFail},
		{l.ColumnsPerTableWarnThreshold, &g.ColumnsPerTableWarn}, {l.ColumnsPerTableFailThreshold, &g.ColumnsPerTableFail},
		{l.SecondaryIndexesPerTableWarnThreshold, &g.SecondaryIndexesPerTableWarn}, {l.SecondaryIndexesPerTableFailThreshold, &g.SecondaryIndexesPerTableFail},
		{l.FieldsPerUDTWarnThreshold, &g.FieldsPerUDTWarn}, {l.FieldsPerUDTFailThreshold, &g.FieldsPerUDTFail},
		{l.MaximumReplicationFactorWarnThreshold, &g.MaximumReplicationFactorWarn}, {l.MaximumReplicationFactorFailThreshold, &g.MaximumReplicationFactorFail},
		{l.PartitionWriteRateWarnThreshold, &c.PartitionWriteRateWarnThreshold}, {l.PartitionWriteRateFailThreshold, &c.PartitionWriteRateFailThreshold},
	} {
		if t.src != nil {
			*t.dst = *t.src
		}
	}
	for _, b := range []struct {
		src *bool
		dst *bool
	}{
		{l.AllowFilteringEnabled, &g.AllowFilteringEnabled}, {l.UserTimestampsEnabled, &g.UserTimestampsEnabled},
		{l.DropTruncateTableEnabled, &g.DropTruncateTableEnabled}, {l.DropKeyspaceEnabled, &g.DropKeyspaceEnabled},
		{l.ReadBeforeWriteListOperationsEnabled, &g.ReadBeforeWriteListOperationsEnabled},
		{l.GroupByEnabled, &g.GroupByEnabled}, {l.SimplestrategyEnabled, &g.SimpleStrategyEnabled},
	} {
		if b.src != nil {
			*b.dst = *b.src
		}
	}
	return nil
}

// validateLimits checks the timeouts (not negative) and each warn/fail
// pair of thresholds: -1 (off) or positive, the warning not above the
// failure (GuardrailsOptions.validateMaxIntThreshold).
func (c *Config) validateLimits() error {
	var errs []error
	t := c.Timeouts
	for _, o := range []struct {
		name string
		v    time.Duration
	}{
		{"read_request_timeout", t.Read}, {"range_request_timeout", t.Range}, {"write_request_timeout", t.Write},
		{"counter_write_request_timeout", t.CounterWrite}, {"cas_contention_timeout", t.CASContention},
		{"truncate_request_timeout", t.Truncate},
	} {
		if o.v < 0 {
			errs = append(errs, fmt.Errorf("%s: must not be negative", o.name))
		}
	}
	g := c.Guardrails
	for _, p := range []struct {
		name       string
		warn, fail int64
	}{
		{"collection_size", g.CollectionSizeWarn, g.CollectionSizeFail},
		{"column_value_size", g.ColumnValueSizeWarn, g.ColumnValueSizeFail},
		{"items_per_collection", g.ItemsPerCollectionWarn, g.ItemsPerCollectionFail},
		{"partition_keys_in_select", g.PartitionKeysInSelectWarn, g.PartitionKeysInSelectFail},
		{"in_select_cartesian_product", g.InSelectCartesianProductWarn, g.InSelectCartesianProductFail},
		{"page_size", g.PageSizeWarn, g.PageSizeFail},
		{"tables", g.TablesWarn, g.TablesFail},
		{"keyspaces", g.KeyspacesWarn, g.KeyspacesFail},
		{"columns_per_table", g.ColumnsPerTableWarn, g.ColumnsPerTableFail},
		{"secondary_indexes_per_table", g.SecondaryIndexesPerTableWarn, g.SecondaryIndexesPerTableFail},
		{"fields_per_udt", g.FieldsPerUDTWarn, g.FieldsPerUDTFail},
		{"maximum_replication_factor", g.MaximumReplicationFactorWarn, g.MaximumReplicationFactorFail},
		{"partition_write_rate", c.PartitionWriteRateWarnThreshold, c.PartitionWriteRateFailThreshold},
	} {
		for _, v := range []struct {
			suffix string
			n      int64
		}{{"_warn_threshold", p.warn}, {"_fail_threshold", p.fail}} {
			if v.n < -1 || v.n == 0 && !strings.HasSuffix(p.name, "_size") {
				errs = append(errs, fmt.Errorf("%s%s: %d is neither -1 (off) nor positive", p.name, v.suffix, v.n))
			}
		}
		if p.warn > 0 && p.fail > 0 && p.warn > p.fail {
			errs = append(errs, fmt.Errorf("%s_warn_threshold: %d is above %s_fail_threshold (%d)", p.name, p.warn, p.name, p.fail))
		}
	}
	return errors.Join(errs...)
}

// engineLimits copies the limits onto the engine's configuration.
func (c *Config) engineLimits(e *engine.Config) {
	e.Timeouts = c.Timeouts
	e.Guardrails = c.Guardrails
	e.PartitionWriteRateWarnThreshold = c.PartitionWriteRateWarnThreshold
	e.PartitionWriteRateFailThreshold = c.PartitionWriteRateFailThreshold
}
