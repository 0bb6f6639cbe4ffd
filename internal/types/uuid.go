package types

import (
	"crypto/rand"
	"encoding/binary"
	"sync"
	"time"

	"github.com/partita-db/partita/internal/cqlerr"
)

// Version 1 UUID timestamps count 100 ns intervals since 1582-10-15;
// uuidEpochTicks is the Unix epoch in those units.
const uuidEpochTicks = 0x01B21DD213814000

// Clock sequence and node of the time UUIDs Cassandra uses as bounds
// (TimeUUID.MIN_CLOCK_SEQ_AND_NODE, MAX_CLOCK_SEQ_AND_NODE): the smallest
// and largest low halves under TimeUUIDType's signed-byte comparison.
const (
	minClockSeqAndNode uint64 = 0x8080808080808080
	maxClockSeqAndNode uint64 = 0x7f7f7f7f7f7f7f7f
)

var timeUUIDGen struct {
	mu        sync.Mutex
	lastTicks uint64
	lsb       uint64
}

func init() {
	var b [8]byte
	_, _ = rand.Read(b[:])
	r := binary.BigEndian.Uint64(b[:])
	// Variant 10, a random 14-bit clock sequence and a random 48-bit node
	// with the multicast bit set (RFC 4122 §4.5 for nodes not taken from a
	// network card).
	clockSeq := (r >> 48) & 0x3FFF
	node := r&0xFFFFFFFFFFFF | 0x010000000000
	timeUUIDGen.lsb = 1<<63 | clockSeq<<48 | node
}

// makeTimeUUID builds a version 1 UUID from a raw 60-bit timestamp.
func makeTimeUUID(ticks, lsb uint64) []byte {
	msb := (ticks&0xFFFFFFFF)<<32 | (ticks>>32&0xFFFF)<<16 | 0x1000 | ticks>>48&0x0FFF
	out := binary.BigEndian.AppendUint64(make([]byte, 0, 16), msb)
	return binary.BigEndian.AppendUint64(out, lsb)
}

// NewTimeUUID returns a new version 1 UUID for the current time. Within
// the process the values strictly increase (the timestamp is bumped when
// the clock has not moved); clock sequence and node are random per process.
func NewTimeUUID() []byte {
	ticks := uint64(time.Now().UnixNano()/100) + uuidEpochTicks
	g := &timeUUIDGen
	g.mu.Lock()
	if ticks <= g.lastTicks {
		ticks = g.lastTicks + 1
	}
	g.lastTicks = ticks
	lsb := g.lsb
	g.mu.Unlock()
	return makeTimeUUID(ticks, lsb)
}

// MinTimeUUID returns the smallest timeuuid at the given millisecond
// (minTimeuuid()).
func MinTimeUUID(ms int64) []byte {
	return makeTimeUUID(uint64(ms*10000+uuidEpochTicks), minClockSeqAndNode)
}

// MaxTimeUUID returns the largest timeuuid at the given millisecond
// (maxTimeuuid()).
func MaxTimeUUID(ms int64) []byte {
	return makeTimeUUID(uint64((ms+1)*10000+uuidEpochTicks-1), maxClockSeqAndNode)
}

// TimeUUIDTimestamp returns the Unix time in milliseconds of a version 1
// UUID.
func TimeUUIDTimestamp(v []byte) (int64, error) {
	if len(v) != 16 {
		return 0, cqlerr.Invalidf("UUID should be 16 or 0 bytes (%d)", len(v))
	}
	if v[6]>>4 != 1 {
		return 0, cqlerr.Invalidf("Invalid version for TimeUUID type.")
	}
	msb := binary.BigEndian.Uint64(v)
	ticks := int64(msb>>32 | (msb>>16&0xFFFF)<<32 | (msb&0x0FFF)<<48)
	// As TimeUUID.unixMillis: micros, then millis truncated toward zero.
	micros := ticks/10 - uuidEpochTicks/10
	return micros / 1000, nil
}

// NewRandomUUID returns a random (version 4) UUID.
func NewRandomUUID() []byte {
	u := make([]byte, 16)
	_, _ = rand.Read(u)
	u[6] = u[6]&0x0F | 0x40
	u[8] = u[8]&0x3F | 0x80
	return u
}
