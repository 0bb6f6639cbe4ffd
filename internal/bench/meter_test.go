package bench

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseMetric(t *testing.T) {
	text := `# HELP go_memstats_alloc_bytes_total Total number of bytes allocated in heap until now, even if released already.
# TYPE go_memstats_alloc_bytes_total counter
go_memstats_alloc_bytes_total_other 7
go_memstats_alloc_bytes_total 1.2345678e+08
go_memstats_alloc_bytes 99
`
	for _, tc := range []struct {
		name string
		want float64
		err  bool
	}{
		{"go_memstats_alloc_bytes_total", 1.2345678e+08, false},
		{"go_memstats_alloc_bytes", 99, false},
		{"go_memstats_frees_total", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseMetric(strings.NewReader(text), tc.name)
			if (err != nil) != tc.err || got != tc.want {
				t.Fatalf("got %v, %v; want %v (error %v)", got, err, tc.want, tc.err)
			}
		})
	}
}

// TestProcCPU reads this process's CPU time from /proc while it spins, and
// wants what getrusage(2) says, to within a few of /proc's 10 ms ticks.
func TestProcCPU(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	rusage := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	before, ok := procCPU(os.Getpid())
	if !ok {
		t.Fatal("no CPU time for this process")
	}
	ruBefore := rusage()
	for end := time.Now().Add(10 * time.Second); rusage()-ruBefore < 200*time.Millisecond && time.Now().Before(end); {
	}
	after, _ := procCPU(os.Getpid())
	got, want := after-before, rusage()-ruBefore
	if d := got - want; d < -30*time.Millisecond || d > 30*time.Millisecond {
		t.Fatalf("/proc counted %s of CPU, getrusage %s", got, want)
	}
	if _, ok := procCPU(1 << 30); ok {
		t.Fatal("a process that does not exist has a CPU time")
	}
}

// TestStatFields: the command name may hold spaces and parentheses.
func TestStatFields(t *testing.T) {
	line := "4242 (a) (b c)) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 75 3 4 20 0 1 0"
	i := strings.LastIndexByte(line, ')')
	f := statFields(strings.Fields(line[i+1:]))
	if f.field(3) != "S" || f.field(4) != "1" || f.ticks(14) != 250 || f.ticks(15) != 75 || f.ticks(16) != 3 || f.ticks(17) != 4 {
		t.Fatalf("fields %v", f)
	}
	if f.field(99) != "" {
		t.Fatal("a field past the end is not empty")
	}
}

// TestMeterFill: per-request figures, with the scrapes' own allocations
// left out.
func TestMeterFill(t *testing.T) {
	var m serverMeter
	before := meterReading{cpu: time.Second, cpuOK: true, alloc: 1_000_000, allocOK: true, scrapeBy: 50_000}
	after := meterReading{cpu: 1500 * time.Millisecond, cpuOK: true, alloc: 3_100_000, allocOK: true, scrapeBy: 50_000}
	res := Result{Requests: 990, ServerErrors: 10}
	m.fill(before, after, &res)
	if res.ServerCPUSeconds != 0.5 || res.ServerCPUMicrosPerRequest != 500 {
		t.Errorf("CPU %v s, %v µs per request; want 0.5 s, 500 µs", res.ServerCPUSeconds, res.ServerCPUMicrosPerRequest)
	}
	if res.ServerAllocBytes != 2_000_000 || res.ServerAllocBytesPerRequest != 2000 {
		t.Errorf("%d bytes, %v per request; want 2,000,000 and 2,000", res.ServerAllocBytes, res.ServerAllocBytesPerRequest)
	}
	var none Result
	m.fill(meterReading{}, meterReading{}, &none)
	if none.ServerCPUMicrosPerRequest != 0 || none.ServerAllocBytes != 0 {
		t.Errorf("figures without readings: %+v", none)
	}
}
