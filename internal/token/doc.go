// Package token computes Cassandra's Murmur3Partitioner tokens for partition
// keys, serializes multi-column partition keys the way Cassandra does before
// hashing them, and encodes tokens as order-preserving byte strings for the
// storage key prefix.
//
// A Token is the signed 64-bit position of a partition on the ring. The ring
// is ordered by signed value; the empty key sits at MinToken, which no
// non-empty key can reach.
//
// Invariants:
//
//  1. Bit-identity with Cassandra: for every byte string k, Of(k) equals the
//     token Apache Cassandra's Murmur3Partitioner.getToken gives k
//     (src/java/org/apache/cassandra/dht/Murmur3Partitioner.java over
//     utils/MurmurHash.java hash3_x64_128, seed 0, first half), including the
//     sign-extended tail bytes of the Java implementation and the mapping of
//     a hash of math.MinInt64 to math.MaxInt64.
//  2. Of(k) == MinToken if and only if len(k) == 0.
//  3. SerializeKey matches Cassandra's partition key bytes: one component is
//     the value itself; several are CompositeType-encoded
//     (db/marshal/CompositeType.java), each as a 2-byte big-endian length,
//     the value and a 0x00 end-of-component byte. For n >= 2 and components
//     no longer than 65535 bytes, SplitKey(SerializeKey(c), n) returns c, and
//     whenever SplitKey(k, n) succeeds, SerializeKey of its result is k.
//  4. The ordered encoding is monotonic and exact: for all tokens a and b,
//     bytes.Compare(AppendOrdered(nil, a), AppendOrdered(nil, b)) equals
//     cmp.Compare(a, b), and DecodeOrdered inverts AppendOrdered.
//  5. String and Parse round-trip every Token, using the decimal form that
//     system.local.tokens shows.
//  6. No function panics on any input; malformed input yields an error.
package token
