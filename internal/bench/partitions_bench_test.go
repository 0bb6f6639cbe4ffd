package bench

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"
)

// iotDays and iotInFlight shape BenchmarkIoTPartitions.
const (
	iotDays     = 10
	iotInFlight = 32
)

// BenchmarkIoTPartitions is the iot workload at users' scale: devices
// reporting into one partition per device and day (seed 001's table,
// bucketed by day), 1k or 100k devices over 10 days, so 10k or 1M distinct
// partitions, through a real server (storage with a synced WAL, engine, CQL
// over loopback, gocql), with 32 requests in flight. It first writes one
// reading to every partition, day after day (reported as ingest-ns/write),
// then times operations that alternately write a reading to and read the
// latest 10 of a partition drawn uniformly: ns/op is the inverse of their
// throughput. The split layer tracks 100k partitions, so at 1M nearly every
// operation meets an untracked one; neither figure should depend on the
// number of partitions by more than the storage's own growth.
//
//	go test ./internal/bench -run '^$' -bench IoTPartitions -benchtime 20000x
func BenchmarkIoTPartitions(b *testing.B) {
	for _, devices := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("partitions=%dk", devices*iotDays/1000), func(b *testing.B) { benchIoT(b, devices) })
	}
}

func benchIoT(b *testing.B, devices int) {
	ctx := context.Background()
	n, err := startNode(ctx, b.TempDir(), 0, splitTiming{})
	if err != nil {
		b.Fatal(err)
	}
	defer n.stop()
	cluster, err := newCluster(n.addr, 2)
	if err != nil {
		b.Fatal(err)
	}
	s, err := cluster.CreateSession()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for _, q := range []string{
		"CREATE KEYSPACE iot WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE iot.readings (device_id text, day date, time timestamp, temperature float, PRIMARY KEY ((device_id, day), time))",
	} {
		if err := s.Query(q).Exec(); err != nil {
			b.Fatal(err)
		}
	}
	ids := names("device-", devices)
	start := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	write := func(partition, i int) error {
		day := start.AddDate(0, 0, partition/devices)
		return s.Query("INSERT INTO iot.readings (device_id, day, time, temperature) VALUES (?, ?, ?, ?)",
			ids[partition%devices], day, day.Add(time.Duration(i)*time.Millisecond), float32(18+i%120)/10).Exec()
	}
	read := func(partition int) error {
		iter := s.Query("SELECT time, temperature FROM iot.readings WHERE device_id = ? AND day = ? ORDER BY time DESC LIMIT 10",
			ids[partition%devices], start.AddDate(0, 0, partition/devices)).Iter()
		var at time.Time
		var temp float32
		rows := 0
		for iter.Scan(&at, &temp) {
			rows++
		}
		if err := iter.Close(); err != nil {
			return err
		}
		if rows == 0 {
			return fmt.Errorf("partition %d read no row", partition)
		}
		return nil
	}
	partitions := devices * iotDays
	t0 := time.Now()
	if err := iotRun(func(ops chan<- int) {
		for p := 0; p < partitions; p++ {
			ops <- p
		}
	}, func(p int) error { return write(p, 0) }); err != nil {
		b.Fatal(err)
	}
	ingest := time.Since(t0)
	cpu := iotProcessCPU()
	ops := 0
	err = iotRun(func(next chan<- int) {
		for b.Loop() {
			next <- ops
			ops++
		}
	}, func(i int) error {
		p := pick(uint64(i), partitions)
		if i%2 == 0 {
			return write(p, i+1)
		}
		return read(p)
	})
	if err != nil {
		b.Fatal(err)
	}
	// The CPU time of the process (server and driver) per operation, which
	// other work on a shared machine inflates less than the wall clock.
	// (b.Loop's first call resets the metrics: these come after it.)
	b.ReportMetric(float64(iotProcessCPU()-cpu)/float64(ops), "cpu-ns/op")
	b.ReportMetric(float64(ingest.Nanoseconds())/float64(partitions), "ingest-ns/write")
}

// iotRun runs do on every value feed sends, iotInFlight at a time, and
// returns the first error (the others are likely its consequences).
func iotRun(feed func(chan<- int), do func(int) error) error {
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for range iotInFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := range next {
				if err := do(v); err != nil {
					mu.Lock()
					first = cmp.Or(first, err)
					mu.Unlock()
				}
			}
		}()
	}
	feed(next)
	close(next)
	wg.Wait()
	return first
}

// iotProcessCPU is the user and system CPU time of the process so far.
func iotProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
