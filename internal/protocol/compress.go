package protocol

import (
	"github.com/partita-db/partita/internal/cqlerr"
)

// Compressor compresses frame bodies (§5). v4 knows "lz4" (a 4-byte
// big-endian uncompressed length, then an LZ4 block) and "snappy". None is
// built in: the server advertises COMPRESSION: [] and no driver then asks
// for one, so this is the hook a future compressor plugs into.
type Compressor interface {
	// Name is the COMPRESSION value of STARTUP that selects it.
	Name() string
	// Compress appends the compressed form of src to dst.
	Compress(dst, src []byte) ([]byte, error)
	// Decompress appends the decompressed form of src to dst and fails
	// rather than produce more than maxSize bytes.
	Decompress(dst, src []byte, maxSize int) ([]byte, error)
}

func errUnexpectedCompression() *cqlerr.Error {
	return cqlerr.Protocolf("Received a compressed frame but no compression was negotiated")
}

// DecompressFrame returns f with its body decompressed when the
// compression flag is set. With a nil Compressor (nothing negotiated) a
// compressed frame is a Protocol error. STARTUP is never compressed (§5).
func DecompressFrame(f Frame, c Compressor, maxBody int) (Frame, error) {
	if f.Header.Flags&FlagCompression == 0 {
		return f, nil
	}
	if c == nil || f.Header.Opcode == OpStartup {
		return Frame{}, errUnexpectedCompression()
	}
	body, err := c.Decompress(nil, f.Body, maxBody)
	if err != nil {
		return Frame{}, cqlerr.Protocolf("Cannot decompress frame body: %v", err)
	}
	if len(body) > maxBody {
		return Frame{}, (&FrameSizeError{Stream: f.Header.Stream, Opcode: f.Header.Opcode, Length: int32(min(len(body), 1<<31-1)), MaxBody: maxBody}).Err()
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
