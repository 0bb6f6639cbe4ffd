package types

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

func h(s string) []byte {
	switch s {
	case "null":
		return nil
	case "empty":
		return []byte{}
	}
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		panic(err)
	}
	return b
}

// TestCompare checks orderings that follow Cassandra's comparators
// (db/marshal/*Type.java); each row lists values in ascending order, and
// values in one group compare equal.
func TestCompare(t *testing.T) {
	tests := []struct {
		name   string
		typ    *Type
		groups [][]string // ascending; values within a group are equal
	}{
		{"int", Int, [][]string{{"null"}, {"empty"}, {"80000000"}, {"ffffffff"}, {"00000000"}, {"00000001"}, {"7fffffff"}}},
		{"tinyint", Tinyint, [][]string{{"80"}, {"ff"}, {"00"}, {"7f"}}},
		{"timestamp", Timestamp, [][]string{{"empty"}, {"ffffffffffffffff"}, {"0000000000000000"}, {"0000000000000001"}}},
		{"time", Time, [][]string{{"0000000000000000"}, {"0000000000000001"}, {"ffffffffffffffff"}}},
		{"date unsigned", Date, [][]string{{"00000000"}, {"7fffffff"}, {"80000000"}, {"ffffffff"}}},
		{"boolean", Boolean, [][]string{{"empty"}, {"00"}, {"01", "02", "ff"}}},
		{"float", Float, [][]string{{"ff800000"}, {"bf800000"}, {"80000000"}, {"00000000"}, {"3f800000"}, {"7f800000"}, {"7fc00000", "7f800001", "ffc00000"}}},
		{"double", Double, [][]string{{"fff0000000000000"}, {"8000000000000000"}, {"0000000000000000"}, {"7ff0000000000000"}, {"7ff8000000000000", "fff8000000000001"}}},
		{"varint", Varint, [][]string{{"empty"}, {"ff7f"}, {"80", "ff80"}, {"ff", "ffff"}, {"00", "0000"}, {"01", "0001"}, {"7f"}, {"0080"}, {"00ff"}, {"0100"}}},
		{"decimal", Decimal, [][]string{
			{"empty"},
			{"00000000 f6"}, // -10
			{"00000001 f1"}, // -1.5
			{"00000000 00", "00000005 00", "fffffffe 00"}, // 0 at any scale
			{"00000003 01"}, // 0.001
			{"00000002 01"}, // 0.01
			{"00000000 01", "00000001 0a", "00000002 64"}, // 1, 1.0, 1.00
			{"00000002 0095"},                // 1.49
			{"00000001 0f", "00000002 0096"}, // 1.5, 1.50
			{"fffffffd 01", "00000000 03e8"}, // 1E+3, 1000
		}},
		{"text", Text, [][]string{{"empty"}, {"00"}, {"61"}, {"6100"}, {"62"}, {"c3a9"}}},
		{"inet", Inet, [][]string{{"empty"}, {"01020304"}, {"01020304000000000000000000000000"}, {"7f000001"}}},
		{"uuid versions", UUID, [][]string{
			{"empty"},
			// version 1, ordered by timestamp (time_hi, time_mid, time_low)
			{"ffffffff ffff 1000 8000 000000000000"},
			{"00000000 0000 1001 8000 000000000000"},
			{"00000000 0000 1001 8000 000000000001"},
			{"00000000 0000 1001 8080 000000000000"}, // low half unsigned
			// version 4 sorts after version 1, by the high half unsigned
			{"00000000 0000 4000 8000 000000000000"},
			{"80000000 0000 4000 8000 000000000000"},
		}},
		{"timeuuid", Timeuuid, [][]string{
			{"empty"},
			{"ffffffff ffff 1000 8000 000000000000"},
			{"00000000 0000 1001 8000 000000000000"}, // low half as signed bytes: 0x80 < 0x7f
			{"00000000 0000 1001 7f00 000000000000"},
			{"00000000 0000 1001 7f00 000000000001"},
		}},
		{"list", Frozen(ListOf(Int)), [][]string{
			{"empty"},
			{"00000000"},
			{"00000001 00000004 00000001"},
			{"00000002 00000004 00000001 00000004 00000002"},
			{"00000001 00000004 00000002"},
		}},
		{"map", Frozen(MapOf(Int, Int)), [][]string{
			{"00000001 00000004 00000001 00000004 00000002"},
			{"00000001 00000004 00000001 00000004 00000003"},
			{"00000001 00000004 00000002 00000004 00000000"},
		}},
		{"tuple", TupleOf(Int, Text), [][]string{
			{"empty"},
			{"ffffffff"},
			{"00000004 00000001", "00000004 00000001 ffffffff"},
			{"00000004 00000001 00000000"},
			{"00000004 00000001 00000001 61"},
			{"00000004 00000002"},
		}},
		{"malformed after valid", Int, [][]string{{"7fffffff"}, {"00"}, {"000000"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var all [][]byte
			var group []int
			for g, vals := range tt.groups {
				for _, s := range vals {
					all = append(all, h(s))
					group = append(group, g)
				}
			}
			for i := range all {
				for j := range all {
					want := sign(group[i] - group[j])
					if got := sign(Compare(tt.typ, all[i], all[j])); got != want {
						t.Errorf("Compare(%x, %x) = %d, want %d", all[i], all[j], got, want)
					}
					// The key encoding agrees, in both directions.
					for _, desc := range []bool{false, true} {
						ki := AppendKey(nil, tt.typ, all[i], desc)
						kj := AppendKey(nil, tt.typ, all[j], desc)
						w := want
						if desc {
							w = -w
						}
						if got := sign(bytes.Compare(ki, kj)); got != w {
							t.Errorf("desc=%v: keys of %x, %x compare %d, want %d", desc, all[i], all[j], got, w)
						}
					}
				}
			}
		})
	}
}

// TestKeyCanonical checks what DecodeKey returns for values that have
// several encodings (doc.go, invariant 4).
func TestKeyCanonical(t *testing.T) {
	tests := []struct {
		name string
		typ  *Type
		in   string
		want string
	}{
		{"minimal varint", Varint, "0001", "01"},
		{"negative varint", Varint, "ffff80", "80"},
		{"decimal trailing zeros", Decimal, "00000002 0096", "00000001 0f"},
		{"decimal integer", Decimal, "00000002 64", "00000000 01"},
		{"decimal negative scale", Decimal, "fffffffd 01", "00000000 03e8"},
		{"decimal huge exponent", Decimal, "ffffffd8 01", "ffffffd8 01"},
		{"decimal zero", Decimal, "00000007 0000", "00000000 00"},
		{"decimal small", Decimal, "00000007 fb", "00000007 fb"},
		{"boolean", Boolean, "07", "01"},
		{"nan", Float, "ffc00001", "7fc00000"},
		{"tuple absent component", TupleOf(Int, Text), "00000004 00000001", "00000004 00000001 ffffffff"},
		{"tuple null", TupleOf(Int, Text), "fffffffe 00000000", "ffffffff 00000000"},
		{"set of varints", Frozen(SetOf(Varint)), "00000001 00000002 0001", "00000001 00000001 01"},
		{"text", Text, "6162", "6162"},
		{"empty", Int, "empty", "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, desc := range []bool{false, true} {
				k := AppendKey(nil, tt.typ, h(tt.in), desc)
				got, rest, err := DecodeKey(tt.typ, k, desc)
				if err != nil || len(rest) != 0 {
					t.Fatalf("DecodeKey: %v, rest %x", err, rest)
				}
				if hex.EncodeToString(got) != hex.EncodeToString(h(tt.want)) || got == nil {
					t.Errorf("desc=%v: decoded %x, want %x", desc, got, h(tt.want))
				}
			}
		})
	}
}

