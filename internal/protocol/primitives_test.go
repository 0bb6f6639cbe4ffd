package protocol

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestPrimitives drives encode and decode of each §3 primitive from one
// table: the value, its bytes, and how to read it back.
func TestPrimitives(t *testing.T) {
	cases := []struct {
		name   string
		encode func([]byte) []byte
		want   string
		decode func(*reader) any
		value  any
	}{
		{"int", func(b []byte) []byte { return appendInt(b, -2) }, `fffffffe`,
			func(r *reader) any { return r.readInt("") }, int32(-2)},
		{"long", func(b []byte) []byte { return appendLong(b, 1<<40) }, `0000010000000000`,
			func(r *reader) any { return r.readLong("") }, int64(1 << 40)},
		{"short", func(b []byte) []byte { return appendShort(b, 0xFFFE) }, `fffe`,
			func(r *reader) any { return r.readShort("") }, uint16(0xFFFE)},
		{"string", func(b []byte) []byte { return appendString(b, "hé") }, `0003 68c3a9`,
			func(r *reader) any { return r.readString("") }, "hé"},
		{"empty string", func(b []byte) []byte { return appendString(b, "") }, `0000`,
			func(r *reader) any { return r.readString("") }, ""},
		{"long string", func(b []byte) []byte { return appendLongString(b, "ab") }, `00000002 6162`,
			func(r *reader) any { return r.readLongString("") }, "ab"},
		{"bytes", func(b []byte) []byte { return appendBytes(b, []byte{7}) }, `00000001 07`,
			func(r *reader) any { return describe(r.readBytes("")) }, "0x07"},
		{"null bytes", func(b []byte) []byte { return appendBytes(b, nil) }, `ffffffff`,
			func(r *reader) any { return describe(r.readBytes("")) }, "null"},
		{"empty bytes", func(b []byte) []byte { return appendBytes(b, []byte{}) }, `00000000`,
			func(r *reader) any { return describe(r.readBytes("")) }, "0x"},
		{"unset value", func(b []byte) []byte { return appendValue(b, Value{Unset: true}) }, `fffffffe`,
			func(r *reader) any { return describe(r.readValue("")) }, "unset"},
		{"null value", func(b []byte) []byte { return appendValue(b, Value{}) }, `ffffffff`,
			func(r *reader) any { return describe(r.readValue("")) }, "null"},
		{"empty value", func(b []byte) []byte { return appendValue(b, Value{Bytes: []byte{}}) }, `00000000`,
			func(r *reader) any { return describe(r.readValue("")) }, "0x"},
		{"short bytes", func(b []byte) []byte { return appendShortBytes(b, []byte{1, 2}) }, `0002 0102`,
			func(r *reader) any { return describe(r.readShortBytes("")) }, "0x0102"},
		{"uuid", func(b []byte) []byte { return appendUUID(b, [16]byte{15: 1}) }, `00000000000000000000000000000001`,
			func(r *reader) any { return r.readUUID("") }, [16]byte{15: 1}},
		{"string list", func(b []byte) []byte { return appendStringList(b, []string{"a", "bc"}) }, `0002 0001 61 0002 6263`,
			func(r *reader) any { return describe(r.readStringList("")) }, `["a" "bc"]`},
		{"string map", func(b []byte) []byte { return appendStringMap(b, map[string]string{"b": "2", "a": "1"}) },
			`0002 0001 61 0001 31 0001 62 0001 32`,
			func(r *reader) any { return describe(r.readStringMap("")) }, `{"a":"1" "b":"2"}`},
		{"string multimap", func(b []byte) []byte { return appendStringMultimap(b, map[string][]string{"k": {"x"}}) },
			`0001 0001 6b 0001 0001 78`,
			func(r *reader) any { return describe(r.readStringMultimap("")) }, `{"k":["x"]}`},
		{"bytes map", func(b []byte) []byte { return appendBytesMap(b, map[string][]byte{"k": {1}, "n": nil}) },
			`0002 0001 6b 00000001 01 0001 6e ffffffff`,
			func(r *reader) any { return describe(r.readBytesMap("")) }, `{"k":0x01 "n":null}`},
		{"inet4", func(b []byte) []byte { return appendInet(b, netip.MustParseAddrPort("1.2.3.4:9042")) }, `04 01020304 00002352`,
			func(r *reader) any { return r.readInet("") }, netip.MustParseAddrPort("1.2.3.4:9042")},
		{"inet6", func(b []byte) []byte { return appendInet(b, netip.MustParseAddrPort("[::1]:1")) },
			`10 00000000000000000000000000000001 00000001`,
			func(r *reader) any { return r.readInet("") }, netip.MustParseAddrPort("[::1]:1")},
		{"consistency", func(b []byte) []byte { return appendConsistency(b, LocalOne) }, `000a`,
			func(r *reader) any { return r.readConsistency("") }, LocalOne},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := unhex(t, tc.want)
			got := tc.encode([]byte{0xEE})
			if !bytes.Equal(got[1:], want) || got[0] != 0xEE {
				t.Fatalf("encode: got %x want ee%x", got, want)
			}
			r := newReader(want)
			if v := tc.decode(r); v != tc.value {
				t.Fatalf("decode: got %v want %v", v, tc.value)
			}
			if r.err() != nil || r.remaining() != 0 {
				t.Fatalf("decode: err %v, %d bytes left", r.err(), r.remaining())
			}
			for n := range len(want) {
				r := newReader(want[:n:n])
				tc.decode(r)
				wantProtocolError(t, r.err(), "")
			}
		})
	}
}

