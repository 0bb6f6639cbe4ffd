package storage

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/token"
)

// TestKeyOrder checks invariant 1: keys sort by table, token (signed),
// partition key bytes, shard, kind, then clustering key, and a partition's
// kindEnd bound sits between its last key and the next partition.
func TestKeyOrder(t *testing.T) {
	phys := func(table backend.TableID, tok token.Token, key string, shard backend.Shard) backend.PhysicalPartition {
		return backend.LogicalPartition{Table: table, Token: tok, Key: []byte(key)}.Physical(shard)
	}
	partitions := []backend.PhysicalPartition{
		phys(1, token.MinToken+1, "z", 0),
		phys(1, -1, "z", 0),
		phys(1, 0, "", 0),
		phys(1, 0, "\x00", 0),
		phys(1, 0, "a", 0),
		phys(1, 0, "a", 1),
		phys(1, 0, "a", 2),
		phys(1, 0, "a\x00", 0),
		phys(1, 0, "a\x00\x00", 0),
		phys(1, 0, "a\x01", 0),
		phys(1, 0, "a\xff", 0),
		phys(1, 0, "b", 0),
		phys(1, 1, "a", 0),
		phys(1, token.MaxToken, "a", 0),
		phys(2, token.MinToken+1, "a", 0),
		phys(^backend.TableID(0), 0, "a", 0),
	}
	clusterings := [][]byte{{}, {0x00}, {0x00, 0x00}, {0x01}, []byte("a"), {0xff, 0xff}}
	var keys [][]byte
	var names []string
	for _, p := range partitions {
		prefix := appendPhysical(nil, p)
		add := func(name string, k []byte) {
			keys = append(keys, k)
			names = append(names, name)
		}
		add("header", partitionKindKey(p, kindHeader))
		add("static", partitionKindKey(p, kindStatic))
		add("range [*,*)", rangeTombstoneKey(p, backend.FullSlice))
		add("range [a,b)", rangeTombstoneKey(p, backend.Slice{Start: []byte("a"), End: []byte("b")}))
		for _, c := range clusterings {
			add("row", rowKey(prefix, c))
		}
		add("end", rowKeyKind(prefix, kindEnd, nil))
	}
	for i := 1; i < len(keys); i++ {
		if bytes.Compare(keys[i-1], keys[i]) >= 0 {
			t.Errorf("key %d (%s) %x !< key %d (%s) %x", i-1, names[i-1], keys[i-1], i, names[i], keys[i])
		}
	}
	// Every key of a table lies in its tableRange.
	for _, p := range partitions {
		lo, hi := tableRange(p.Table)
		k := rowKey(appendPhysical(nil, p), []byte{0xff})
		if bytes.Compare(k, lo) < 0 || bytes.Compare(k, hi) >= 0 {
			t.Errorf("table %d: key %x outside [%x, %x)", p.Table, k, lo, hi)
		}
	}
}

func TestDecodeDataKey(t *testing.T) {
	tests := []struct {
		name   string
		p      backend.PhysicalPartition
		kind   byte
		suffix []byte
	}{
		{"header", testPartition(1, "k", 0), kindHeader, nil},
		{"static shard", testPartition(7, "k", 3), kindStatic, nil},
		{"row", testPartition(1, "k", 0), kindRow, []byte("clustering")},
		{"row escaped key", testPartition(1, "a\x00\xffb", 9), kindRow, []byte{0x00, 0x01}},
		{"empty key", testPartition(1, "", 0), kindRow, []byte{}},
		{"max table", testPartition(^backend.TableID(0), "k", ^backend.Shard(0)), kindRow, []byte{0xff}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prefix := appendPhysical(nil, tc.p)
			key := rowKeyKind(prefix, tc.kind, tc.suffix)
			d, err := decodeDataKey(key)
			if err != nil {
				t.Fatal(err)
			}
			if d.partition.Table != tc.p.Table || d.partition.Token != tc.p.Token ||
				!bytes.Equal(d.partition.Key, tc.p.Key) || d.partition.Shard != tc.p.Shard {
				t.Errorf("partition = %+v, want %+v", d.partition, tc.p)
			}
			if d.kind != tc.kind || !bytes.Equal(d.suffix, tc.suffix) || d.prefixLen != len(prefix) {
				t.Errorf("kind %d suffix %x prefixLen %d, want %d %x %d", d.kind, d.suffix, d.prefixLen, tc.kind, tc.suffix, len(prefix))
			}
		})
	}
	bad := map[string][]byte{
		"empty":       {},
		"meta":        metaKey([]byte("x")),
		"short":       {prefixData, 0, 0},
		"no kind":     appendPhysical(nil, testPartition(1, "k", 0)),
		"short token": append(appendTablePrefix(nil, 1), 1, 2, 3),
		"unterminated key": append(token.AppendOrdered(appendTablePrefix(nil, 1), 5),
			'a', 'b'),
	}
	for name, k := range bad {
		t.Run("bad "+name, func(t *testing.T) {
			if _, err := decodeDataKey(k); err == nil {
				t.Errorf("decodeDataKey(%x) succeeded", k)
			}
		})
	}
}

