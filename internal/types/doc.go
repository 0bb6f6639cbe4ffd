// Package types holds CQL types and values: the type representation and its
// CQL text form, validation and comparison of serialized values with
// Cassandra's semantics, the order-preserving key encoding the storage
// layout is built on, literal parsing, text formatting, and the JSON forms
// of SELECT JSON, INSERT JSON, toJson() and fromJson().
//
// Values are kept in their native-protocol serialized form (a cell's bytes
// without the [bytes] length prefix), as Cassandra keeps ByteBuffers. nil
// is null; a non-nil empty slice is the empty value, which most non-string
// types accept and which differs from null.
//
// # Key encoding invariants
//
// AppendKey/DecodeKey (keyenc.go) keep these; keyenc_test.go checks them
// with rapid property tests over random, nested types and values.
//
//  1. Order. For values a, b of type t, bytes.Compare(AppendKey(nil, t, a,
//     false), AppendKey(nil, t, b, false)) has the sign of Compare(t, a, b),
//     zero included; with desc = true the sign is reversed.
//  2. Canonical. Values that Compare equal encode to identical bytes (1.0
//     and 1.00, non-minimal varints, boolean bytes other than 0 and 1, NaN
//     payloads, a tuple's absent trailing components and its nulls), so
//     they are one storage key, as they are one clustering in Cassandra.
//  3. Prefix-free. An encoding is self-delimiting in either direction, so a
//     concatenation of components (a composite clustering key, with any mix
//     of directions) compares component by component, and a key that is a
//     prefix of another (both ASC) sorts first.
//  4. Round trip. DecodeKey returns a value that Compares equal to the one
//     encoded, and exactly it when the value is canonical: varints
//     minimal; decimals without trailing fractional zeros and with scale 0
//     for integers with up to 32 trailing zeros (so 1.50 decodes as 1.5,
//     1E+3 as 1000); booleans 0 or 1; the canonical NaN; tuples and UDTs
//     with every declared component and nulls written as length -1.
//  5. The empty value sorts before every non-empty value.
//  6. Null (nil) is encodable, sorting before the empty value, for tuple
//     and UDT components; callers reject null key columns. A value its type
//     cannot parse is still encoded (after all valid values) and
//     round-trips exactly, so no input panics or is lost.
//
// The encoding of one component is a marker byte (0x01 null, 0x02 empty,
// 0x03 value, 0x04 a value its type cannot parse) and a body: fixed-width
// integers with the sign bit flipped; date and time as they are (Cassandra
// compares them in byte order); floats mapped to their IEEE-754 total
// order; strings, blobs and inets escaped (0x00 as 0x00 0xFF, ended by
// 0x00 0x01); varints and decimals as sign, length or exponent, and
// magnitude or digits; uuids in the comparator's field order; collection
// elements, map entries and tuple components as nested components, a
// collection closed by 0x00. A DESC component is the bitwise NOT of its
// ASC encoding.
//
// # JSON invariants
//
// ToJSON, FormatJSONRow, FromJSON and ParseJSONRow (json*.go) keep these;
// json_test.go checks them with rapid property tests and fuzzers.
//
//  1. Valid output. ToJSON and FormatJSONRow write valid JSON for any
//     bytes: NaN and infinite floats are null, and a value its type cannot
//     parse is a "0x..." blob string.
//  2. Valid input. A value FromJSON returns passes Validate (but for the
//     empty duration "" gives, which Cassandra stores as it is), with sets
//     and maps sorted and without duplicates; its errors are Invalid, or
//     the Server error of a Java exception Cassandra lets through (a
//     timestamp past a long's milliseconds, a duration's number past a
//     long).
//  3. Round trip. FromJSON of ToJSON's output Compares equal to the value,
//     except where Cassandra's JSON forms lose information (decimals read
//     back through a double, NaN and infinite floats, timestamps before
//     1 AD, zero durations, IPv4-mapped addresses, empty values of most
//     types); and once a value has made one trip, further trips give the
//     same JSON.
//
// # Deviations from Cassandra
//
// Cassandra's TupleType.compare treats an absent trailing component as
// equal to a null or an empty one, while a present null sorts before a
// present empty value; that is not a total order. Here an absent component
// is null, and null sorts before empty. Literal parsing resolves no host
// names for inet (addresses only), and takes only blob literals for custom
// types. Timestamp zone names and their rules are those of the JDK the
// reference node runs (zonenames.tsv and zonerules.txt, generated from it
// in an English locale), so another JDK release, with other tz data, or
// another locale can disagree; a date-time without a zone is read in UTC,
// where Cassandra uses its JVM's zone. Like Cassandra, Validate checks a
// time's size but not its range.
//
// JSON: Go maps have no order, so the members of a nested JSON object
// (map entries, UDT fields) are taken in sorted key order where Cassandra
// takes them in document order; that decides only which of two keys
// naming the same map key or field wins, and which error is reported
// first. JSON syntax errors are described in Go's words, not Jackson's.
// fromJson() for a counter is an Invalid error (Cassandra throws
// UnsupportedOperationException), and a nested "null" string where a
// collection, tuple or UDT is expected is an Invalid error, not a
// NullPointerException.
package types
