package protocol

import (
	"bytes"
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/types"
)

func TestTypeOption(t *testing.T) {
	address := types.UDTOf("ks", "address", []string{"street", "zip"}, []*types.Type{types.Text, types.Int})
	cases := []struct {
		name string
		typ  *types.Type
		want string // hex of the [option]
	}{
		{"int", types.Int, `0009`},
		{"text", types.Text, `000d`},
		{"ascii", types.Ascii, `0001`},
		{"timeuuid", types.Timeuuid, `000f`},
		{"smallint", types.Smallint, `0013`},
		{"tinyint", types.Tinyint, `0014`},
		{"date", types.Date, `0011`},
		{"time", types.Time, `0012`},
		{"counter", types.Counter, `0005`},
		{"list<int>", types.ListOf(types.Int), `0020 0009`},
		{"set<text>", types.SetOf(types.Text), `0022 000d`},
		{"map<uuid, blob>", types.MapOf(types.UUID, types.Blob), `0021 000c 0003`},
		{"tuple<int, text>", types.TupleOf(types.Int, types.Text), `0031 0002 0009 000d`},
		{"udt", address, `0030 0002 6b73 0007 61646472657373 0002 0006 737472656574 000d 0003 7a6970 0009`},
		{"custom", types.CustomOf("com.example.Foo"), `0000 000f 636f6d2e6578616d706c652e466f6f`},
		{"list<frozen<list<int>>>", types.ListOf(types.Frozen(types.ListOf(types.Int))), `0020 0020 0009`},
		{"map<text, frozen<address>>", types.MapOf(types.Text, types.Frozen(address)),
			`0021 000d 0030 0002 6b73 0007 61646472657373 0002 0006 737472656574 000d 0003 7a6970 0009`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := AppendTypeOption(nil, tc.typ)
			if !bytes.Equal(got, unhex(t, tc.want)) {
				t.Fatalf("encode: got %x want %s", got, tc.want)
			}
			back, n, err := DecodeTypeOption(append(got, 0xFF)) // trailing byte must be left alone
			if err != nil || n != len(got) {
				t.Fatalf("decode: %v, n=%d", err, n)
			}
			if !back.Equal(tc.typ) {
				t.Fatalf("decode: got %s want %s", back, tc.typ)
			}
		})
	}
	t.Run("duration is custom on v4", func(t *testing.T) {
		got := AppendTypeOption(nil, types.Duration)
		want := append(unhex(t, `0000 002c`), DurationClass...)
		if !bytes.Equal(got, want) {
			t.Fatalf("got %x want %x", got, want)
		}
		if back, _, err := DecodeTypeOption(got); err != nil || back != types.Duration {
			t.Fatalf("got %v %v", back, err)
		}
		if back, _, err := DecodeTypeOption(unhex(t, `0015`)); err != nil || back != types.Duration {
			t.Fatalf("0x0015: got %v %v", back, err)
		}
	})
	t.Run("frozen is not on the wire", func(t *testing.T) {
		back, _, err := DecodeTypeOption(AppendTypeOption(nil, types.Frozen(types.SetOf(types.Int))))
		if err != nil || !back.Equal(types.SetOf(types.Int)) {
			t.Fatalf("got %v %v", back, err)
		}
	})
	t.Run("malformed types stay well formed", func(t *testing.T) {
		for _, bad := range []*types.Type{nil, {Kind: types.KindList}, {Kind: types.KindMap, Elems: []*types.Type{types.Int}}} {
			if got := AppendTypeOption(nil, bad); !bytes.Equal(got, unhex(t, `0003`)) {
				t.Fatalf("got %x", got)
			}
		}
	})
	errs := []struct{ name, in, want string }{
		{"unknown id", `000a`, "Unknown type option id 0x000A"},
		{"unknown high id", `0040`, "Unknown type option id 0x0040"},
		{"list without element", `0020`, "Not enough bytes"},
		{"udt without fields", `0030 0002 6b73 0001 61 0005`, "Not enough bytes"},
		{"too deep", strings.Repeat("0020 ", maxTypeDepth+2) + "0009", "nested more than"},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := DecodeTypeOption(unhex(t, tc.in))
			wantProtocolError(t, err, tc.want)
		})
	}
}
