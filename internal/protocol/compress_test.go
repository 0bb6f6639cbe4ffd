package protocol

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/golang/snappy"
	"github.com/pierrec/lz4/v4"
)

// reverser is a toy Compressor: it reverses the body, which is enough to
// tell compressed from plain bytes.
type reverser struct{ fail bool }

func (reverser) Name() string { return "reverse" }

func (c reverser) Compress(dst, src []byte) ([]byte, error) {
	if c.fail {
		return dst, errors.New("cannot")
	}
	for i := len(src) - 1; i >= 0; i-- {
		dst = append(dst, src[i])
	}
	return dst, nil
}

func (c reverser) Decompress(dst, src []byte, maxSize int) ([]byte, error) {
	if len(src) > maxSize {
		return nil, errors.New("too big")
	}
	return c.Compress(dst, src)
}

// inflater is a Compressor that ignores its size limit, to check that
// DecompressFrame enforces it anyway.
type inflater struct{ reverser }

func (inflater) Decompress(dst, src []byte, _ int) ([]byte, error) {
	return append(dst, make([]byte, 100)...), nil
}

func TestCompression(t *testing.T) {
	plain := EncodeResponse(nil, 3, &SetKeyspaceResult{Keyspace: "ks"}, nil, nil)
	compressed, err := CompressFrame(nil, plain, reverser{})
	if err != nil {
		t.Fatal(err)
	}
	f := readOne(t, compressed)
	if f.Header.Flags != FlagCompression || f.Header.Stream != 3 || int(f.Header.Length) != len(plain)-HeaderSize {
		t.Fatalf("header %+v", f.Header)
	}
	if _, _, err := DecodeResponse(f); err == nil {
		t.Fatal("compressed body decoded without decompression")
	}
	back, err := DecompressFrame(f, reverser{}, DefaultMaxBody)
	if err != nil || !bytes.Equal(back.Body, plain[HeaderSize:]) || back.Header.Flags != 0 {
		t.Fatalf("got %+v %v", back, err)
	}

	t.Run("uncompressed frames pass", func(t *testing.T) {
		f := readOne(t, plain)
		if got, err := DecompressFrame(f, nil, 10); err != nil || !bytes.Equal(got.Body, f.Body) {
			t.Fatal(err)
		}
	})
	t.Run("not negotiated", func(t *testing.T) {
		_, err := DecompressFrame(f, nil, DefaultMaxBody)
		wantProtocolError(t, err, "no compression was negotiated")
	})
	t.Run("startup is never compressed", func(t *testing.T) {
		_, err := DecompressFrame(Frame{Header: Header{Version: 4, Flags: FlagCompression, Opcode: OpStartup}}, reverser{}, 100)
		wantProtocolError(t, err, "no compression was negotiated")
	})
	t.Run("decompression fails", func(t *testing.T) {
		_, err := DecompressFrame(f, reverser{}, 1)
		wantProtocolError(t, err, "too big")
	})
	t.Run("decompressed body over the limit", func(t *testing.T) {
		_, err := DecompressFrame(f, inflater{}, 10)
		wantProtocolError(t, err, "Request is too big")
	})
	t.Run("compression fails", func(t *testing.T) {
		if out, err := CompressFrame([]byte{1}, plain, reverser{fail: true}); err == nil || !bytes.Equal(out, []byte{1}) {
			t.Fatalf("got %x %v", out, err)
		}
		if _, err := CompressFrame(nil, plain[:3], reverser{}); err == nil {
			t.Fatal("headerless frame accepted")
		}
	})
}

func TestNewCompressor(t *testing.T) {
	for _, name := range []string{"lz4", "LZ4", "snappy", "Snappy"} {
		c, ok := NewCompressor(name)
		if !ok || !strings.EqualFold(c.Name(), name) {
			t.Errorf("NewCompressor(%q) = %v, %v", name, c, ok)
		}
	}
	for _, name := range []string{"", "deflate", "zstd"} {
		if _, ok := NewCompressor(name); ok {
			t.Errorf("NewCompressor(%q) accepted", name)
		}
	}
}

