package protocol

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"testing"
	"testing/iotest"

	"github.com/partita-db/partita/internal/cqlerr"
)

func TestReadFrame(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		maxBody int
		check   func(t *testing.T, f Frame, err error)
	}{
		{"clean close", ``, 100, func(t *testing.T, _ Frame, err error) {
			if err != io.EOF {
				t.Fatalf("got %v, want io.EOF", err)
			}
		}},
		{"truncated header", `04 00 00`, 100, wantTruncated},
		{"truncated body", `04 00 0001 07 00000010 0000`, 100, wantTruncated},
		{"v5 is answered at once", `05`, 100, wantVersion(5)},
		{"v3", `03 00 0001 05 00000000`, 100, wantVersion(3)},
		{"python beta version", `42 00 0000 05 00000000`, 100, wantVersion(0x42)},
		// A v2 header is 8 bytes: the version must be judged on byte 0.
		{"v2 short header", `02 00 01 05 00000000`, 100, wantVersion(2)},
		{"negative length", `04 00 0007 07 ffffffff`, 100, wantSize(7, "Invalid value for envelope header body length field: -1")},
		{"too big", `04 00 0008 07 00000065`, 100, wantSize(8, "Request is too big: length 110 exceeds maximum allowed length 109.")},
		{"default limit", `04 00 0009 07 01000000`, DefaultMaxBody,
			wantSize(9, "Request is too big: length 16777225 exceeds maximum allowed length 16777216.")},
		{"at the limit", `04 00 0001 07 00000002 abcd`, 2, func(t *testing.T, f Frame, err error) {
			if err != nil || !bytes.Equal(f.Body, []byte{0xAB, 0xCD}) {
				t.Fatalf("got %v %v", f, err)
			}
		}},
		{"fields", `84 0a 8001 0c 00000001 ff`, 100, func(t *testing.T, f Frame, err error) {
			want := Header{Version: 4, Response: true, Flags: 0x0A, Stream: -32767, Opcode: OpEvent, Length: 1}
			if err != nil || f.Header != want || !bytes.Equal(f.Body, []byte{0xFF}) {
				t.Fatalf("got %+v %x %v", f.Header, f.Body, err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ReadFrame(bufio.NewReader(bytes.NewReader(unhex(t, tc.in))), tc.maxBody)
			tc.check(t, f, err)
		})
	}
	t.Run("one byte at a time", func(t *testing.T) {
		in := slicesConcat(AppendRequest(nil, 1, &Options{}), AppendRequest(nil, 2, &Prepare{Query: "SELECT 1"}))
		r := bufio.NewReader(iotest.OneByteReader(bytes.NewReader(in)))
		for _, stream := range []int16{1, 2} {
			f, err := ReadFrame(r, 100)
			if err != nil || f.Header.Stream != stream {
				t.Fatalf("got %+v %v", f.Header, err)
			}
		}
		if _, err := ReadFrame(r, 100); err != io.EOF {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("network errors pass through", func(t *testing.T) {
		boom := errors.New("boom")
		r := bufio.NewReader(io.MultiReader(bytes.NewReader([]byte{4, 0}), iotest.ErrReader(boom)))
		if _, err := ReadFrame(r, 100); err != boom {
			t.Fatalf("got %v", err)
		}
	})
}

func slicesConcat(a, b []byte) []byte { return append(append([]byte(nil), a...), b...) }

func wantTruncated(t *testing.T, _ Frame, err error) {
	t.Helper()
	if !errors.Is(err, ErrTruncatedFrame) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("got %v, want ErrTruncatedFrame", err)
	}
}

func wantVersion(v byte) func(*testing.T, Frame, error) {
	return func(t *testing.T, _ Frame, err error) {
		t.Helper()
		var ve *UnsupportedVersionError
		if !errors.As(err, &ve) || ve.Version != v {
			t.Fatalf("got %v, want version %d", err, v)
		}
		if ve.Err().Code != cqlerr.ProtocolError || !bytes.Equal(ve.AppendReply(nil), AppendVersionError(nil, v)) {
			t.Fatalf("bad reply for %v", ve)
		}
	}
}

func wantSize(stream int16, msg string) func(*testing.T, Frame, error) {
	return func(t *testing.T, _ Frame, err error) {
		t.Helper()
		var se *FrameSizeError
		if !errors.As(err, &se) || se.Stream != stream || se.Opcode != OpQuery {
			t.Fatalf("got %v, want a FrameSizeError on stream %d", err, stream)
		}
		if e := se.Err(); e.Code != cqlerr.ProtocolError || e.Message != msg {
			t.Fatalf("got %v, want %q", e, msg)
		}
	}
}

func TestAppendFrame(t *testing.T) {
	// The length field always follows the body, whatever the header says.
	got := AppendFrame([]byte{0xEE}, Header{Version: 4, Response: true, Flags: FlagWarning, Stream: -1, Opcode: OpEvent, Length: 99}, []byte{1, 2})
	if want := unhex(t, `ee 84 08 ffff 0c 00000002 0102`); !bytes.Equal(got, want) {
		t.Fatalf("got %x want %x", got, want)
	}
	if got := AppendFrame(nil, Header{Version: 0x84}, nil); got[0] != 0x04 {
		t.Fatalf("direction bit leaked from Version: %x", got)
	}
}

func TestOpcodeString(t *testing.T) {
	for op, want := range map[Opcode]string{OpQuery: "QUERY", OpAuthSuccess: "AUTH_SUCCESS", 4: "Opcode(0x04)", 0x20: "Opcode(0x20)"} {
		if op.String() != want {
			t.Errorf("%d: got %s want %s", byte(op), op, want)
		}
	}
}

// TestReadBodyTakesMemoryAsBytesArrive: a header announcing the largest
// body, followed by a few bytes and a close, costs about one chunk, not the
// announced 16 MiB.
func TestReadBodyTakesMemoryAsBytesArrive(t *testing.T) {
	in := append(unhex(t, `04 00 0001 07 00fffff7`), "a few bytes"...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadFrame(bufio.NewReader(bytes.NewReader(in)), DefaultMaxBody)
	runtime.ReadMemStats(&after)
	wantTruncated(t, Frame{}, err)
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 2*bodyChunk {
		t.Fatalf("reading %d bytes of an announced %d allocated %d bytes", len(in), DefaultMaxBody, allocated)
	}
}

func TestReadBody(t *testing.T) {
	large := bytes.Repeat([]byte("0123456789abcdef"), (3*bodyChunk+123)/16)
	for _, size := range []int{0, 1, bodyChunk - 1, bodyChunk, bodyChunk + 1, len(large)} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			body := large[:size]
			in := AppendFrame(nil, Header{Version: 4, Stream: 3, Opcode: OpQuery}, body)
			in = AppendFrame(in, Header{Version: 4, Stream: 4, Opcode: OpOptions}, nil)
			r := bufio.NewReader(iotest.HalfReader(bytes.NewReader(in)))
			h, err := ReadHeader(r, DefaultMaxBody)
			if err != nil {
				t.Fatal(err)
			}
			taken := 0
			got, err := ReadBody(r, h, func(n int) error {
				if n > bodyChunk {
					t.Errorf("took %d bytes at once, more than a chunk", n)
				}
				taken += n
				return nil
			})
			if err != nil || !bytes.Equal(got, body) || got == nil {
				t.Fatalf("read %d bytes (%v), want %d", len(got), err, size)
			}
			if taken != size {
				t.Errorf("took %d bytes for a body of %d", taken, size)
			}
			// The next frame follows.
			if f, err := ReadFrame(r, DefaultMaxBody); err != nil || f.Header.Stream != 4 {
				t.Fatalf("next frame: %+v %v", f.Header, err)
			}
		})
	}
	t.Run("refused", func(t *testing.T) {
		// A refusal, at the first chunk or a later one, skips the rest of
		// the body: the next frame is read as usual.
		for _, refuseAt := range []int{1, 3} {
			in := AppendFrame(nil, Header{Version: 4, Stream: 3, Opcode: OpQuery}, large)
			in = AppendFrame(in, Header{Version: 4, Stream: 4, Opcode: OpOptions}, nil)
			r := bufio.NewReader(iotest.OneByteReader(bytes.NewReader(in)))
			h, err := ReadHeader(r, DefaultMaxBody)
			if err != nil {
				t.Fatal(err)
			}
			no := errors.New("no room")
			calls := 0
			_, err = ReadBody(r, h, func(int) error {
				if calls++; calls == refuseAt {
					return no
				}
				return nil
			})
			if err != no {
				t.Fatalf("refused at call %d: got %v", refuseAt, err)
			}
			if f, err := ReadFrame(r, DefaultMaxBody); err != nil || f.Header.Stream != 4 {
				t.Fatalf("next frame after a refusal at call %d: %+v %v", refuseAt, f.Header, err)
			}
		}
	})
	t.Run("refused and cut", func(t *testing.T) {
		in := unhex(t, `04 00 0001 07 00100000 0102`)
		h, err := ReadHeader(bufio.NewReader(bytes.NewReader(in)), DefaultMaxBody)
		if err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(bytes.NewReader(in[HeaderSize:]))
		_, err = ReadBody(r, h, func(int) error { return errors.New("no room") })
		wantTruncated(t, Frame{}, err)
	})
}
