package split

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/token"
)

// statsBenchLimit is the layer's own bound on tracked partitions (New).
const statsBenchLimit = 100_000

// benchPartitions returns n distinct logical partitions shaped like the iot
// workload's keys ("device-N", "2024-05-D").
func benchPartitions(n int) []backend.LogicalPartition {
	out := make([]backend.LogicalPartition, n)
	for i := range out {
		k := []byte("device-" + strconv.Itoa(i/10) + "/2024-05-" + strconv.Itoa(i%10))
		out[i] = backend.LogicalPartition{Table: 7, Token: token.Of(k), Key: k}
	}
	return out
}

// BenchmarkStatsTable records one write (even operations) or one read (odd
// ones) of a partition drawn uniformly from 10k, 100k or 1M distinct
// partitions, with the table bounded at the layer's 100k. Beyond the bound
// nearly every operation meets an untracked partition and evicts one, so
// ns/op is the cost of tracking when partitions outnumber the table; it
// should stay flat from 10k to 1M. The parallel variants show the cost of
// the table's locking under concurrent writers.
func BenchmarkStatsTable(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		parts := benchPartitions(n)
		for _, parallel := range []bool{false, true} {
			name := fmt.Sprintf("partitions=%dk", n/1000)
			if parallel {
				name += "/parallel"
			}
			b.Run(name, func(b *testing.B) {
				t := newStatsTable(statsBenchLimit)
				now := time.Now()
				// Fill the table (and overflow it by 10% where the
				// partitions outnumber it), so the timed operations run in
				// the steady state.
				for i := 0; i < min(n, statsBenchLimit+statsBenchLimit/10); i++ {
					m := benchMutation(parts[i], i)
					t.recordWrite(&m, now)
				}
				b.ReportAllocs()
				cpu := processCPU()
				b.ResetTimer()
				if !parallel {
					rng := rand.New(rand.NewPCG(1, 2))
					for i := 0; i < b.N; i++ {
						benchStatsOp(t, parts, rng, i, now)
					}
				} else {
					var seed atomic.Uint64
					b.RunParallel(func(pb *testing.PB) {
						rng := rand.New(rand.NewPCG(seed.Add(1), 2))
						for i := 0; pb.Next(); i++ {
							benchStatsOp(t, parts, rng, i, now)
						}
					})
				}
				b.StopTimer()
				// The process's CPU time per operation, which other work on
				// a shared machine inflates less than the wall clock.
				b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

func benchStatsOp(t *statsTable, parts []backend.LogicalPartition, rng *rand.Rand, i int, now time.Time) {
	p := parts[rng.IntN(len(parts))]
	if i%2 == 0 {
		m := benchMutation(p, i)
		t.recordWrite(&m, now)
		return
	}
	t.recordRead(p, 10, 400, 50*time.Microsecond)
}

// benchMutation is one iot reading: a timestamp clustering key and a float.
func benchMutation(p backend.LogicalPartition, i int) backend.Mutation {
	m := backend.NewMutation(p.Physical(backend.HomeShard))
	r := backend.NewRow(ck(i))
	r.Cells = []backend.Cell{{Column: 1, Value: []byte{0, 0, 0x90, 0x41}, Timestamp: int64(i)}}
	m.Rows = []backend.Row{r}
	return m
}

// processCPU is the user and system CPU time of the process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
