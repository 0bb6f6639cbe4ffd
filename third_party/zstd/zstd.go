// Package zstd stands in for github.com/DataDog/zstd (a cgo binding of the
// C library) in Partita's builds: the main module's go.mod replaces that
// module with this directory. Pebble imports the binding whenever cgo is
// on, and compiling its C sources cost 67 s of the 70 s a fresh build of
// the server took (docs/performance.md, "Build cost"), while Partita writes
// only Snappy-compressed tables and never runs it. This package provides
// the part of the binding's API that Pebble uses, on the pure-Go encoder
// and decoder Pebble itself uses when built without cgo
// (github.com/klauspost/compress/zstd), so a table compressed with zstd
// still reads and writes correctly.
package zstd

import (
	"errors"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// CompressBound is the largest compressed size of srcSize bytes: zstd's
// ZSTD_COMPRESSBOUND (lib/zstd.h), which bounds any valid encoder's output,
// raw blocks included.
func CompressBound(srcSize int) int {
	const blockSize = 128 << 10
	bound := srcSize + srcSize>>8
	if srcSize < blockSize {
		bound += (blockSize - srcSize) >> 11
	}
	return bound
}

// Ctx compresses and decompresses; one Ctx serves one goroutine at a time,
// as the binding's does.
type Ctx interface {
	// CompressLevel compresses src at level into dst's storage, and
	// returns the compressed bytes, which start at dst[0] when dst has
	// the capacity CompressBound asks for.
	CompressLevel(dst, src []byte, level int) ([]byte, error)
	// DecompressInto decompresses src into dst, which must be large
	// enough, and returns the decompressed length.
	DecompressInto(dst, src []byte) (int, error)
}

// NewCtx returns a Ctx; its encoders and decoder are made on first use.
func NewCtx() Ctx { return &ctx{} }

type ctx struct {
	once     sync.Once
	dec      *zstd.Decoder
	decErr   error
	encoders map[int]*zstd.Encoder
}

func (c *ctx) encoder(level int) (*zstd.Encoder, error) {
	if e, ok := c.encoders[level]; ok {
		return e, nil
	}
	e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level)), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	if c.encoders == nil {
		c.encoders = map[int]*zstd.Encoder{}
	}
	c.encoders[level] = e
	return e, nil
}

func (c *ctx) CompressLevel(dst, src []byte, level int) ([]byte, error) {
	e, err := c.encoder(level)
	if err != nil {
		return nil, err
	}
	return e.EncodeAll(src, dst[:0]), nil
}

var errShortDst = errors.New("zstd: destination buffer too small")

func (c *ctx) DecompressInto(dst, src []byte) (int, error) {
	c.once.Do(func() { c.dec, c.decErr = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1)) })
	if c.decErr != nil {
		return 0, c.decErr
	}
	out, err := c.dec.DecodeAll(src, dst[:0])
	if err != nil {
		return 0, err
	}
	if len(out) > 0 && (len(out) > len(dst) || &out[0] != &dst[0]) {
		return 0, errShortDst
	}
	return len(out), nil
}
