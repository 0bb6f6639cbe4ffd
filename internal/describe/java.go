package describe

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
)

// The orders and number formats below are those of the Java library calls
// Cassandra's DESCRIBE goes through; each says which one it follows.

// compareIgnoreCase is String.compareToIgnoreCase: char by char, equal when
// equal after upper-casing or after lower-casing both.
func compareIgnoreCase(a, b string) int {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		c1, c2 := rune(ua[i]), rune(ub[i])
		if c1 == c2 {
			continue
		}
		c1, c2 = unicode.ToUpper(c1), unicode.ToUpper(c2)
		if c1 == c2 {
			continue
		}
		c1, c2 = unicode.ToLower(c1), unicode.ToLower(c2)
		if c1 != c2 {
			return int(c1) - int(c2)
		}
	}
	return len(ua) - len(ub)
}

// compareUTF16 is String.compareTo, the order of a TreeMap<String>: by
// UTF-16 code unit, which differs from byte order only above U+FFFF.
func compareUTF16(a, b string) int {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return int(ua[i]) - int(ub[i])
		}
	}
	return len(ua) - len(ub)
}

// sortedKeys returns m's keys as a TreeMap<String> orders them.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return compareUTF16(keys[i], keys[j]) < 0 })
	return keys
}

// compareSignedBytes is ByteBuffer.compareTo, which compares bytes as
// signed values: the order of UDT names in a keyspace's ImmutableSortedMap.
func compareSignedBytes(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return int(int8(a[i])) - int(int8(b[i]))
		}
	}
	return len(a) - len(b)
}

// columnLess is ColumnMetadata.compareTo for two columns of one kind and
// complexity: by the first six bytes of the name with the top bit of the
// first flipped (ColumnIdentifier.prefixComparison >>> 16, so names that
// start with a byte of 0x80 or more come first), then by unsigned bytes.
func columnLess(a, b string) bool {
	pa, pb := columnPrefix(a), columnPrefix(b)
	if pa != pb {
		return pa < pb
	}
	return a < b
}

func columnPrefix(name string) uint64 {
	var p uint64
	for i := 0; i < 8; i++ {
		p <<= 8
		if i < len(name) {
			p |= uint64(name[i])
		}
	}
	return (p ^ 1<<63) >> 16
}

// javaDouble is Double.toString: plain decimal notation with at least one
// fractional digit for magnitudes in [1e-3, 1e7), computerized scientific
// notation (1.0E-4) otherwise. Digits are the shortest that round-trip.
func javaDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	if abs := math.Abs(f); abs >= 1e-3 && abs < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mantissa, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mantissa, ".") {
		mantissa += ".0"
	}
	n, _ := strconv.Atoi(exp)
	return mantissa + "E" + strconv.Itoa(n)
}

// javaHashOrder returns names in the iteration order of a java.util.HashMap
// keyed by their UTF-8 bytes (ByteBuffer keys), filled as Cassandra fills a
// table's dropped columns when it loads them from
// system_schema.dropped_columns (SchemaKeyspace.fetchDroppedColumns puts
// them in clustering order into a new HashMap, which
// TableMetadata.Builder.droppedColumns copies into another with putAll).
// A table altered since the node started may list them in another order:
// the in-memory path sizes its HashMap differently.
func javaHashOrder(names []string) []string {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted) // UTF8Type clustering order
	loaded := &javaHashMap{}
	for _, n := range sorted {
		loaded.put(n)
	}
	copied := &javaHashMap{}
	copied.putAll(loaded.keys())
	return copied.keys()
}

// javaHashMap models the bucket layout of java.util.HashMap (load factor
// 0.75) closely enough to reproduce its iteration order for a handful of
// keys; tree bins (eight or more keys in one bucket of a table of 64 or
// more) are not modelled.
type javaHashMap struct {
	buckets   [][]string
	size      int
	threshold int
}

// byteBufferHash is HashMap.hash(ByteBuffer.hashCode()).
func byteBufferHash(s string) uint32 {
	h := int32(1)
	for i := len(s) - 1; i >= 0; i-- {
		h = 31*h + int32(int8(s[i]))
	}
	u := uint32(h)
	return u ^ u>>16
}

func (m *javaHashMap) put(key string) {
	if m.buckets == nil {
		m.resize()
	}
	i := int(byteBufferHash(key) & uint32(len(m.buckets)-1))
	m.buckets[i] = append(m.buckets[i], key)
	if len(m.buckets[i]) > 8 && len(m.buckets) < 64 {
		m.resize() // treeifyBin on a small table resizes instead
	}
	m.size++
	if m.size > m.threshold {
		m.resize()
	}
}

// putAll is HashMap.putMapEntries on an empty map: the table is presized
// for the incoming keys, then each is put.
func (m *javaHashMap) putAll(keys []string) {
	if len(keys) == 0 {
		return
	}
	if m.buckets == nil {
		t := int(float32(len(keys))/0.75 + 1)
		if t > m.threshold {
			m.threshold = tableSizeFor(t)
		}
	}
	for _, k := range keys {
		m.put(k)
	}
}

func tableSizeFor(n int) int {
	c := 1
	for c < n {
		c <<= 1
	}
	return c
}

// resize is HashMap.resize; splitting a bucket keeps the relative order of
// its keys, as re-inserting them in iteration order does.
func (m *javaHashMap) resize() {
	oldCap := len(m.buckets)
	var newCap, newThr int
	switch {
	case oldCap > 0:
		newCap = oldCap * 2
		if oldCap >= 16 {
			newThr = m.threshold * 2
		}
	case m.threshold > 0:
		newCap = m.threshold
	default:
		newCap, newThr = 16, 12
	}
	if newThr == 0 {
		newThr = int(float32(newCap) * 0.75)
	}
	old := m.keys()
	m.buckets, m.threshold = make([][]string, newCap), newThr
	for _, k := range old {
		i := int(byteBufferHash(k) & uint32(newCap-1))
		m.buckets[i] = append(m.buckets[i], k)
	}
}

func (m *javaHashMap) keys() []string {
	var out []string
	for _, b := range m.buckets {
		out = append(out, b...)
	}
	return out
}
