package protocol

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/golang/snappy"
	"github.com/pierrec/lz4/v4"

	"github.com/partita-db/partita/internal/cqlerr"
)

// Compressor compresses frame bodies (§5). v4 knows "lz4" (a 4-byte
// big-endian uncompressed length, then an LZ4 block) and "snappy" (a raw
// Snappy block). A Compressor is safe for concurrent use: a connection
// compresses its replies on the goroutines that produce them.
type Compressor interface {
	// Name is the COMPRESSION value of STARTUP that selects it.
	Name() string
	// Compress appends the compressed form of src to dst.
	Compress(dst, src []byte) ([]byte, error)
	// Decompress appends the decompressed form of src to dst and fails
	// rather than produce (or allocate for) more than maxSize bytes.
	Decompress(dst, src []byte, maxSize int) ([]byte, error)
}

// Compression names, as STARTUP's COMPRESSION gives them (§4.1.1).
const (
	CompressionLZ4    = "lz4"
	CompressionSnappy = "snappy"
)

// SupportedCompressions is SUPPORTED's COMPRESSION list, in Cassandra's
// order (transport/messages/OptionsMessage.java).
var SupportedCompressions = []string{CompressionSnappy, CompressionLZ4}

// NewCompressor returns the Compressor for a STARTUP COMPRESSION
// value, compared case-insensitively as Cassandra does; false for a name
// it does not know.
func NewCompressor(name string) (Compressor, bool) {
	switch strings.ToLower(name) {
	case CompressionLZ4:
		return LZ4Compressor{}, true
	case CompressionSnappy:
		return SnappyCompressor{}, true
	}
	return nil, false
}

// decompressedSizeError is the error of a body that declares a
// decompressed size over the frame limit; nothing was allocated for it.
type decompressedSizeError struct{ size uint64 }

func (e *decompressedSizeError) Error() string {
	return fmt.Sprintf("decompressed body of %d bytes exceeds the frame limit", e.size)
}

// lz4LengthSize is the size of the big-endian uncompressed length that
// precedes the LZ4 block (§5).
const lz4LengthSize = 4

// lz4MaxRatio bounds how much an LZ4 block expands: a match length
// grows by at most 255 per input byte.
const lz4MaxRatio = 256

// snappyMaxRatio bounds how much a Snappy block expands: its densest
// element, a 3-byte copy, produces 64 bytes.
const snappyMaxRatio = 22

// LZ4Compressor is the "lz4" frame compression: the body's length as a
// 4-byte big-endian integer, then the body as one LZ4 block.
type LZ4Compressor struct{}

// lz4Compressors keeps LZ4 hash tables between frames; one serves one
// Compress at a time.
var lz4Compressors = sync.Pool{New: func() any { return new(lz4.Compressor) }}

// Name implements Compressor.
func (LZ4Compressor) Name() string { return CompressionLZ4 }

// Compress implements Compressor.
func (LZ4Compressor) Compress(dst, src []byte) ([]byte, error) {
	start := len(dst)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(src)))
	if len(src) == 0 {
		// An empty block is a single token announcing no literals.
		return append(dst, 0), nil
	}
	bound := lz4.CompressBlockBound(len(src))
	dst = grow(dst, bound)
	z := lz4Compressors.Get().(*lz4.Compressor)
	n, err := z.CompressBlock(src, dst[len(dst):len(dst)+bound])
	lz4Compressors.Put(z)
	if err != nil || n == 0 {
		return dst[:start], fmt.Errorf("lz4 compression failed: %v", err)
	}
	return dst[:len(dst)+n], nil
}

// Decompress implements Compressor. The declared length is checked
// against maxSize before anything is allocated, and the block must fill
// exactly that length.
func (LZ4Compressor) Decompress(dst, src []byte, maxSize int) ([]byte, error) {
	if len(src) < lz4LengthSize {
		return dst, errors.New("lz4 body shorter than its length prefix")
	}
	size := binary.BigEndian.Uint32(src)
	if uint64(size) > uint64(max(maxSize, 0)) {
		return dst, &decompressedSizeError{size: uint64(size)}
	}
	if size == 0 {
		return dst, nil
	}
	if uint64(size) > lz4MaxRatio*uint64(len(src)) {
		// More than the block could hold: fail before allocating for it,
		// so that a few bytes cannot pin the frame limit.
		return dst, errors.New("Compressed lengths mismatch")
	}
	start := len(dst)
	dst = grow(dst, int(size))
	out := dst[start : start+int(size)]
	n, err := lz4.UncompressBlock(src[lz4LengthSize:], out)
	if err != nil || n != int(size) {
		// Cassandra's text (transport/Compressor.java).
		return dst[:start], errors.New("Compressed lengths mismatch")
	}
	return dst[:start+n], nil
}

