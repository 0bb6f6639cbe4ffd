package protocol

import (
	"encoding/binary"
	"maps"
	"net/netip"
	"slices"
	"unicode/utf8"

	"github.com/partita-db/partita/internal/cqlerr"
)

// Limits of the [short]-counted primitives (§3).
const maxShort = 0xFFFF

// reader decodes the §3 primitives from a body. The first failure sticks:
// later reads return zero values and err() reports that failure, so a
// decoder reads a whole message and checks once (and checks inside any loop
// whose count came from the wire). It never reads outside buf.
type reader struct {
	buf []byte
	off int
	e   *cqlerr.Error
}

func newReader(b []byte) *reader { return &reader{buf: b} }

// err returns the first failure, as an error (nil when there was none).
func (r *reader) err() error {
	if r.e == nil {
		return nil
	}
	return r.e
}

func (r *reader) failed() bool { return r.e != nil }

func (r *reader) remaining() int { return len(r.buf) - r.off }

// fail records a Protocol error unless one is recorded already.
func (r *reader) fail(format string, args ...any) {
	if r.e == nil {
		r.e = cqlerr.Protocolf(format, args...)
	}
}

// take returns the next n bytes (a sub-slice of buf) or fails.
func (r *reader) take(n int, what string) []byte {
	if r.e != nil {
		return nil
	}
	if n < 0 || n > r.remaining() {
		r.fail("Not enough bytes to read %s (need %d, have %d)", what, n, r.remaining())
		return nil
	}
	b := r.buf[r.off : r.off+n : r.off+n]
	r.off += n
	return b
}

// readByte reads a [byte].
func (r *reader) readByte(what string) byte {
	b := r.take(1, what)
	if b == nil {
		return 0
	}
	return b[0]
}

// readShort reads a [short] (unsigned).
func (r *reader) readShort(what string) uint16 {
	b := r.take(2, what)
	if b == nil {
		return 0
	}
	return binary.BigEndian.Uint16(b)
}

// readInt reads an [int].
func (r *reader) readInt(what string) int32 {
	b := r.take(4, what)
	if b == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(b))
}

// readLong reads a [long].
func (r *reader) readLong(what string) int64 {
	b := r.take(8, what)
	if b == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b))
}

// readString reads a [string]: [short] n, then n bytes of UTF-8.
func (r *reader) readString(what string) string {
	n := r.readShort(what)
	return r.utf8(r.take(int(n), what), what)
}

// readLongString reads a [long string]: [int] n, then n bytes of UTF-8.
func (r *reader) readLongString(what string) string {
	n := r.readInt(what)
	if n < 0 && r.e == nil {
		r.fail("Invalid length %d for %s", n, what)
	}
	return r.utf8(r.take(int(n), what), what)
}

func (r *reader) utf8(b []byte, what string) string {
	if r.e != nil {
		return ""
	}
	if !utf8.Valid(b) {
		// Cassandra's text (CBUtil.readString).
		r.fail("Cannot decode string as UTF8: %s", what)
		return ""
	}
	return string(b)
}

// readBytes reads [bytes]: [int] n, then n bytes; a negative n is null
// (nil). A zero n gives a non-nil empty slice.
func (r *reader) readBytes(what string) []byte {
	n := r.readInt(what)
	if n < 0 {
		return nil
	}
	return r.take(int(n), what)
}

// readValue reads a [value]: like [bytes], with -1 null and -2 unset; any
// other negative length is an error (§3).
func (r *reader) readValue(what string) Value {
	n := r.readInt(what)
	switch {
	case r.e != nil:
		return Value{}
	case n == -1:
		return Value{}
	case n == -2:
		return Value{Unset: true}
	case n < 0:
		// Cassandra's text (CBUtil.readBoundValue).
		r.fail("Invalid ByteBuf length %d", n)
		return Value{}
	}
	return Value{Bytes: r.take(int(n), what)}
}

// readShortBytes reads [short bytes]: [short] n, then n bytes.
func (r *reader) readShortBytes(what string) []byte {
	n := r.readShort(what)
	return r.take(int(n), what)
}

// readUUID reads a [uuid] (16 bytes).
func (r *reader) readUUID(what string) [16]byte {
	var u [16]byte
	copy(u[:], r.take(16, what))
	return u
}

// readStringList reads a [string list].
func (r *reader) readStringList(what string) []string {
	n := int(r.readShort(what))
	if r.e != nil {
		return nil
	}
	// Each [string] takes at least 2 bytes: a lying count cannot make us
	// allocate more than the body could hold.
	out := make([]string, 0, min(n, r.remaining()/2))
	for i := 0; i < n && r.e == nil; i++ {
		out = append(out, r.readString(what))
	}
	return out
}

// readStringMap reads a [string map]; a repeated key keeps its last value.
func (r *reader) readStringMap(what string) map[string]string {
	n := int(r.readShort(what))
	if r.e != nil {
		return nil
	}
	out := make(map[string]string, min(n, r.remaining()/4))
	for i := 0; i < n && r.e == nil; i++ {
		k := r.readString(what)
		out[k] = r.readString(what)
	}
	return out
}

// readStringMultimap reads a [string multimap].
func (r *reader) readStringMultimap(what string) map[string][]string {
	n := int(r.readShort(what))
	if r.e != nil {
		return nil
	}
	out := make(map[string][]string, min(n, r.remaining()/4))
	for i := 0; i < n && r.e == nil; i++ {
		k := r.readString(what)
		out[k] = r.readStringList(what)
	}
	return out
}

