package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/partita-db/partita/internal/storage"
)

// storageCollector exports the storage engine's counters (block cache,
// flushes, compactions, sstables, memtables), read at every scrape.
type storageCollector struct {
	source func() storage.Stats
	descs  []storageMetric
}

type storageMetric struct {
	desc  *prometheus.Desc
	kind  prometheus.ValueType
	value func(storage.Stats) float64
}

func newStorageCollector(source func() storage.Stats) *storageCollector {
	m := func(name, help string, kind prometheus.ValueType, value func(storage.Stats) float64) storageMetric {
		return storageMetric{prometheus.NewDesc("partita_storage_"+name, help, nil, nil), kind, value}
	}
	counter, gauge := prometheus.CounterValue, prometheus.GaugeValue
	return &storageCollector{source: source, descs: []storageMetric{
		m("block_cache_bytes", "Bytes held by the block cache.", gauge, func(s storage.Stats) float64 { return float64(s.BlockCacheBytes) }),
		m("block_cache_hits_total", "Block reads answered by the block cache.", counter, func(s storage.Stats) float64 { return float64(s.BlockCacheHits) }),
		m("block_cache_misses_total", "Block reads that went to disk.", counter, func(s storage.Stats) float64 { return float64(s.BlockCacheMisses) }),
		m("flushes_total", "Memtable flushes.", counter, func(s storage.Stats) float64 { return float64(s.Flushes) }),
		m("compactions_total", "Compactions.", counter, func(s storage.Stats) float64 { return float64(s.Compactions) }),
		m("compaction_written_bytes_total", "Bytes written by compactions.", counter, func(s storage.Stats) float64 { return float64(s.CompactionBytes) }),
		m("sstables", "Sstables in the LSM tree.", gauge, func(s storage.Stats) float64 { return float64(s.Tables) }),
		m("sstable_bytes", "Bytes of the sstables.", gauge, func(s storage.Stats) float64 { return float64(s.TableBytes) }),
		m("memtable_bytes", "Bytes of the memtables, including those waiting to be flushed.", gauge, func(s storage.Stats) float64 { return float64(s.MemtableBytes) }),
		m("l0_sublevels", "Sublevels of level 0.", gauge, func(s storage.Stats) float64 { return float64(s.L0Sublevels) }),
		m("read_amplification", "Sstables a point read may consult (level-0 sublevels plus non-empty levels).", gauge, func(s storage.Stats) float64 { return float64(s.ReadAmplification) }),
		m("disk_bytes", "Bytes the store occupies on disk (sstables, WAL, manifests).", gauge, func(s storage.Stats) float64 { return float64(s.DiskBytes) }),
		m("disk_free_bytes", "Free bytes on the data directory's file system at the last reading (every second).", gauge, func(s storage.Stats) float64 { return float64(s.DiskFreeBytes) }),
		m("disk_reserve_bytes", "The free space kept (min_free_space_per_drive); 0 when off.", gauge, func(s storage.Stats) float64 { return float64(s.DiskReserveBytes) }),
		m("disk_full", "1 while writes are refused because free space is below the reserve.", gauge, func(s storage.Stats) float64 { return b2f(s.DiskFull) }),
		m("read_only", "1 when the store opened read-only because the disk had no room to flush its write-ahead log at start (restart once space is freed).", gauge, func(s storage.Stats) float64 { return b2f(s.ReadOnly) }),
		m("writes_refused_total", "Writes refused for want of free space (WriteFailure).", counter, func(s storage.Stats) float64 { return float64(s.WritesRefused) }),
		m("no_space_errors_total", "ENOSPC errors met by background flushes and compactions.", counter, func(s storage.Stats) float64 { return float64(s.NoSpaceErrors) }),
	}}
}

func (c *storageCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d.desc
	}
}

func (c *storageCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.source()
	for _, d := range c.descs {
		ch <- prometheus.MustNewConstMetric(d.desc, d.kind, d.value(s))
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
