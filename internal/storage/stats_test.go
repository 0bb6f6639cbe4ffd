package storage

import (
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/backend"
)

// TestBlockCacheHoldsBlocksBesideMemtables: Pebble charges its memtables
// to the block cache, so a cache sized for blocks alone holds none once
// the memtables have grown to full size. Repeated reads of the same rows
// must be answered from the cache.
func TestBlockCacheHoldsBlocksBesideMemtables(t *testing.T) {
	s := openMem(t, Options{CacheBytes: 256 << 10, memTableSize: 1 << 20})
	p := testPartition(1, "wide", 0)
	value := strings.Repeat("v", 1000)
	for i := 0; i < 4000; i += 100 { // 4 MB: the memtables reach full size
		m := backend.NewMutation(p)
		for j := i; j < i+100; j++ {
			m.Rows = append(m.Rows, rowOf(ck(j), 1, regularCell(1, value, 1)))
		}
		mustApply(t, s, m)
	}
	if err := s.flush(); err != nil {
		t.Fatal(err)
	}
	read := func() {
		rows, _ := readRows(t, s, backend.ReadCommand{Partition: p,
			Slices: []backend.Slice{{Start: ck(100), End: ck(150)}}, Now: 1})
		if len(rows) != 50 {
			t.Fatalf("read %d rows, want 50", len(rows))
		}
	}
	read()
	before := s.Stats()
	for i := 0; i < 20; i++ {
		read()
	}
	after := s.Stats()
	hits, misses := after.BlockCacheHits-before.BlockCacheHits, after.BlockCacheMisses-before.BlockCacheMisses
	if hits == 0 || misses > hits/10 {
		t.Fatalf("20 reads of the same rows: %d block cache hits, %d misses (cache holds %d bytes, memtables %d)",
			hits, misses, after.BlockCacheBytes, after.MemtableBytes)
	}
}
