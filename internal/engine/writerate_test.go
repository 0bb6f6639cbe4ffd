package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/engine"
)

// startOfSecond sleeps into the next wall-clock second, so that a few
// writes that follow fall in one of the write-rate guard's windows.
func startOfSecond() {
	now := time.Now()
	time.Sleep(now.Truncate(time.Second).Add(time.Second + 10*time.Millisecond).Sub(now))
}

// TestWriteRate: past partition_write_rate_warn_threshold writes in one
// second a partition's write gets a warning (once), past the failure
// threshold it is refused with Overloaded naming the table and key, and
// writes nothing; other partitions, and the next second, are not refused.
func TestWriteRate(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.SplitTick, cfg.GCInterval = 0, 0
	cfg.PartitionWriteRateWarnThreshold, cfg.PartitionWriteRateFailThreshold = 3, 5
	h := cqltest.NewWithConfig(t, cfg)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE KEYSPACE wr WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE wr.t (k int, c int, v int, PRIMARY KEY (k, c))",
	} {
		if _, err := h.Session.Query(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	write := func(k, c int) (*engine.Result, error) {
		return h.Session.Query(ctx, fmt.Sprintf("INSERT INTO wr.t (k, c, v) VALUES (%d, %d, 0)", k, c), nil)
	}
	startOfSecond()
	for c := 1; c <= 5; c++ {
		res, err := write(1, c)
		if err != nil {
			t.Fatalf("write %d: %v", c, err)
		}
		wantWarning := c == 4
		if got := len(res.Warnings) == 1; got != wantWarning {
			t.Fatalf("write %d: warnings %q", c, res.Warnings)
		}
		if wantWarning && res.Warnings[0] != "Partition 1 of table wr.t took more than 3 writes in the last second (partition_write_rate_warn_threshold)" {
			t.Fatalf("warning %q", res.Warnings[0])
		}
	}
	_, err := write(1, 6)
	if e := cqlerr.As(err); e == nil || e.Code != cqlerr.Overloaded ||
		e.Message != "Too many writes to partition 1 of table wr.t: 6 in the last second, more than partition_write_rate_fail_threshold (5)" {
		t.Fatalf("sixth write: got %v, want Overloaded", err)
	}
	if _, err := write(2, 1); err != nil {
		t.Fatalf("another partition: %v", err)
	}
	res, err := h.Session.Query(ctx, "SELECT c FROM wr.t WHERE k = 1", nil)
	if err != nil || len(res.Rows) != 5 {
		t.Fatalf("refused write was applied: %v, %d rows", err, rowsOf(res))
	}
	startOfSecond()
	if _, err := write(1, 7); err != nil {
		t.Fatalf("next second: %v", err)
	}
}
