package storage

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"
	"strings"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// The WAL's chunk format (Pebble's record package, record.go): 32 KiB
// blocks of chunks, each a header — checksum (4 bytes), length (2), chunk
// encoding (1), log number (4), and for the WAL-sync encodings a sync
// offset (8) — then the payload. The checksum is a masked CRC-32C of the
// bytes from the encoding to the end of the payload. A block's tail too
// short for a header, or a zeroed header, is padding.
const (
	walBlockSize          = 32 << 10
	walRecyclableHeader   = 11
	walSyncHeader         = 19
	walFirstRecyclableEnc = 5
	walLastRecyclableEnc  = 8
	walLastSyncEnc        = 12
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// walChunkAt returns the size of the valid chunk of log logNum at off, or
// 0 if there is none there.
func walChunkAt(data []byte, off int, logNum uint32) int {
	if off+walRecyclableHeader > len(data) {
		return 0
	}
	enc := data[off+6]
	header := walRecyclableHeader
	switch {
	case enc >= walFirstRecyclableEnc && enc <= walLastRecyclableEnc:
	case enc > walLastRecyclableEnc && enc <= walLastSyncEnc:
		header = walSyncHeader
	default:
		return 0
	}
	if binary.LittleEndian.Uint32(data[off+7:]) != logNum {
		return 0
	}
	length := int(binary.LittleEndian.Uint16(data[off+4:]))
	end := off + header + length
	if end > len(data) || off/walBlockSize != (end-1)/walBlockSize {
		return 0
	}
	c := crc32.Update(0, castagnoli, data[off+6:end])
	if uint32(c>>15|c<<17)+0xa282ead8 != binary.LittleEndian.Uint32(data[off:]) {
		return 0
	}
	return end - off
}

// checkNewestWAL finds damage in the newest WAL, which Pebble replays
// only up to its first bad chunk and takes the rest for the torn last write
// of a crash (it looks for proof of damage only in later 32 KiB blocks).
// Synced records of the log after that point mean the log was damaged in
// the middle, and replaying would silently drop acknowledged writes.
func checkNewestWAL(fs vfs.FS, dir string, names []string) error {
	newest, num := "", uint64(0)
	for _, n := range names {
		if s, ok := strings.CutSuffix(n, ".log"); ok {
			if v, err := strconv.ParseUint(s, 10, 64); err == nil && (newest == "" || v > num) {
				newest, num = n, v
			}
		}
	}
	if newest == "" {
		return nil
	}
	f, err := fs.Open(fs.PathJoin(dir, newest))
	if err != nil {
		return damaged(dir, newest, err)
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return damaged(dir, newest, err)
	}
	logNum := uint32(num)
	off := 0
	for off < len(data) {
		if n := walChunkAt(data, off, logNum); n > 0 {
			off += n
			continue
		}
		rest := walBlockSize - off%walBlockSize
		if rest < walRecyclableHeader || allZero(data[off:min(off+rest, len(data))]) {
			off += rest // padding to the block's end
			continue
		}
		break // the end of the log: the EOF trailer, a torn write, stale data or damage
	}
	// A valid chunk after the end proves damage only if the bytes before
	// it were synced: a machine crash may persist a later unsynced block
	// and not an earlier one. Either the log was closed (its EOF trailer
	// follows: a log is synced when closed), or a WAL-sync chunk records a
	// synced offset past the end.
	valid, closed, proof := -1, false, false
	for at := off + 1; at < len(data); at++ {
		if walTrailerAt(data, at, logNum) {
			closed = true
			continue
		}
		n := walChunkAt(data, at, logNum)
		if n == 0 {
			continue
		}
		if valid < 0 {
			valid = at
		}
		if enc := data[at+6]; enc > walLastRecyclableEnc && binary.LittleEndian.Uint64(data[at+11:]) > uint64(off) {
			proof = true
		}
	}
	if valid >= 0 && (closed || proof) {
		return damaged(dir, newest, fmt.Errorf("a bad chunk at offset %d is followed by synced records of the log from offset %d", off, valid))
	}
	return nil
}

// walTrailerAt reports whether the EOF trailer a closed log ends with is
// at off: a recyclable header with no checksum nor length and the next
// log number.
func walTrailerAt(data []byte, off int, logNum uint32) bool {
	return off+walRecyclableHeader <= len(data) && allZero(data[off:off+6]) &&
		data[off+6] == walFirstRecyclableEnc && binary.LittleEndian.Uint32(data[off+7:]) == logNum+1
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
