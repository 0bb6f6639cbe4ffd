package engine_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/split"
)

func int64Value(v int64) engine.Value {
	return engine.Value{Bytes: binary.BigEndian.AppendUint64(nil, uint64(v))}
}

func mustExec(tb testing.TB, s *engine.Session, qs ...string) {
	tb.Helper()
	for _, q := range qs {
		if _, err := s.Query(context.Background(), q, nil); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
}

// eventsHarness holds seed 003's events_by_asset_day with rows events of
// asset 'hot' at ts 0..rows-1, and a prepared insert.
// The split detector is off for the table: splits happen when a benchmark
// forces them.
func eventsHarness(b *testing.B, h *cqltest.Harness, rows int, maxRows int) *engine.Result {
	mustExec(b, h.Session, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		fmt.Sprintf(`CREATE TABLE ks.events_by_asset_day (asset_id text, day date, event_ts bigint, payload text,
			PRIMARY KEY ((asset_id, day), event_ts))
			WITH extensions = {'partita.split.max_rows': '%d', 'partita.split.enabled': 'false'}`, maxRows))
	ctx := context.Background()
	ins, err := h.Session.Prepare(ctx, "INSERT INTO ks.events_by_asset_day (asset_id, day, event_ts, payload) VALUES ('hot', '2026-01-20', ?, ?)")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < rows; i++ {
		if _, err := h.Session.Execute(ctx, ins.PreparedID, &engine.Options{Values: []engine.Value{int64Value(int64(i)), {Bytes: []byte("payload-of-an-event")}}}); err != nil {
			b.Fatal(err)
		}
	}
	return ins
}

const hotKey = "'hot', '2026-01-20'"

// BenchmarkSplitRangeRead reads one clustering range that covers the whole
// hot partition, unsplit and split into 8 range children (the target: the
// split read within 1.3x of the unsplit one). Two widths show the fixed cost
// of the fan-out (800 rows: 100 per child) and its share on a larger read.
func BenchmarkSplitRangeRead(b *testing.B) {
	for _, rows := range []int{800, 8000} {
		for _, children := range []int{1, 8} {
			b.Run(fmt.Sprintf("rows=%d/children=%d", rows, children), func(b *testing.B) {
				// Forced range splits cut pieces of half the row threshold.
				h := cqltest.New(b)
				eventsHarness(b, h, rows, 2*rows/8)
				ctx := context.Background()
				if children > 1 {
					if err := h.Engine.SplitOperation(ctx, "split", "ks", "events_by_asset_day", hotKey, "range"); err != nil {
						b.Fatal(err)
					}
					if err := h.Engine.StepSplits(ctx, 1000); err != nil {
						b.Fatal(err)
					}
					if st := h.Engine.SplitStatus(); len(st) != 1 || len(st[0].Children) != children {
						b.Fatalf("split status %+v, want %d children", st, children)
					}
				}
				sel, err := h.Session.Prepare(ctx, "SELECT event_ts, payload FROM ks.events_by_asset_day WHERE asset_id = 'hot' AND day = '2026-01-20' AND event_ts >= ? AND event_ts < ?")
				if err != nil {
					b.Fatal(err)
				}
				opts := &engine.Options{Values: []engine.Value{int64Value(0), int64Value(int64(rows))}, SkipMetadata: true, PageSize: int32(rows + 1)}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					res, err := h.Session.Execute(ctx, sel.PreparedID, opts)
					if err != nil || len(res.Rows) != rows {
						b.Fatalf("%v: %d rows, want %d", err, len(res.Rows), rows)
					}
				}
			})
		}
	}
}

