package catalog

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/partita-db/partita/internal/cqlerr"
)

// Property is one `name = value` of a WITH clause, as the statement wrote it.
type Property struct {
	Name string
	// Value is the constant's text (numbers as written, booleans as written,
	// strings unquoted); IsMap says Map holds a map literal instead.
	Value string
	Map   map[string]string
	IsMap bool
}

// MaxTTL is the largest TTL Cassandra accepts: 20 years (cql3/Attributes.java).
const MaxTTL = 20 * 365 * 24 * 60 * 60

// Options are a table's options (schema/TableParams.java), with Cassandra's
// defaults.
type Options struct {
	AdditionalWritePolicy string
	BloomFilterFPChance   float64
	Caching               map[string]string
	CDC                   bool
	Comment               string
	Compaction            map[string]string
	Compression           map[string]string
	CRCCheckChance        float64
	DefaultTTL            int32
	Extensions            map[string][]byte
	GCGraceSeconds        int32
	MaxIndexInterval      int32
	MemtableFlushPeriodMs int32
	MinIndexInterval      int32
	ReadRepair            string
	SpeculativeRetry      string
	// NoAutoSnapshot and NoIncrementalBackups are allow_auto_snapshot =
	// false and incremental_backups = false (Cassandra 5.0), negated so
	// that a schema persisted before them reads as the defaults (true).
	// Partita takes neither kind of snapshot; the options are kept and
	// shown as Cassandra shows them.
	NoAutoSnapshot       bool `json:",omitempty"`
	NoIncrementalBackups bool `json:",omitempty"`
}

// DefaultOptions returns a new table's options.
func DefaultOptions() Options {
	return Options{
		AdditionalWritePolicy: "99p",
		BloomFilterFPChance:   0.01,
		Caching:               map[string]string{"keys": "ALL", "rows_per_partition": "NONE"},
		Compaction:            defaultCompaction("org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy"),
		Compression:           map[string]string{"chunk_length_in_kb": "16", "class": "org.apache.cassandra.io.compress.LZ4Compressor"},
		CRCCheckChance:        1.0,
		Extensions:            map[string][]byte{},
		GCGraceSeconds:        864000,
		MaxIndexInterval:      2048,
		MinIndexInterval:      128,
		ReadRepair:            "BLOCKING",
		SpeculativeRetry:      "99p",
	}
}

func defaultCompaction(class string) map[string]string {
	return map[string]string{"class": class, "max_threshold": "32", "min_threshold": "4"}
}

func (o Options) clone() Options {
	n := o
	n.Caching = cloneStrings(o.Caching)
	n.Compaction = cloneStrings(o.Compaction)
	n.Compression = cloneStrings(o.Compression)
	n.Extensions = make(map[string][]byte, len(o.Extensions))
	for k, v := range o.Extensions {
		n.Extensions[k] = v
	}
	return n
}

// obsoleteTableOptions are accepted and ignored, as Cassandra 4.x does.
var obsoleteTableOptions = map[string]bool{
	"dclocal_read_repair_chance": true, "read_repair_chance": true,
	"memtable": true, "id": true,
}

// Apply sets the given properties on o, validating them as
// TableAttributes.validate and TableParams.validate do.
func (o *Options) Apply(props []Property) error {
	seen := map[string]bool{}
	for _, p := range props {
		if seen[p.Name] {
			return cqlerr.Syntaxf("Multiple definitions for property '%s'", p.Name)
		}
		seen[p.Name] = true
		if err := o.set(p); err != nil {
			return err
		}
	}
	return o.validate()
}

func (o *Options) set(p Property) error {
	switch p.Name {
	case "caching", "compaction", "compression", "extensions":
		if !p.IsMap {
			return cqlerr.Syntaxf("Invalid value for property '%s'. It should be a map.", p.Name)
		}
	default:
		if p.IsMap && !obsoleteTableOptions[p.Name] {
			if _, known := knownScalarOptions[p.Name]; known {
				return cqlerr.Syntaxf("Invalid value for property '%s'. It should be a string", p.Name)
			}
		}
	}
	switch p.Name {
	case "comment":
		o.Comment = p.Value
	case "additional_write_policy":
		v, err := parseSpeculativeRetry(p.Value)
		o.AdditionalWritePolicy = v
		return err
	case "speculative_retry":
		v, err := parseSpeculativeRetry(p.Value)
		o.SpeculativeRetry = v
		return err
	case "read_repair":
		v := strings.ToUpper(p.Value)
		if v != "BLOCKING" && v != "NONE" {
			return cqlerr.Configf("'%s' is not a valid read repair strategy. Must be one of [BLOCKING, NONE]", p.Value)
		}
		o.ReadRepair = v
	case "bloom_filter_fp_chance":
		return parseFloatOption(p, &o.BloomFilterFPChance)
	case "crc_check_chance":
		return parseFloatOption(p, &o.CRCCheckChance)
	case "default_time_to_live":
		return parseIntOption(p, &o.DefaultTTL)
	case "gc_grace_seconds":
		return parseIntOption(p, &o.GCGraceSeconds)
	case "max_index_interval":
		return parseIntOption(p, &o.MaxIndexInterval)
	case "min_index_interval":
		return parseIntOption(p, &o.MinIndexInterval)
	case "memtable_flush_period_in_ms":
		return parseIntOption(p, &o.MemtableFlushPeriodMs)
	case "cdc":
		b, err := parseBool(p)
		o.CDC = b
		return err
	case "allow_auto_snapshot":
		b, err := parseBool(p)
		o.NoAutoSnapshot = !b
		return err
	case "incremental_backups":
		b, err := parseBool(p)
		o.NoIncrementalBackups = !b
		return err
	case "caching":
		return o.setCaching(p.Map)
	case "compaction":
		return o.setCompaction(p.Map)
	case "compression":
		return o.setCompression(p.Map)
	case "extensions":
		o.Extensions = map[string][]byte{}
		for k, v := range p.Map {
			o.Extensions[k] = []byte(v)
		}
	default:
		if !obsoleteTableOptions[p.Name] {
			return cqlerr.Syntaxf("Unknown property '%s'", p.Name)
		}
	}
	return nil
}

