package protocol

import (
	"fmt"
	"math"
	"strings"

	"github.com/partita-db/partita/internal/cqlerr"
)

// Value is a bound [value] (§3): Bytes is the serialized value, nil for
// null; Unset marks the "not set" value (-2), which leaves a column as it is.
type Value struct {
	Bytes []byte
	Unset bool
}

// IsNull reports whether v is null (and not unset).
func (v Value) IsNull() bool { return v.Bytes == nil && !v.Unset }

// QueryFlags are the <flags> of the query parameters (§4.1.4).
type QueryFlags byte

// Query parameter flags (§4.1.4; BATCH uses 0x10, 0x20 and 0x40, §4.1.7).
const (
	FlagValues            QueryFlags = 0x01 // [short] n values follow
	FlagSkipMetadata      QueryFlags = 0x02 // answer Rows with No_metadata
	FlagPageSize          QueryFlags = 0x04 // [int] result_page_size follows
	FlagPagingState       QueryFlags = 0x08 // [bytes] paging_state follows
	FlagSerialConsistency QueryFlags = 0x10 // [consistency] serial_consistency follows
	FlagDefaultTimestamp  QueryFlags = 0x20 // [long] timestamp in microseconds follows
	FlagNamesForValues    QueryFlags = 0x40 // each value is preceded by a [string] name
)

var queryFlagNames = [...]string{
	"VALUES", "SKIP_METADATA", "PAGE_SIZE", "PAGING_STATE", "SERIAL_CONSISTENCY", "TIMESTAMP", "NAMES_FOR_VALUES",
}

// String lists the set flags by Cassandra's names (QueryOptions.Codec.Flag),
// e.g. "PAGE_SIZE|TIMESTAMP".
func (f QueryFlags) String() string {
	var parts []string
	for i, name := range queryFlagNames {
		if f&(1<<i) != 0 {
			parts = append(parts, name)
		}
	}
	if rest := f &^ (1<<len(queryFlagNames) - 1); rest != 0 {
		parts = append(parts, fmt.Sprintf("0x%02X", byte(rest)))
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, "|")
}

// QueryParameters are the <query_parameters> of QUERY and EXECUTE (§4.1.4).
// Flags is the source of truth for what is present: Encode writes exactly
// the fields its bits select.
type QueryParameters struct {
	Consistency Consistency
	Flags       QueryFlags
	// Values are the bound values (FlagValues).
	Values []Value
	// Names name the values, one each (FlagNamesForValues with FlagValues).
	Names []string
	// PageSize is the requested page size (FlagPageSize); Cassandra pages
	// only when it is positive.
	PageSize int32
	// PagingState continues a paged query (FlagPagingState); nil if the
	// client sent null.
	PagingState []byte
	// SerialConsistency is the serial phase's level; SERIAL when absent.
	SerialConsistency Consistency
	// Timestamp is the default write timestamp in µs (FlagDefaultTimestamp).
	Timestamp int64
}

// Has reports whether all the bits of f are set.
func (p *QueryParameters) Has(f QueryFlags) bool { return p.Flags&f == f }

// SkipMetadata reports whether the client asked for Rows without metadata.
func (p *QueryParameters) SkipMetadata() bool { return p.Has(FlagSkipMetadata) }

// readQueryParameters reads <consistency><flags> and the fields the
// flags announce, in the spec's order. Unknown flag bits are ignored, as
// Cassandra does (cql3/QueryOptions.java Codec.decode).
func (r *reader) readQueryParameters(p *QueryParameters) {
	p.Consistency = r.readConsistency("consistency")
	p.Flags = QueryFlags(r.readByte("query flags"))
	p.SerialConsistency = Serial
	if r.failed() {
		return
	}
	if p.Has(FlagValues) {
		p.Values, p.Names = r.readValueList(p.Has(FlagNamesForValues))
	}
	if p.Has(FlagPageSize) {
		p.PageSize = r.readInt("result page size")
	}
	if p.Has(FlagPagingState) {
		p.PagingState = r.readBytes("paging state")
	}
	if p.Has(FlagSerialConsistency) {
		p.SerialConsistency = r.readConsistency("serial consistency")
	}
	if p.Has(FlagDefaultTimestamp) {
		p.Timestamp = r.readLong("default timestamp")
		if p.Timestamp == math.MinInt64 && !r.failed() {
			// Cassandra's text (QueryOptions.Codec.decode).
			r.e = cqlerr.Protocolf("Out of bound timestamp, must be in [%d, %d] (got %d)",
				int64(math.MinInt64+1), int64(math.MaxInt64), p.Timestamp)
		}
	}
}

// readValueList reads [short] n values, each preceded by a [string] name
// when named is set.
func (r *reader) readValueList(named bool) ([]Value, []string) {
	n := int(r.readShort("value count"))
	if r.failed() || n == 0 {
		return nil, nil
	}
	// Each [value] takes at least 4 bytes.
	values := make([]Value, 0, min(n, r.remaining()/4))
	var names []string
	if named {
		names = make([]string, 0, min(n, r.remaining()/6))
	}
	for i := 0; i < n && !r.failed(); i++ {
		if named {
			names = append(names, r.readString("value name"))
		}
		values = append(values, r.readValue("value"))
	}
	return values, names
}

// appendQueryParameters appends p as §4.1.4 lays it out.
func appendQueryParameters(dst []byte, p *QueryParameters) []byte {
	dst = appendConsistency(dst, p.Consistency)
	dst = append(dst, byte(p.Flags))
	if p.Has(FlagValues) {
		dst = appendValueList(dst, p.Values, p.Names, p.Has(FlagNamesForValues))
	}
	if p.Has(FlagPageSize) {
		dst = appendInt(dst, p.PageSize)
	}
	if p.Has(FlagPagingState) {
		dst = appendBytes(dst, p.PagingState)
	}
	if p.Has(FlagSerialConsistency) {
		dst = appendConsistency(dst, p.SerialConsistency)
	}
	if p.Has(FlagDefaultTimestamp) {
		dst = appendLong(dst, p.Timestamp)
	}
	return dst
}

// appendValueList appends [short] n values (at most 65535), with names
// (missing ones as "") when named is set.
func appendValueList(dst []byte, values []Value, names []string, named bool) []byte {
	values = values[:min(len(values), maxShort)]
	dst = appendShort(dst, uint16(len(values)))
	for i, v := range values {
		if named {
			name := ""
			if i < len(names) {
				name = names[i]
			}
			dst = appendString(dst, name)
		}
		dst = appendValue(dst, v)
	}
	return dst
}
