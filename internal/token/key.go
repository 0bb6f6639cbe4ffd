package token

import (
	"encoding/binary"

	"github.com/partita-db/partita/internal/cqlerr"
)

// MaxKeyLength is the longest serialized partition key Cassandra accepts
// (FBUtilities.MAX_UNSIGNED_SHORT): keys are written with a 2-byte length.
const MaxKeyLength = 65535

// SerializeKey builds the partition key bytes that Cassandra hashes from the
// serialized values of the partition key columns, in key order. One component
// is the value itself (returned without copying, its capacity clipped so that
// appends cannot overwrite the caller's bytes). Several components take the
// CompositeType form: for each, a 2-byte big-endian length, the value and a
// 0x00 end-of-component byte (db/marshal/CompositeType.java). No components
// give the empty key.
//
// A component longer than MaxKeyLength cannot be represented; its length
// field wraps, and the result is longer than MaxKeyLength, which ValidateKey
// rejects. Check client keys with ValidateKey before use.
func SerializeKey(components [][]byte) []byte {
	switch len(components) {
	case 0:
		return nil
	case 1:
		c := components[0]
		return c[:len(c):len(c)]
	}
	size := 0
	for _, c := range components {
		size += 2 + len(c) + 1
	}
	key := make([]byte, 0, size)
	for _, c := range components {
		key = binary.BigEndian.AppendUint16(key, uint16(len(c)))
		key = append(key, c...)
		key = append(key, 0)
	}
	return key
}

// SplitKey is the inverse of SerializeKey for a key of n components. For
// n == 1 it returns the key itself. For n >= 2 it decodes the CompositeType
// form strictly: every end-of-component byte must be 0x00 (as in every
// partition key Cassandra writes) and no bytes may follow the last component.
// The returned components alias key.
func SplitKey(key []byte, n int) ([][]byte, error) {
	if n < 1 {
		return nil, cqlerr.Invalidf("partition key must have at least one component, got %d", n)
	}
	if n == 1 {
		return [][]byte{key}, nil
	}
	components := make([][]byte, 0, n)
	rest := key
	for i := range n {
		// The first three messages are those of Cassandra's
		// AbstractCompositeType.validate, including their missing space.
		if len(rest) < 2 {
			return nil, cqlerr.Invalidf("Not enough bytes to read value size of component %d", i)
		}
		size := int(binary.BigEndian.Uint16(rest))
		rest = rest[2:]
		if len(rest) < size {
			return nil, cqlerr.Invalidf("Not enough bytes to read value of component %d", i)
		}
		components = append(components, rest[:size:size])
		rest = rest[size:]
		if len(rest) == 0 {
			return nil, cqlerr.Invalidf("Not enough bytes to read the end-of-component byte of component%d", i)
		}
		if rest[0] != 0 {
			return nil, cqlerr.Invalidf("Invalid end-of-component byte 0x%02x at component %d of a partition key", rest[0], i)
		}
		rest = rest[1:]
	}
	if len(rest) != 0 {
		return nil, cqlerr.Invalidf("%d bytes remaining after the %d components of a partition key", len(rest), n)
	}
	return components, nil
}

// ValidateKey applies the checks Cassandra makes on every serialized
// partition key a statement addresses (cql3/Validation.java validateKey),
// with its messages: the key is not empty and fits in MaxKeyLength bytes.
func ValidateKey(key []byte) error {
	if len(key) == 0 {
		return cqlerr.Invalidf("Key may not be empty")
	}
	if len(key) > MaxKeyLength {
		return cqlerr.Invalidf("Key length of %d is longer than maximum of %d", len(key), MaxKeyLength)
	}
	return nil
}
