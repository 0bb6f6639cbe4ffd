package exec

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"
)

// FuzzPagingState: any bytes a client sends as a paging state decode to a
// state or to an error, never a panic; the fuzzer also reaches past the
// checksum (it is appended to the body it generates), and a state that
// decodes encodes back to the same bytes.
func FuzzPagingState(f *testing.F) {
	const statement = 0x1234
	f.Add((&pagingState{partition: []byte("k"), clustering: []byte{1, 2}, remaining: 10, remainingInPartition: -1}).encode(statement), false)
	f.Add((&pagingState{partition: []byte{}, remaining: -1, remainingInPartition: 3}).encode(statement), false)
	f.Add([]byte("P\x01garbage"), true)
	f.Fuzz(func(t *testing.T, data []byte, fixChecksum bool) {
		if fixChecksum {
			data = append(append([]byte{'P', pagingVersion}, binary.BigEndian.AppendUint64(nil, statement)...), data...)
			data = binary.BigEndian.AppendUint32(data, crc32.ChecksumIEEE(data))
		}
		s, err := decodePagingState(data, statement)
		if err != nil {
			return
		}
		if again := s.encode(statement); !bytes.Equal(again, data) {
			t.Fatalf("decoded %+v re-encodes to %x, not %x", s, again, data)
		}
	})
}
