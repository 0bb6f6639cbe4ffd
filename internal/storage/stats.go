package storage

// Stats summarises the storage engine for operators: the block cache, the
// flushes and compactions so far, and the shape of the LSM tree.
type Stats struct {
	BlockCacheBytes   int64
	BlockCacheHits    int64
	BlockCacheMisses  int64
	Flushes           int64
	Compactions       int64
	CompactionBytes   uint64 // bytes written by compactions
	Tables            int64  // sstables
	TableBytes        int64  // their size
	MemtableBytes     uint64 // memtables, including those waiting to flush
	L0Sublevels       int32
	ReadAmplification int // sstables a point read may consult: L0 sublevels plus non-empty levels
	DiskBytes         uint64
}

// Stats reads the engine's counters; it is cheap enough for every scrape.
func (s *Store) Stats() Stats {
	m := s.db.Metrics()
	total := m.Total()
	return Stats{
		BlockCacheBytes:   m.BlockCache.Size,
		BlockCacheHits:    m.BlockCache.Hits,
		BlockCacheMisses:  m.BlockCache.Misses,
		Flushes:           m.Flush.Count,
		Compactions:       m.Compact.Count,
		CompactionBytes:   total.TableBytesCompacted,
		Tables:            total.TablesCount,
		TableBytes:        total.TablesSize,
		MemtableBytes:     m.MemTable.Size,
		L0Sublevels:       m.Levels[0].Sublevels,
		ReadAmplification: m.ReadAmp(),
		DiskBytes:         m.DiskSpaceUsage(),
	}
}
