package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/partita-db/partita/internal/systables"
)

// topPartitionsPerTable bounds the partitions exported per table, so the
// metrics' label sets stay small whatever the data.
const topPartitionsPerTable = 5

// partitionCollector exports the partition statistics per table: how many
// partitions are tracked and the largest few with their size, rows, reads
// and read latency (the same figures as system_partita.large_partitions).
type partitionCollector struct {
	source                                  func() []systables.LargePartition
	tracked, size, rows, reads, readLatency *prometheus.Desc
	tombstones, maxChildRows, maxChildBytes *prometheus.Desc
}

func newPartitionCollector(source func() []systables.LargePartition) *partitionCollector {
	table := []string{"keyspace", "table"}
	top := []string{"keyspace", "table", "partition_key", "split"}
	d := func(name, help string, labels []string) *prometheus.Desc {
		return prometheus.NewDesc("partita_"+name, help, labels, nil)
	}
	return &partitionCollector{
		source:        source,
		tracked:       d("table_partitions_tracked", "Partitions of the table whose statistics are kept.", table),
		size:          d("top_partition_bytes", "Bytes of the table's largest partitions (measured, or written since start).", top),
		rows:          d("top_partition_rows", "Rows of the table's largest partitions.", top),
		reads:         d("top_partition_reads_total", "Reads of the table's largest partitions since start.", top),
		readLatency:   d("top_partition_mean_read_latency_seconds", "Mean read latency of the table's largest partitions.", top),
		tombstones:    d("top_partition_tombstones_total", "Tombstones written to the table's largest partitions since start.", top),
		maxChildRows:  d("top_partition_max_child_rows", "Rows of the largest physical partition (child) of each of the table's largest partitions.", top),
		maxChildBytes: d("top_partition_max_child_bytes", "Bytes of the largest physical partition (child) of each of the table's largest partitions.", top),
	}
}

func (c *partitionCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.tracked, c.size, c.rows, c.reads, c.readLatency, c.tombstones, c.maxChildRows, c.maxChildBytes} {
		ch <- d
	}
}

func (c *partitionCollector) Collect(ch chan<- prometheus.Metric) {
	type tableKey struct{ ks, table string }
	count := map[tableKey]int{}
	for _, p := range c.source() { // largest first
		k := tableKey{p.Keyspace, p.Table}
		count[k]++
		if count[k] > topPartitionsPerTable {
			continue
		}
		labels := []string{p.Keyspace, p.Table, p.PartitionKey, p.Split}
		ch <- prometheus.MustNewConstMetric(c.size, prometheus.GaugeValue, float64(p.Size), labels...)
		ch <- prometheus.MustNewConstMetric(c.rows, prometheus.GaugeValue, float64(p.Rows), labels...)
		ch <- prometheus.MustNewConstMetric(c.reads, prometheus.CounterValue, float64(p.Reads), labels...)
		ch <- prometheus.MustNewConstMetric(c.readLatency, prometheus.GaugeValue, float64(p.MeanReadMicros)/1e6, labels...)
		ch <- prometheus.MustNewConstMetric(c.tombstones, prometheus.CounterValue, float64(p.Tombstones), labels...)
		ch <- prometheus.MustNewConstMetric(c.maxChildRows, prometheus.GaugeValue, float64(p.MaxChildRows), labels...)
		ch <- prometheus.MustNewConstMetric(c.maxChildBytes, prometheus.GaugeValue, float64(p.MaxChildBytes), labels...)
	}
	for k, n := range count {
		ch <- prometheus.MustNewConstMetric(c.tracked, prometheus.GaugeValue, float64(n), k.ks, k.table)
	}
}
