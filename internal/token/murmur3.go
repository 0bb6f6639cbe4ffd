package token

import "encoding/binary"

// MurmurHash3 x64_128 constants (Austin Appleby's reference, also used by
// Cassandra's utils/MurmurHash.java).
const (
	murmurC1 uint64 = 0x87c37b91114253d5
	murmurC2 uint64 = 0x4cf5ad432745937f
	fmixM1   uint64 = 0xff51afd7ed558ccd
	fmixM2   uint64 = 0xc4ceb9fe1a85ec53
)

// murmur3H1 returns the first 64-bit half of MurmurHash3 x64_128 with seed 0,
// as Cassandra computes it. Unsigned arithmetic gives Java's wrapping long
// multiply and its logical (>>>) shifts. The one deliberate divergence from
// the reference C code is in the tail: Java reads each tail byte as a signed
// byte and sign-extends it before shifting, so a tail byte >= 0x80 sets all
// the bits above it. Body blocks are read as plain little-endian longs.
func murmur3H1(data []byte) int64 {
	var h1, h2 uint64
	n := len(data)
	body := n &^ 15
	for i := 0; i < body; i += 16 {
		k1 := binary.LittleEndian.Uint64(data[i:])
		k2 := binary.LittleEndian.Uint64(data[i+8:])
		h1 ^= mixK1(k1)
		h1 = rotl(h1, 27) + h2
		h1 = h1*5 + 0x52dce729
		h2 ^= mixK2(k2)
		h2 = rotl(h2, 31) + h1
		h2 = h2*5 + 0x38495ab5
	}

	tail := data[body:]
	var k1, k2 uint64
	for i := len(tail) - 1; i >= 8; i-- {
		k2 ^= signExtend(tail[i]) << (8 * (i - 8))
	}
	if len(tail) > 8 {
		h2 ^= mixK2(k2)
	}
	for i := min(len(tail), 8) - 1; i >= 0; i-- {
		k1 ^= signExtend(tail[i]) << (8 * i)
	}
	if len(tail) > 0 {
		h1 ^= mixK1(k1)
	}

	h1 ^= uint64(n)
	h2 ^= uint64(n)
	h1 += h2
	h2 += h1
	h1 = fmix(h1)
	h2 = fmix(h2)
	h1 += h2
	return int64(h1)
}

// signExtend widens a byte the way Java's (long) cast of a byte does.
func signExtend(b byte) uint64 { return uint64(int64(int8(b))) }

func mixK1(k uint64) uint64 {
	k *= murmurC1
	k = rotl(k, 31)
	return k * murmurC2
}

func mixK2(k uint64) uint64 {
	k *= murmurC2
	k = rotl(k, 33)
	return k * murmurC1
}

func rotl(x uint64, r uint) uint64 { return x<<r | x>>(64-r) }

func fmix(k uint64) uint64 {
	k ^= k >> 33
	k *= fmixM1
	k ^= k >> 33
	k *= fmixM2
	k ^= k >> 33
	return k
}