func TestPrimitiveErrors(t *testing.T) {
	cases := []struct {
		name string
		in   string
		read func(*reader)
		want string
	}{
		{"short int", `0102`, func(r *reader) { r.readInt("the count") }, "Not enough bytes to read the count (need 4, have 2)"},
		{"value -3", `fffffffd`, func(r *reader) { r.readValue("") }, "Invalid ByteBuf length -3"},
		{"bad utf8", `0001 ff`, func(r *reader) { r.readString("name") }, "Cannot decode string as UTF8"},
		{"consistency 11", `000b`, func(r *reader) { r.readConsistency("") }, "Unknown code 11 for a consistency level"},
		{"inet size 0", `00 00000000`, func(r *reader) { r.readInet("addr") }, "Invalid IP address size 0"},
		{"negative port", `04 01020304 ffffffff`, func(r *reader) { r.readInet("addr") }, "Invalid port -1"},
		{"first error sticks", `0001`, func(r *reader) { r.readInt("first"); r.readShort("second") }, "read first"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newReader(unhex(t, tc.in))
			tc.read(r)
			wantProtocolError(t, r.err(), tc.want)
		})
	}
}

func TestEncodersClamp(t *testing.T) {
	t.Run("long string is cut at a rune boundary", func(t *testing.T) {
		s := strings.Repeat("é", 40000) // 80000 bytes
		b := appendString(nil, s)
		r := newReader(b)
		got := r.readString("")
		if r.err() != nil || len(got) != 65534 || !utf8.ValidString(got) {
			t.Fatalf("got %d bytes, %v", len(got), r.err())
		}
	})
	t.Run("long short bytes", func(t *testing.T) {
		b := appendShortBytes(nil, make([]byte, 70000))
		if len(b) != 2+maxShort || b[0] != 0xFF || b[1] != 0xFF {
			t.Fatalf("got %d bytes", len(b))
		}
	})
	t.Run("invalid inet", func(t *testing.T) {
		if got := appendInet(nil, netip.AddrPort{}); !bytes.Equal(got, unhex(t, `04 00000000 00000000`)) {
			t.Fatalf("got %x", got)
		}
	})
}

func TestConsistencyString(t *testing.T) {
	if LocalQuorum.String() != "LOCAL_QUORUM" || Consistency(11).String() != "Consistency(11)" || !LocalSerial.IsSerial() || One.IsSerial() {
		t.Fatal("consistency names")
	}
}
