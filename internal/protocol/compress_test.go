package protocol

import (
	"bytes"
	"errors"
	"testing"
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
		wantProtocolError(t, err, "Cannot decompress frame body")
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