// SnappyCompressor is the "snappy" frame compression: the body as one raw
// Snappy block, which carries its own length.
type SnappyCompressor struct{}

// Name implements Compressor.
func (SnappyCompressor) Name() string { return CompressionSnappy }

// Compress implements Compressor.
func (SnappyCompressor) Compress(dst, src []byte) ([]byte, error) {
	bound := snappy.MaxEncodedLen(len(src))
	if bound < 0 {
		return dst, errors.New("snappy: body too large to compress")
	}
	dst = grow(dst, bound)
	out := snappy.Encode(dst[len(dst):len(dst)+bound], src)
	return dst[:len(dst)+len(out)], nil
}

// errNotSnappy is Cassandra's text for a body Snappy cannot read
// (transport/Compressor.java).
var errNotSnappy = errors.New("Provided frame does not appear to be Snappy compressed")

// Decompress implements Compressor. The length Snappy declares is checked
// against maxSize before anything is allocated.
func (SnappyCompressor) Decompress(dst, src []byte, maxSize int) ([]byte, error) {
	size, err := snappy.DecodedLen(src)
	if err != nil {
		return dst, errNotSnappy
	}
	if size > max(maxSize, 0) {
		return dst, &decompressedSizeError{size: uint64(size)}
	}
	if uint64(size) > snappyMaxRatio*uint64(len(src)) {
		// More than the block could hold: fail before allocating for it.
		return dst, errNotSnappy
	}
	start := len(dst)
	dst = grow(dst, size)
	out, err := snappy.Decode(dst[start:start+size], src)
	if err != nil || len(out) != size {
		return dst[:start], errNotSnappy
	}
	return dst[:start+size], nil
}

// grow returns b with room for n more bytes past its length.
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), len(b)+n)
	copy(nb, b)
	return nb
}

func errUnexpectedCompression() *cqlerr.Error {
	return cqlerr.Protocolf("Received a compressed frame but no compression was negotiated")
}

// DecompressFrame returns f with its body decompressed when the
// compression flag is set. With a nil Compressor (nothing negotiated) a
// compressed frame is a Protocol error. STARTUP is never compressed (§5).
// A body that declares more than maxBody decompressed bytes is refused
// with the error of a frame that large, before anything is allocated; a
// corrupt body is a Protocol error with Cassandra's text.
func DecompressFrame(f Frame, c Compressor, maxBody int) (Frame, error) {
	if f.Header.Flags&FlagCompression == 0 {
		return f, nil
	}
	if c == nil || f.Header.Opcode == OpStartup {
		return Frame{}, errUnexpectedCompression()
	}
	body, err := c.Decompress(nil, f.Body, maxBody)
	if err == nil && len(body) > maxBody {
		err = &decompressedSizeError{size: uint64(len(body))}
	}
	var tooLarge *decompressedSizeError
	switch {
	case errors.As(err, &tooLarge):
		return Frame{}, (&FrameSizeError{Stream: f.Header.Stream, Opcode: f.Header.Opcode,
			Length: int32(min(tooLarge.size, 1<<31-1)), MaxBody: maxBody}).Err()
	case err != nil:
		return Frame{}, cqlerr.Protocolf("%s", err.Error())
	}
	f.Header.Flags &^= FlagCompression
	f.Header.Length = int32(len(body))
	f.Body = body
	return f, nil
}

// CompressFrame appends to dst the compressed form of frame, a complete
// frame as EncodeResponse writes it: same header with the compression flag
// set and the new length, then the compressed body.
func CompressFrame(dst, frame []byte, c Compressor) ([]byte, error) {
	if len(frame) < HeaderSize {
		return dst, cqlerr.Serverf("frame of %d bytes has no header", len(frame))
	}
	start := len(dst)
	dst = append(dst, frame[:HeaderSize]...)
	dst[start+1] |= FlagCompression
	out, err := c.Compress(dst, frame[HeaderSize:])
	if err != nil {
		return dst[:start], err
	}
	patchLength(out, start)
	return out, nil
}