// BenchmarkWriteDuringBackfill writes new events to the hot partition
// while nothing else runs (idle) and while its data is moved the whole time
// (split, then merge back, over and over): by the background worker at the
// policy's default rate (4 MiB/s), at 32 MiB/s, and without any limit. The
// target: throughput during the backfill at the default rate at least 0.7x
// of idle.
func BenchmarkWriteDuringBackfill(b *testing.B) {
	def := split.DefaultPolicy().BytesPerSecond
	for _, mode := range []struct {
		name string
		rate int64 // bytes per second; -1: no backfill; 0: unlimited
	}{{"idle", -1}, {"backfill-rate=default", def}, {"backfill-rate=32MiB", 32 << 20}, {"backfill-unlimited", 0}} {
		b.Run(mode.name, func(b *testing.B) {
			cfg := engine.DefaultConfig()
			cfg.GCInterval = 0
			cfg.SplitTick = 20 * time.Millisecond
			cfg.Split.BytesPerSecond = mode.rate
			if mode.rate <= 0 {
				cfg.SplitTick = 0 // the loop below steps without a limit
			}
			h := cqltest.NewWithConfig(b, cfg)
			const rows = 20000
			ins := eventsHarness(b, h, rows, rows/2)
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			var moves, moved, current int64 // migrations started, rows they moved
			start := time.Now()
			if mode.rate >= 0 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for ctx.Err() == nil {
						st := h.Engine.SplitStatus()
						if len(st) > 0 {
							current = st[0].RowsMoved
						}
						if len(st) > 0 && st[0].State != "active" {
							time.Sleep(5 * time.Millisecond) // the worker is moving data
							continue
						}
						op := "split"
						if len(st) > 0 {
							op = "merge"
						}
						if err := h.Engine.SplitOperation(ctx, op, "ks", "events_by_asset_day", hotKey, "range"); err != nil {
							if ctx.Err() == nil {
								b.Error(op, err)
							}
							return
						}
						moves++
						moved += current
						current = 0
						if mode.rate == 0 {
							if err := h.Engine.StepSplits(ctx, 1000); err != nil {
								if ctx.Err() == nil {
									b.Error(err)
								}
								return
							}
						}
					}
				}()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				v := []engine.Value{int64Value(int64(rows + i)), {Bytes: []byte("payload-of-an-event")}}
				if _, err := h.Session.Execute(ctx, ins.PreparedID, &engine.Options{Values: v}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			cancel()
			wg.Wait()
			if mode.rate >= 0 {
				if st := h.Engine.SplitStatus(); len(st) > 0 {
					moved += st[0].RowsMoved
				}
				b.ReportMetric(float64(moves), "moves")
				b.ReportMetric(float64(moved)/time.Since(start).Seconds(), "rows-moved/s")
			}
		})
	}
}

// BenchmarkSplitLatest100 reads the newest 100 events of a 32,000-row hot
// partition, unsplit and split into 8 and 32 range children: a LIMIT that
// the first child satisfies must cost about what it costs unsplit, however
// many children there are.
func BenchmarkSplitLatest100(b *testing.B) {
	const rows = 32000
	for _, children := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("children=%d", children), func(b *testing.B) {
			h := cqltest.New(b)
			eventsHarness(b, h, rows, 2*rows/children)
			ctx := context.Background()
			if children > 1 {
				if err := h.Engine.SplitOperation(ctx, "split", "ks", "events_by_asset_day", hotKey, "range"); err != nil {
					b.Fatal(err)
				}
				if err := h.Engine.StepSplits(ctx, 4000); err != nil {
					b.Fatal(err)
				}
				if st := h.Engine.SplitStatus(); len(st) != 1 || len(st[0].Children) != children {
					b.Fatalf("split status %+v, want %d children", st, children)
				}
			}
			sel, err := h.Session.Prepare(ctx, "SELECT event_ts, payload FROM ks.events_by_asset_day WHERE asset_id = 'hot' AND day = '2026-01-20' ORDER BY event_ts DESC LIMIT 100")
			if err != nil {
				b.Fatal(err)
			}
			opts := &engine.Options{SkipMetadata: true, PageSize: 5000}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := h.Session.Execute(ctx, sel.PreparedID, opts)
				if err != nil || len(res.Rows) != 100 {
					b.Fatalf("%v: %d rows", err, len(res.Rows))
				}
			}
		})
	}
}
