package systables

import (
	"encoding/binary"
	"math"
	"net"
	"slices"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/types"
)

// rowSet collects the rows of one table. Values are set by column name, so
// a renderer does not depend on the table's column order; a name the table
// lacks is recorded and turned into an error by Rows.
type rowSet struct {
	index   map[string]int
	width   int
	rows    [][][]byte
	unknown []string
}

func newRowSet(t *catalog.Table) *rowSet {
	s := &rowSet{index: make(map[string]int, len(t.Columns)), width: len(t.Columns)}
	for i, c := range t.Columns {
		s.index[c.Name] = i
	}
	return s
}

// row is one row being filled in; unset columns stay null.
type row struct {
	set    *rowSet
	values [][]byte
}

func (s *rowSet) newRow() row {
	values := make([][]byte, s.width)
	s.rows = append(s.rows, values)
	return row{set: s, values: values}
}

func (r row) put(name string, v []byte) row {
	i, ok := r.set.index[name]
	if !ok {
		r.set.unknown = append(r.set.unknown, name)
		return r
	}
	r.values[i] = v
	return r
}

// Value encodings (native_protocol_v4.spec §6). A nil result is null.

// textValue never returns nil: an empty string is an empty value, not null.
func textValue(s string) []byte { return append(make([]byte, 0, len(s)), s...) }

func intValue(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

func bigintValue(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

func doubleValue(v float64) []byte { return bigintValue(int64(math.Float64bits(v))) }

func booleanValue(v bool) []byte {
	if v {
		return []byte{1}
	}
	return []byte{0}
}

func uuidValue(u [16]byte) []byte { return append([]byte(nil), u[:]...) }

// inetValue is 4 bytes for an IPv4 address, 16 for IPv6, null for none.
func inetValue(ip net.IP) []byte {
	if v4 := ip.To4(); v4 != nil {
		return append([]byte(nil), v4...)
	}
	if len(ip) == net.IPv6len {
		return append([]byte(nil), ip...)
	}
	return nil
}

// timestampValue takes milliseconds since the epoch.
func timestampValue(ms int64) []byte { return bigintValue(ms) }

// textSetValue is a set<text>: sorted by UTF8Type (byte order), no
// duplicates.
func textSetValue(elems []string) []byte {
	sorted := slices.Clone(elems)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	return textListValue(sorted)
}

// textListValue is a list<text> in the given order.
func textListValue(elems []string) []byte {
	vals := make([][]byte, len(elems))
	for i, e := range elems {
		vals[i] = textValue(e)
	}
	return types.EncodeCollection(vals)
}

// textMapValue is a map<text, text>, entries sorted by key.
func textMapValue(m map[string]string) []byte {
	keys, vals := sortedEntries(m)
	values := make([][]byte, len(vals))
	for i, v := range vals {
		values[i] = textValue(v)
	}
	return types.EncodeMap(keys, values)
}

// blobMapValue is a map<text, blob>, entries sorted by key.
func blobMapValue(m map[string][]byte) []byte {
	keys, vals := sortedEntries(m)
	values := make([][]byte, len(vals))
	for i, v := range vals {
		values[i] = append(make([]byte, 0, len(v)), v...)
	}
	return types.EncodeMap(keys, values)
}

func sortedEntries[V any](m map[string]V) (keys [][]byte, vals []V) {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	keys = make([][]byte, len(names))
	vals = make([]V, len(names))
	for i, k := range names {
		keys[i], vals[i] = textValue(k), m[k]
	}
	return keys, vals
}