func TestDecodeKeyErrors(t *testing.T) {
	tests := []struct {
		name string
		typ  *Type
		key  string
	}{
		{"empty input", Int, ""},
		{"bad marker", Int, "09"},
		{"short int", Int, "03 8000"},
		{"unterminated text", Text, "03 6162"},
		{"bad escape", Text, "03 61 00 05"},
		{"unterminated list", Frozen(ListOf(Int)), "03 03 80000001"},
		{"bad varint class", Varint, "03 07"},
		{"bad decimal digits", Decimal, "03 03 8000000000000001 ff 00"},
		{"short uuid", UUID, "03 04 0000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := DecodeKey(tt.typ, h(tt.key), false); err == nil {
				t.Errorf("DecodeKey(%s) succeeded", tt.key)
			}
		})
	}
	if _, _, err := DecodeBytesKey(h("6162")); err == nil {
		t.Error("DecodeBytesKey of an unterminated string succeeded")
	}
}

func TestSortCollection(t *testing.T) {
	set := Frozen(SetOf(Int))
	in := EncodeCollection([][]byte{h("00000003"), h("00000001"), h("00000003"), h("ffffffff")})
	got, err := SortCollection(set, in)
	if err != nil {
		t.Fatal(err)
	}
	if want := EncodeCollection([][]byte{h("ffffffff"), h("00000001"), h("00000003")}); string(got) != string(want) {
		t.Errorf("set: got %x want %x", got, want)
	}
	m := Frozen(MapOf(Text, Int))
	in = EncodeMap([][]byte{[]byte("b"), []byte("a"), []byte("b")}, [][]byte{h("00000001"), h("00000002"), h("00000003")})
	got, err = SortCollection(m, in)
	if err != nil {
		t.Fatal(err)
	}
	if want := EncodeMap([][]byte{[]byte("a"), []byte("b")}, [][]byte{h("00000002"), h("00000003")}); string(got) != string(want) {
		t.Errorf("map: got %x want %x", got, want)
	}
}