// compressible is a body that compresses well, as result rows do.
func compressible(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "row %d: some text value,", i%1000)
	}
	return b.Bytes()[:n]
}

// incompressible is n pseudo-random bytes.
func incompressible(n int) []byte {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

func TestFrameCompressors(t *testing.T) {
	bodies := map[string][]byte{
		"empty":    {},
		"one byte": {7},
		"text":     compressible(100 << 10),
		"random":   incompressible(70 << 10),
		"zeros":    make([]byte, 4<<20),
		"zeros 1k": make([]byte, 1000),
	}
	for _, name := range SupportedCompressions {
		for what, body := range bodies {
			t.Run(name+"/"+what, func(t *testing.T) {
				c, _ := NewCompressor(name)
				z, err := c.Compress([]byte("prefix"), body)
				if err != nil || string(z[:6]) != "prefix" {
					t.Fatalf("Compress: %v", err)
				}
				back, err := c.Decompress([]byte("x"), z[6:], len(body))
				if err != nil || string(back[:1]) != "x" || !bytes.Equal(back[1:], body) {
					t.Fatalf("Decompress: %v (%d bytes back of %d)", err, len(back)-1, len(body))
				}
				if len(body) > 0 {
					if _, err := c.Decompress(nil, z[6:], len(body)-1); err == nil {
						t.Fatal("decompressed past maxSize")
					}
				}
			})
		}
	}
	text := compressible(100 << 10)
	if z, _ := (LZ4Compressor{}).Compress(nil, text); len(z) > len(text)/3 {
		t.Errorf("lz4 left %d of %d bytes", len(z), len(text))
	}
}

// TestLZ4Framing pins the v4 layout: a big-endian uncompressed length,
// then the block.
func TestLZ4Framing(t *testing.T) {
	body := compressible(1000)
	z, _ := (LZ4Compressor{}).Compress(nil, body)
	if got := binary.BigEndian.Uint32(z); got != 1000 {
		t.Fatalf("length prefix %d", got)
	}
	out := make([]byte, 1000)
	if n, err := lz4.UncompressBlock(z[4:], out); err != nil || n != 1000 || !bytes.Equal(out, body) {
		t.Fatalf("block: %d %v", n, err)
	}
	if s, _ := (SnappyCompressor{}).Compress(nil, body); !bytes.Equal(mustSnappy(t, s), body) {
		t.Fatal("snappy body is not a raw Snappy block")
	}
}

func mustSnappy(t *testing.T, b []byte) []byte {
	t.Helper()
	out, err := snappy.Decode(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDecompressionErrors: corrupt bodies are Protocol errors with
// Cassandra's texts, and a declared size over the limit is refused before
// any allocation.
func TestDecompressionErrors(t *testing.T) {
	huge := binary.BigEndian.AppendUint32(nil, 1<<31)
	tests := []struct {
		name, comp string
		body       []byte
		want       string
	}{
		{"lz4 short", "lz4", []byte{0, 0}, "shorter than its length prefix"},
		{"lz4 garbage", "lz4", []byte{0, 0, 0, 10, 0xff, 0xff, 0xff}, "Compressed lengths mismatch"},
		{"lz4 declares more than it holds", "lz4", append(binary.BigEndian.AppendUint32(nil, 100), 0x10, 'a'), "Compressed lengths mismatch"},
		{"lz4 declares 2 GiB", "lz4", append(huge, 0), "Request is too big: length 2147483656 exceeds maximum allowed length 268435456."},
		{"snappy garbage", "snappy", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, "Provided frame does not appear to be Snappy compressed"},
		{"snappy truncated", "snappy", []byte{10, 0x24, 'a'}, "Provided frame does not appear to be Snappy compressed"},
		{"snappy declares 1 GiB", "snappy", []byte{0x80, 0x80, 0x80, 0x80, 0x04, 0}, "Request is too big"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := NewCompressor(tt.comp)
			f := Frame{Header: Header{Version: 4, Flags: FlagCompression, Stream: 5, Opcode: OpQuery, Length: int32(len(tt.body))}, Body: tt.body}
			var allocs float64
			allocs = testing.AllocsPerRun(1, func() {
				_, err := DecompressFrame(f, c, 256<<20-HeaderSize)
				wantProtocolError(t, err, tt.want)
			})
			if allocs > 20 {
				t.Errorf("%v allocations", allocs)
			}
		})
	}
}

// TestCompressedFrameRoundTrip compresses a whole response frame and
// reads it back as a client would.
func TestCompressedFrameRoundTrip(t *testing.T) {
	for _, name := range SupportedCompressions {
		c, _ := NewCompressor(name)
		plain := EncodeResponse(nil, 9, &SetKeyspaceResult{Keyspace: string(compressible(5000))}, nil, nil)
		z, err := CompressFrame(nil, plain, c)
		if err != nil {
			t.Fatal(err)
		}
		if len(z) >= len(plain) {
			t.Errorf("%s: %d bytes compressed from %d", name, len(z), len(plain))
		}
		f, err := DecompressFrame(readOne(t, z), c, DefaultMaxBody)
		if err != nil || !bytes.Equal(EncodeResponse(nil, 9, &SetKeyspaceResult{Keyspace: string(compressible(5000))}, nil, nil)[HeaderSize:], f.Body) {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// fuzzDecompressor checks a decompressor on arbitrary bodies: no panic,
// never more than the limit, and what it accepts compresses back to the
// same bytes.
func fuzzDecompressor(f *testing.F, name string) {
	c, _ := NewCompressor(name)
	for _, body := range [][]byte{{}, {1}, compressible(300), []byte("hello hello hello hello")} {
		z, _ := c.Compress(nil, body)
		f.Add(z)
	}
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		const limit = 1 << 16
		out, err := c.Decompress(nil, data, limit)
		if err != nil {
			return
		}
		if len(out) > limit {
			t.Fatalf("%d bytes out, limit %d", len(out), limit)
		}
		z, err := c.Compress(nil, out)
		if err != nil {
			t.Fatal(err)
		}
		back, err := c.Decompress(nil, z, limit)
		if err != nil || !bytes.Equal(back, out) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// TestDecompressionAllocatesOnlyWhatTheBodyCanHold: a tiny body that
// declares a large size within the limit is refused without allocating
// that size.
func TestDecompressionAllocatesOnlyWhatTheBodyCanHold(t *testing.T) {
	bodies := map[string][]byte{
		"lz4":    append(binary.BigEndian.AppendUint32(nil, 15<<20), 0xf0, 0xff, 0xff),
		"snappy": {0x80, 0x80, 0xc0, 0x07, 0x00, 0x01},
	}
	for name, body := range bodies {
		c, _ := NewCompressor(name)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := c.Decompress(nil, body, DefaultMaxBody)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
			t.Errorf("%s: %d bytes allocated for a %d-byte body", name, grew, len(body))
		}
	}
}

func FuzzLZ4Decompress(f *testing.F)    { fuzzDecompressor(f, CompressionLZ4) }
func FuzzSnappyDecompress(f *testing.F) { fuzzDecompressor(f, CompressionSnappy) }

// BenchmarkFrameCompression compresses and decompresses a 1 MiB body of
// result-like text with each compression.
func BenchmarkFrameCompression(b *testing.B) {
	body := compressible(1 << 20)
	for _, name := range SupportedCompressions {
		c, _ := NewCompressor(name)
		z, _ := c.Compress(nil, body)
		b.Run(name+"/compress", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportMetric(float64(len(z))/float64(len(body)), "ratio")
			var dst []byte
			for range b.N {
				dst, _ = c.Compress(dst[:0], body)
			}
		})
		b.Run(name+"/decompress", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			var dst []byte
			for range b.N {
				dst, _ = c.Decompress(dst[:0], z, len(body))
			}
		})
	}
}
