package token

import (
	"bytes"
	"cmp"
	"errors"
	"math"
	"testing"

	"github.com/partita-db/partita/internal/cqlerr"
	"pgregory.net/rapid"
)

func TestOfEmptyKeyIsMinToken(t *testing.T) {
	for _, key := range [][]byte{nil, {}} {
		if got := Of(key); got != MinToken {
			t.Errorf("Of(%#v) = %d, want MinToken", key, got)
		}
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct {
		hash int64
		want Token
	}{
		{math.MinInt64, MaxToken},
		{math.MinInt64 + 1, MinToken + 1},
		{math.MaxInt64, MaxToken},
		{0, 0},
		{-1, -1},
	}
	for _, tc := range tests {
		t.Run(Token(tc.hash).String(), func(t *testing.T) {
			if got := normalize(tc.hash); got != tc.want {
				t.Errorf("normalize(%d) = %d, want %d", tc.hash, got, tc.want)
			}
		})
	}
}

func TestStringParse(t *testing.T) {
	tests := []struct {
		in      string
		want    Token
		wantErr bool
	}{
		{in: "0", want: 0},
		{in: "-9223372036854775808", want: MinToken},
		{in: "9223372036854775807", want: MaxToken},
		{in: "-7468325962851647638", want: -7468325962851647638},
		{in: "+42", want: 42}, // Long.parseLong accepts a leading plus
		{in: "", wantErr: true},
		{in: "9223372036854775808", wantErr: true},
		{in: "-9223372036854775809", wantErr: true},
		{in: " 1", wantErr: true},
		{in: "1_000", wantErr: true},
		{in: "0x10", wantErr: true},
		{in: "1.0", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := Parse(tc.in)
			if tc.wantErr {
				var cerr *cqlerr.Error
				if !errors.As(err, &cerr) || cerr.Code != cqlerr.Invalid {
					t.Fatalf("Parse(%q) error = %v, want an Invalid error", tc.in, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Parse(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestStringParseRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tok := Token(rapid.Int64().Draw(t, "token"))
		back, err := Parse(tok.String())
		if err != nil || back != tok {
			t.Fatalf("Parse(%q) = %d, %v", tok.String(), back, err)
		}
	})
}

func TestOrderedEncoding(t *testing.T) {
	tests := []struct {
		tok  Token
		want []byte
	}{
		{MinToken, []byte{0, 0, 0, 0, 0, 0, 0, 0}},
		{-1, []byte{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{0, []byte{0x80, 0, 0, 0, 0, 0, 0, 0}},
		{1, []byte{0x80, 0, 0, 0, 0, 0, 0, 1}},
		{MaxToken, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
	}
	for _, tc := range tests {
		t.Run(tc.tok.String(), func(t *testing.T) {
			prefix := []byte("p")
			got := AppendOrdered(prefix, tc.tok)
			if !bytes.Equal(got[1:], tc.want) || got[0] != 'p' {
				t.Fatalf("AppendOrdered = %x, want 70%x", got, tc.want)
			}
			back, err := DecodeOrdered(append(got[1:], "rest of key"...))
			if err != nil || back != tc.tok {
				t.Fatalf("DecodeOrdered = %d, %v; want %d", back, err, tc.tok)
			}
		})
	}
}

func TestDecodeOrderedShort(t *testing.T) {
	for n := range OrderedLen {
		if _, err := DecodeOrdered(make([]byte, n)); err == nil {
			t.Errorf("DecodeOrdered of %d bytes: no error", n)
		}
	}
}

// TestOrderedEncodingMonotonic checks invariant 4: byte order of encodings
// equals signed order of tokens, and decoding inverts encoding.
func TestOrderedEncodingMonotonic(t *testing.T) {
	token := rapid.Custom(func(t *rapid.T) Token {
		// Mix arbitrary values with the extremes and their neighbours,
		// where a sign-handling bug would show.
		return Token(rapid.OneOf(
			rapid.Int64(),
			rapid.SampledFrom([]int64{math.MinInt64, math.MinInt64 + 1, -1, 0, 1, math.MaxInt64 - 1, math.MaxInt64}),
		).Draw(t, "v"))
	})
	rapid.Check(t, func(t *rapid.T) {
		a, b := token.Draw(t, "a"), token.Draw(t, "b")
		ea, eb := AppendOrdered(nil, a), AppendOrdered(nil, b)
		if got, want := bytes.Compare(ea, eb), cmp.Compare(a, b); got != want {
			t.Fatalf("bytes.Compare(%x, %x) = %d, cmp.Compare(%d, %d) = %d", ea, eb, got, a, b, want)
		}
		if back, err := DecodeOrdered(ea); err != nil || back != a {
			t.Fatalf("DecodeOrdered(%x) = %d, %v; want %d", ea, back, err, a)
		}
	})
}