func TestRangeTombstoneSuffix(t *testing.T) {
	p := testPartition(1, "k", 0)
	prefixLen := len(partitionKindKey(p, kindRangeTS))
	tests := []backend.Slice{
		backend.FullSlice,
		{Start: []byte("a")},
		{End: []byte("b")},
		{Start: []byte("a"), End: []byte("b")},
		{Start: []byte{0x00, 0xff, 0x00}, End: []byte{0xff}},
		{Start: []byte{}, End: []byte{}}, // empty, but bounded
	}
	for _, sl := range tests {
		t.Run(fmtSlice(sl), func(t *testing.T) {
			got, err := decodeRangeTombstoneSuffix(rangeTombstoneKey(p, sl)[prefixLen:])
			if err != nil {
				t.Fatal(err)
			}
			checkSliceEqual(t, got, sl)
		})
	}
	rapid.Check(t, func(t *rapid.T) {
		sl := genSlice(t)
		got, err := decodeRangeTombstoneSuffix(rangeTombstoneKey(p, sl)[prefixLen:])
		if err != nil {
			t.Fatal(err)
		}
		checkSliceEqual(t, got, sl)
	})
	for _, bad := range [][]byte{{}, {0x00}, {'a', 0x00, 0x01, 0x07}, {'a', 0x00, 0x01, 0x00, 0x00}} {
		if _, err := decodeRangeTombstoneSuffix(bad); err == nil {
			t.Errorf("decodeRangeTombstoneSuffix(%x) succeeded", bad)
		}
	}
}

// tester is what both *testing.T and *rapid.T provide.
type tester interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

func checkSliceEqual(t tester, got, want backend.Slice) {
	t.Helper()
	if !bytes.Equal(got.Start, want.Start) || (got.End == nil) != (want.End == nil) || !bytes.Equal(got.End, want.End) {
		t.Fatalf("slice = %s, want %s", fmtSlice(got), fmtSlice(want))
	}
}

func genBytes(t *rapid.T, label string) []byte {
	return rapid.SliceOfN(rapid.SampledFrom([]byte{0x00, 0x01, 'a', 'b', 0xfe, 0xff}), 0, 6).Draw(t, label)
}

func genSlice(t *rapid.T) backend.Slice {
	sl := backend.Slice{Start: genBytes(t, "start")}
	if rapid.Bool().Draw(t, "bounded") {
		sl.End = genBytes(t, "end")
	}
	return sl
}

// FuzzDecodeDataKey feeds arbitrary keys to the key decoders: they must
// never panic, and a decoded key must re-encode to itself.
func FuzzDecodeDataKey(f *testing.F) {
	p := testPartition(1, "key", 2)
	f.Add(partitionKindKey(p, kindHeader))
	f.Add(rowKey(appendPhysical(nil, p), []byte("ck")))
	f.Add(rangeTombstoneKey(p, backend.Slice{Start: []byte("a"), End: []byte("b")}))
	f.Add(rangeTombstoneKey(p, backend.FullSlice))
	f.Add([]byte{prefixData})
	f.Fuzz(func(t *testing.T, k []byte) {
		d, err := decodeDataKey(k)
		if err != nil {
			return
		}
		again := rowKeyKind(appendPhysical(nil, d.partition), d.kind, d.suffix)
		if decodesDifferently(again, d) {
			t.Fatalf("key %x decodes to %+v, which encodes to %x", k, d, again)
		}
		if d.kind == kindRangeTS {
			if sl, err := decodeRangeTombstoneSuffix(d.suffix); err == nil {
				re := rangeTombstoneKey(d.partition, sl)
				d2, err := decodeDataKey(re)
				if err != nil {
					t.Fatal(err)
				}
				sl2, err := decodeRangeTombstoneSuffix(d2.suffix)
				if err != nil {
					t.Fatal(err)
				}
				checkSliceEqual(t, sl2, sl)
			}
		}
	})
}

// decodesDifferently reports whether key decodes to something other than d
// (a non-canonical input may re-encode differently but must mean the same).
func decodesDifferently(key []byte, d decodedKey) bool {
	d2, err := decodeDataKey(key)
	return err != nil || d2.partition.Table != d.partition.Table || d2.partition.Token != d.partition.Token ||
		!bytes.Equal(d2.partition.Key, d.partition.Key) || d2.partition.Shard != d.partition.Shard ||
		d2.kind != d.kind || !bytes.Equal(d2.suffix, d.suffix)
}
