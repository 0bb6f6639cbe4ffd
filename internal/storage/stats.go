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
	// The free-space reserve (diskspace.go): the free bytes last read, the
	// reserve (0: none), whether writes are refused now, how many were,
	// and the ENOSPC errors Pebble's flushes and compactions met.
	DiskFreeBytes    int64
	DiskReserveBytes int64
	DiskFull         bool
	ReadOnly         bool // opened read-only on a disk too full to start
	WritesRefused    int64
	NoSpaceErrors    int64
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
		DiskFreeBytes:     s.disk.free.Load(),
		DiskReserveBytes:  s.disk.reserve,
		DiskFull:          s.disk.full.Load(),
		ReadOnly:          s.disk.readOnly.Load(),
		WritesRefused:     s.disk.refused.Load(),
		NoSpaceErrors:     s.disk.noSpace.Load(),
	}
}
