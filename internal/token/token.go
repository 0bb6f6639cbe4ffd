package token

import (
	"encoding/binary"
	"math"
	"strconv"

	"github.com/partita-db/partita/internal/cqlerr"
)

// Token is a partition's position on the Murmur3 ring. Tokens order by
// signed value.
type Token int64

const (
	// MinToken is the token of the empty key and the ring's minimum; no
	// non-empty key hashes to it.
	MinToken Token = math.MinInt64
	// MaxToken is the largest token a key can have.
	MaxToken Token = math.MaxInt64
)

// OrderedLen is the length of a token's ordered encoding.
const OrderedLen = 8

// Of returns the Murmur3Partitioner token of a serialized partition key (see
// SerializeKey), as Cassandra's Murmur3Partitioner.getToken computes it.
func Of(partitionKey []byte) Token {
	if len(partitionKey) == 0 {
		return MinToken
	}
	return normalize(murmur3H1(partitionKey))
}

// normalize maps a hash to a key token. Cassandra reserves Long.MIN_VALUE for
// the empty key, so a key that hashes there moves to the other end of the
// ring (Murmur3Partitioner.normalize).
func normalize(hash int64) Token {
	if hash == math.MinInt64 {
		return MaxToken
	}
	return Token(hash)
}

// String returns the token in decimal, as system.local.tokens shows it.
func (t Token) String() string { return strconv.FormatInt(int64(t), 10) }

// Parse reads a decimal token, accepting what Java's Long.parseLong accepts
// for ASCII input: an optional sign and decimal digits in the int64 range.
func Parse(s string) (Token, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// Message of Murmur3Partitioner's TokenFactory.fromString.
		return 0, cqlerr.Invalidf("Invalid token for Murmur3Partitioner. Got %s but expected a long value (unsigned 8 bytes integer).", s)
	}
	return Token(v), nil
}

// AppendOrdered appends the token's 8-byte ordered encoding to dst: big-endian
// with the sign bit flipped, so that bytes.Compare of two encodings orders
// them as the signed tokens. It is the first part of every storage key.
func AppendOrdered(dst []byte, t Token) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(t)^(1<<63))
}

// DecodeOrdered decodes the token at the start of b, which must hold at least
// OrderedLen bytes; bytes after the token (the rest of a storage key) are
// ignored.
func DecodeOrdered(b []byte) (Token, error) {
	if len(b) < OrderedLen {
		return 0, cqlerr.Serverf("corrupt token encoding: %d bytes, need %d", len(b), OrderedLen)
	}
	return Token(binary.BigEndian.Uint64(b) ^ (1 << 63)), nil
}
