package split

import "github.com/prometheus/client_golang/prometheus"

// metrics are the split layer's Prometheus collectors; Collectors returns
// them for registration.
var metrics = struct {
	started, finished, reverted prometheus.Counter
	stepErrors                  prometheus.Counter
	paused                      prometheus.Gauge
	rowsMoved, bytesMoved       prometheus.Counter
	fanOut                      prometheus.Histogram
}{
	started:    prometheus.NewCounter(prometheus.CounterOpts{Name: "partita_split_started_total", Help: "Migrations (splits and merges) started."}),
	finished:   prometheus.NewCounter(prometheus.CounterOpts{Name: "partita_split_finished_total", Help: "Migrations finished."}),
	reverted:   prometheus.NewCounter(prometheus.CounterOpts{Name: "partita_split_reverted_total", Help: "Migrations reverted."}),
	stepErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "partita_split_step_errors_total", Help: "Migration steps that failed and paused their migration."}),
	paused:     prometheus.NewGauge(prometheus.GaugeOpts{Name: "partita_split_migrations_paused", Help: "Migrations paused after a failed step (a full disk, say), waiting to retry."}),
	rowsMoved:  prometheus.NewCounter(prometheus.CounterOpts{Name: "partita_split_rows_moved_total", Help: "Rows moved between physical partitions."}),
	bytesMoved: prometheus.NewCounter(prometheus.CounterOpts{Name: "partita_split_bytes_moved_total", Help: "Bytes moved between physical partitions."}),
	fanOut: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "partita_split_read_fanout",
		Help: "Physical partitions opened per read of a split logical partition.", Buckets: []float64{1, 2, 4, 8, 16, 32, 64}}),
}

// Collectors returns the split layer's metrics.
func Collectors() []prometheus.Collector {
	return []prometheus.Collector{metrics.started, metrics.finished, metrics.reverted, metrics.stepErrors,
		metrics.paused, metrics.rowsMoved, metrics.bytesMoved, metrics.fanOut}
}
