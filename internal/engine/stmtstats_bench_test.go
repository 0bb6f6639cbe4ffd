package engine

import (
	"testing"
	"time"

	"github.com/partita-db/partita/internal/exec"
)

// BenchmarkRecordStatement is the statement statistics' cost per request:
// a prepared statement (key computed at PREPARE) and a QUERY (normalized
// each time).
func BenchmarkRecordStatement(b *testing.B) {
	const q = "SELECT time, temperature FROM iot_data_optimized WHERE device_id = 'device_123' AND year_month = '202405' ORDER BY time DESC LIMIT 10"
	res := &Result{Kind: ResultRows, Rows: make([][][]byte, 10), read: &exec.ReadSummary{Rows: 10, Partitions: 1}}
	var err error
	b.Run("prepared", func(b *testing.B) {
		s := newStatementStats()
		n := normalizedStatement(q)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				s.recordRun("ks", q, n, time.Now(), &res, &err)
			}
		})
	})
	b.Run("query", func(b *testing.B) {
		s := newStatementStats()
		b.ReportAllocs()
		for b.Loop() {
			s.recordRun("ks", q, "", time.Now(), &res, &err)
		}
	})
}
