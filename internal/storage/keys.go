package storage

import (
	"encoding/binary"
	"errors"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/token"
	"github.com/partita-db/partita/internal/types"
)

// Key layout (invariant 1 of doc.go):
//
//	meta:  0x00 | user key
//	data:  0x01 | table (8, BE) | token (8, ordered) | partition key (escaped)
//	       | shard (4, BE) | kind (1) | suffix
//
// kinds, in the order a partition is read:
//
//	kindHeader  partition deletion, newest write timestamp, write counters
//	kindStatic  the static row
//	kindRangeTS range tombstones: suffix = escaped start key, then 0 (no
//	            end) or 1 and the escaped end key
//	kindRow     clustering rows: suffix = encoded clustering key
const (
	prefixMeta byte = 0x00
	prefixData byte = 0x01
)

const (
	kindHeader  byte = 0x00
	kindStatic  byte = 0x01
	kindRangeTS byte = 0x02
	kindRow     byte = 0x03
	kindEnd     byte = 0x04 // exclusive upper bound of a physical partition
)

var errBadKey = errors.New("storage: malformed key")

func metaKey(k []byte) []byte {
	return append([]byte{prefixMeta}, k...)
}

func appendTablePrefix(dst []byte, t backend.TableID) []byte {
	dst = append(dst, prefixData)
	return binary.BigEndian.AppendUint64(dst, uint64(t))
}

// appendLogical appends the key prefix shared by every shard of a logical
// partition.
func appendLogical(dst []byte, p backend.LogicalPartition) []byte {
	dst = appendTablePrefix(dst, p.Table)
	dst = token.AppendOrdered(dst, p.Token)
	return types.AppendBytesKey(dst, p.Key)
}

// appendPhysical appends the key prefix of one physical partition.
func appendPhysical(dst []byte, p backend.PhysicalPartition) []byte {
	dst = appendLogical(dst, p.LogicalPartition)
	return binary.BigEndian.AppendUint32(dst, uint32(p.Shard))
}

func partitionKindKey(p backend.PhysicalPartition, kind byte) []byte {
	k := appendPhysical(make([]byte, 0, 32+len(p.Key)), p)
	return append(k, kind)
}

func rowKey(prefix []byte, clustering []byte) []byte {
	k := make([]byte, 0, len(prefix)+1+len(clustering))
	k = append(k, prefix...)
	k = append(k, kindRow)
	return append(k, clustering...)
}

func rangeTombstoneKey(p backend.PhysicalPartition, s backend.Slice) []byte {
	k := partitionKindKey(p, kindRangeTS)
	k = types.AppendBytesKey(k, s.Start)
	if s.End == nil {
		return append(k, 0)
	}
	k = append(k, 1)
	return types.AppendBytesKey(k, s.End)
}

// decodedKey is a data key taken apart.
type decodedKey struct {
	partition backend.PhysicalPartition
	// prefixLen is the length of the physical partition prefix (up to and
	// including the shard), so key[:prefixLen] identifies the partition.
	prefixLen int
	kind      byte
	suffix    []byte
}

func decodeDataKey(k []byte) (decodedKey, error) {
	var d decodedKey
	if len(k) < 17 || k[0] != prefixData {
		return d, errBadKey
	}
	d.partition.Table = backend.TableID(binary.BigEndian.Uint64(k[1:9]))
	tok, err := token.DecodeOrdered(k[9:17])
	if err != nil {
		return d, err
	}
	d.partition.Token = tok
	pk, rest, err := types.DecodeBytesKey(k[17:])
	if err != nil {
		return d, err
	}
	if len(rest) < 5 {
		return d, errBadKey
	}
	d.partition.Key = pk
	d.partition.Shard = backend.Shard(binary.BigEndian.Uint32(rest[:4]))
	d.prefixLen = len(k) - len(rest) + 4
	d.kind = rest[4]
	d.suffix = rest[5:]
	return d, nil
}

// dataKeyKind returns the kind byte of a data key without decoding its
// partition key; the merge operator calls it on every merged read.
func dataKeyKind(k []byte) (byte, error) {
	if len(k) < 17 || k[0] != prefixData {
		return 0, errBadKey
	}
	rest, err := types.SkipBytesKey(k[17:])
	if err != nil {
		return 0, err
	}
	if len(rest) < 5 {
		return 0, errBadKey
	}
	return rest[4], nil
}

func decodeRangeTombstoneSuffix(s []byte) (backend.Slice, error) {
	var out backend.Slice
	start, rest, err := types.DecodeBytesKey(s)
	if err != nil || len(rest) < 1 {
		return out, errBadKey
	}
	out.Start = start
	if rest[0] == 0 {
		if len(rest) != 1 {
			return out, errBadKey
		}
		return out, nil
	}
	end, rest, err := types.DecodeBytesKey(rest[1:])
	if err != nil || len(rest) != 0 {
		return out, errBadKey
	}
	if end == nil {
		end = []byte{}
	}
	out.End = end
	return out, nil
}
