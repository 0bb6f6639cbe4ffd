package exec

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"

	"github.com/partita-db/partita/internal/cqlerr"
)

// pagingState is where a page ended (invariant 2).
type pagingState struct {
	// partition is the serialized key of the partition of the last row.
	partition []byte
	// clustering is the encoded clustering key of the last row, or nil when
	// that partition is finished (its last row was static-only).
	clustering []byte
	// remaining LIMIT and PER PARTITION LIMIT (for the current partition);
	// -1 means none.
	remaining            int64
	remainingInPartition int64
}

const pagingVersion = 1

// encode serialises the state, bound to the statement by its fingerprint.
func (s *pagingState) encode(statement uint64) []byte {
	out := []byte{'P', pagingVersion}
	out = binary.BigEndian.AppendUint64(out, statement)
	out = binary.AppendUvarint(out, uint64(len(s.partition)))
	out = append(out, s.partition...)
	if s.clustering == nil {
		out = append(out, 0)
	} else {
		out = append(out, 1)
		out = binary.AppendUvarint(out, uint64(len(s.clustering)))
		out = append(out, s.clustering...)
	}
	out = binary.AppendVarint(out, s.remaining)
	out = binary.AppendVarint(out, s.remainingInPartition)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out))
}

func invalidPagingState() error {
	return cqlerr.Protocolf("Invalid value for the paging state")
}

// decodePagingState parses a state; any damage, or a state made for another
// statement, is a protocol error.
func decodePagingState(b []byte, statement uint64) (*pagingState, error) {
	if len(b) < 2+8+4 || b[0] != 'P' || b[1] != pagingVersion {
		return nil, invalidPagingState()
	}
	body, sum := b[:len(b)-4], binary.BigEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, invalidPagingState()
	}
	if binary.BigEndian.Uint64(body[2:10]) != statement {
		return nil, cqlerr.Protocolf("Invalid value for the paging state: it was made for another statement")
	}
	d := body[10:]
	readBytes := func() ([]byte, bool) {
		n, k := binary.Uvarint(d)
		if k <= 0 || n > uint64(len(d)-k) {
			return nil, false
		}
		v := append([]byte{}, d[k:k+int(n)]...)
		d = d[k+int(n):]
		return v, true
	}
	s := &pagingState{}
	var ok bool
	if s.partition, ok = readBytes(); !ok || len(d) < 1 {
		return nil, invalidPagingState()
	}
	hasClustering := d[0] == 1
	d = d[1:]
	if hasClustering {
		if s.clustering, ok = readBytes(); !ok {
			return nil, invalidPagingState()
		}
	}
	var k int
	if s.remaining, k = binary.Varint(d); k <= 0 {
		return nil, invalidPagingState()
	}
	d = d[k:]
	if s.remainingInPartition, k = binary.Varint(d); k <= 0 || k != len(d) {
		return nil, invalidPagingState()
	}
	// Only the one encoding of a state is valid (no other flag byte, no
	// padded varint).
	if !bytes.Equal(s.encode(statement), b) {
		return nil, invalidPagingState()
	}
	return s, nil
}