// readBytesMap reads a [bytes map].
func (r *reader) readBytesMap(what string) map[string][]byte {
	n := int(r.readShort(what))
	if r.e != nil {
		return nil
	}
	out := make(map[string][]byte, min(n, r.remaining()/6))
	for i := 0; i < n && r.e == nil; i++ {
		k := r.readString(what)
		out[k] = r.readBytes(what)
	}
	return out
}

// readInet reads an [inet]: a [byte] size (4 or 16), the address and an
// [int] port.
func (r *reader) readInet(what string) netip.AddrPort {
	size := r.readByte(what)
	if r.e == nil && size != 4 && size != 16 {
		r.fail("Invalid IP address size %d in %s", size, what)
	}
	addr, _ := netip.AddrFromSlice(r.take(int(size), what))
	port := r.readInt(what)
	if r.e != nil {
		return netip.AddrPort{}
	}
	if port < 0 || port > maxShort {
		r.fail("Invalid port %d in %s", port, what)
		return netip.AddrPort{}
	}
	return netip.AddrPortFrom(addr, uint16(port))
}

// readConsistency reads a [consistency].
func (r *reader) readConsistency(what string) Consistency {
	c := Consistency(r.readShort(what))
	if r.e == nil && !c.valid() {
		// Cassandra's text (ConsistencyLevel.fromCode).
		r.fail("Unknown code %d for a consistency level", uint16(c))
	}
	return c
}

// The appending encoders below mirror the reader. Counts and lengths that a
// primitive cannot express are clamped so a frame is never malformed
// (invariant 4 in doc.go).

func appendShort(dst []byte, v uint16) []byte { return binary.BigEndian.AppendUint16(dst, v) }

func appendInt(dst []byte, v int32) []byte { return binary.BigEndian.AppendUint32(dst, uint32(v)) }

func appendLong(dst []byte, v int64) []byte { return binary.BigEndian.AppendUint64(dst, uint64(v)) }

// appendString appends a [string], cutting it at a rune boundary if it is
// longer than 65535 bytes.
func appendString(dst []byte, s string) []byte {
	if len(s) > maxShort {
		n := maxShort
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n]
	}
	dst = appendShort(dst, uint16(len(s)))
	return append(dst, s...)
}

// appendLongString appends a [long string].
func appendLongString(dst []byte, s string) []byte {
	dst = appendInt(dst, int32(len(s)))
	return append(dst, s...)
}

// appendBytes appends [bytes]; nil is null (-1).
func appendBytes(dst []byte, b []byte) []byte {
	if b == nil {
		return appendInt(dst, -1)
	}
	dst = appendInt(dst, int32(len(b)))
	return append(dst, b...)
}

// appendValue appends a [value]: unset (-2), null (-1) or the bytes.
func appendValue(dst []byte, v Value) []byte {
	if v.Unset {
		return appendInt(dst, -2)
	}
	return appendBytes(dst, v.Bytes)
}

// appendShortBytes appends [short bytes], cut to 65535 bytes.
func appendShortBytes(dst []byte, b []byte) []byte {
	b = b[:min(len(b), maxShort)]
	dst = appendShort(dst, uint16(len(b)))
	return append(dst, b...)
}

func appendUUID(dst []byte, u [16]byte) []byte { return append(dst, u[:]...) }

// appendStringList appends a [string list] of at most 65535 strings.
func appendStringList(dst []byte, l []string) []byte {
	l = l[:min(len(l), maxShort)]
	dst = appendShort(dst, uint16(len(l)))
	for _, s := range l {
		dst = appendString(dst, s)
	}
	return dst
}

// sortedKeys returns a map's keys in order (so encodings are
// deterministic), at most 65535 of them.
func sortedKeys[V any](m map[string]V) []string {
	keys := slices.Sorted(maps.Keys(m))
	return keys[:min(len(keys), maxShort)]
}

// appendStringMap appends a [string map], keys in order.
func appendStringMap(dst []byte, m map[string]string) []byte {
	keys := sortedKeys(m)
	dst = appendShort(dst, uint16(len(keys)))
	for _, k := range keys {
		dst = appendString(dst, k)
		dst = appendString(dst, m[k])
	}
	return dst
}

// appendStringMultimap appends a [string multimap], keys in order.
func appendStringMultimap(dst []byte, m map[string][]string) []byte {
	keys := sortedKeys(m)
	dst = appendShort(dst, uint16(len(keys)))
	for _, k := range keys {
		dst = appendString(dst, k)
		dst = appendStringList(dst, m[k])
	}
	return dst
}

// appendBytesMap appends a [bytes map], keys in order.
func appendBytesMap(dst []byte, m map[string][]byte) []byte {
	keys := sortedKeys(m)
	dst = appendShort(dst, uint16(len(keys)))
	for _, k := range keys {
		dst = appendString(dst, k)
		dst = appendBytes(dst, m[k])
	}
	return dst
}

// appendInet appends an [inet]. An invalid address is written as 0.0.0.0
// so the frame stays well formed.
func appendInet(dst []byte, a netip.AddrPort) []byte {
	addr := a.Addr()
	if !addr.IsValid() {
		addr = netip.IPv4Unspecified()
	}
	raw := addr.AsSlice()
	dst = append(dst, byte(len(raw)))
	dst = append(dst, raw...)
	return appendInt(dst, int32(a.Port()))
}

func appendConsistency(dst []byte, c Consistency) []byte { return appendShort(dst, uint16(c)) }