var knownScalarOptions = map[string]struct{}{
	"comment": {}, "additional_write_policy": {}, "speculative_retry": {}, "read_repair": {},
	"bloom_filter_fp_chance": {}, "crc_check_chance": {}, "default_time_to_live": {},
	"gc_grace_seconds": {}, "max_index_interval": {}, "min_index_interval": {},
	"memtable_flush_period_in_ms": {}, "cdc": {}, "allow_auto_snapshot": {}, "incremental_backups": {},
}

func parseFloatOption(p Property, dst *float64) error {
	v, err := strconv.ParseFloat(p.Value, 64)
	if err != nil {
		return cqlerr.Syntaxf("Invalid double value %s for '%s'", p.Value, p.Name)
	}
	*dst = v
	return nil
}

func parseIntOption(p Property, dst *int32) error {
	v, err := strconv.ParseInt(p.Value, 10, 32)
	if err != nil {
		return cqlerr.Syntaxf("Invalid integer value %s for '%s'", p.Value, p.Name)
	}
	*dst = int32(v)
	return nil
}

// parseBool reads a boolean property as Cassandra 5.0's
// PropertyDefinitions.getBoolean does.
func parseBool(p Property) (bool, error) {
	switch strings.ToLower(p.Value) {
	case "1", "true", "yes":
		return true, nil
	case "0", "false", "no":
		return false, nil
	}
	return false, cqlerr.Syntaxf("Invalid boolean value %s for '%s'. Positive values can be '1', 'true' or 'yes'. Negative values can be '0', 'false' or 'no'.", p.Value, p.Name)
}

func (o *Options) setCaching(m map[string]string) error {
	if unknown := unknownKeys(m, "keys", "rows_per_partition"); len(unknown) > 0 {
		return cqlerr.Configf("Invalid caching sub-options [%s]: only 'keys' and 'rows_per_partition' are allowed", strings.Join(unknown, ", "))
	}
	c := map[string]string{"keys": "ALL", "rows_per_partition": "NONE"}
	if v, ok := m["keys"]; ok {
		up := strings.ToUpper(v)
		if up != "ALL" && up != "NONE" {
			return cqlerr.Configf("Invalid value '%s' for caching sub-option 'keys': only 'ALL' and 'NONE' are allowed", v)
		}
		c["keys"] = up
	}
	if v, ok := m["rows_per_partition"]; ok {
		up := strings.ToUpper(v)
		if up == "ALL" || up == "NONE" {
			c["rows_per_partition"] = up
		} else if n, err := strconv.Atoi(v); err != nil || n < 0 {
			return cqlerr.Configf("Invalid value '%s' for caching sub-option 'rows_per_partition': only 'ALL', 'NONE', and integer values are allowed", v)
		} else {
			c["rows_per_partition"] = v
		}
	}
	o.Caching = c
	return nil
}

func (o *Options) validate() error {
	if o.BloomFilterFPChance <= 6.71e-05 || o.BloomFilterFPChance > 1 {
		return cqlerr.Configf("bloom_filter_fp_chance must be larger than %s and less than or equal to 1.0 (got %s)",
			"6.71E-5", javaDouble(o.BloomFilterFPChance))
	}
	if o.CRCCheckChance < 0 || o.CRCCheckChance > 1 {
		return cqlerr.Configf("crc_check_chance must be larger than or equal to 0 and smaller than or equal to 1.0 (got %s)", javaDouble(o.CRCCheckChance))
	}
	if o.DefaultTTL < 0 {
		return cqlerr.Configf("default_time_to_live must be greater than or equal to 0 (got %d)", o.DefaultTTL)
	}
	if o.DefaultTTL > MaxTTL {
		return cqlerr.Configf("default_time_to_live must be less than or equal to %d (got %d)", MaxTTL, o.DefaultTTL)
	}
	if o.GCGraceSeconds < 0 {
		return cqlerr.Configf("gc_grace_seconds must be greater than or equal to 0 (got %d)", o.GCGraceSeconds)
	}
	if o.MinIndexInterval < 1 {
		return cqlerr.Configf("min_index_interval must be greater than or equal to 1 (got %d)", o.MinIndexInterval)
	}
	if o.MaxIndexInterval < o.MinIndexInterval {
		return cqlerr.Configf("max_index_interval must be greater than or equal to min_index_interval (%d) (got %d)", o.MinIndexInterval, o.MaxIndexInterval)
	}
	if o.MemtableFlushPeriodMs < 0 {
		return cqlerr.Configf("memtable_flush_period_in_ms must be greater than or equal to 0 (got %d)", o.MemtableFlushPeriodMs)
	}
	return nil
}

// javaDouble prints a float64 as Java's Double.toString does for the values
// options take (always with a fraction: 1.0, 0.01).
func javaDouble(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e7 {
		return fmt.Sprintf("%.1f", f)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// JavaDouble is javaDouble for other packages (system tables, DESCRIBE).
func JavaDouble(f float64) string { return javaDouble(f) }
