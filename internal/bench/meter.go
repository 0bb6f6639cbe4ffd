package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTicksPerSecond is the unit of the CPU times in /proc/<pid>/stat
// (USER_HZ, which Linux fixes at 100 for user space on every architecture
// Go supports there).
const clockTicksPerSecond = 100

// procCPU is the CPU time, user and system, of process pid and of its
// children: those it has reaped (cutime and cstime, fields 16 and 17 of
// proc(5)'s /proc/<pid>/stat) and those still running (a PostgreSQL
// postmaster's backends, WAL writer and checkpointer). It returns false
// when the process is gone or /proc is unavailable.
func procCPU(pid int) (time.Duration, bool) {
	f, ok := procStatFields(strconv.Itoa(pid))
	if !ok {
		return 0, false
	}
	ticks := f.ticks(14) + f.ticks(15) + f.ticks(16) + f.ticks(17)
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	want := strconv.Itoa(pid)
	for _, dir := range dirs {
		child, ok := procStatFields(filepath.Base(dir))
		if ok && child.field(4) == want {
			ticks += child.ticks(14) + child.ticks(15)
		}
	}
	return time.Duration(ticks) * time.Second / clockTicksPerSecond, true
}

// statFields are the fields of /proc/<pid>/stat after the command name,
// numbered as proc(5) numbers them (the state is field 3).
type statFields []string

// procStatFields reads /proc/<proc>/stat. The command name (field 2) is in
// parentheses and may hold spaces and parentheses itself, so the fields
// start after its last ')'.
func procStatFields(proc string) (statFields, bool) {
	b, err := os.ReadFile("/proc/" + proc + "/stat")
	if err != nil {
		return nil, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, false
	}
	return strings.Fields(string(b[i+1:])), true
}

func (f statFields) field(n int) string {
	if n-3 < 0 || n-3 >= len(f) {
		return ""
	}
	return f[n-3]
}

func (f statFields) ticks(n int) int64 {
	v, _ := strconv.ParseInt(f.field(n), 10, 64)
	return v
}

// allocMetric is the Go runtime's count of heap bytes allocated since the
// process started, as the server's /metrics exports it (the Go collector
// internal/metrics registers).
const allocMetric = "go_memstats_alloc_bytes_total"

// scrapeAllocBytes reads allocMetric from a Prometheus text endpoint.
func scrapeAllocBytes(ctx context.Context, client *http.Client, url string) (float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return parseMetric(resp.Body, allocMetric)
}

// parseMetric returns the value of the unlabelled sample name in a
// Prometheus text exposition.
func parseMetric(r io.Reader, name string) (float64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, name+" ")
		if !ok {
			continue
		}
		return strconv.ParseFloat(strings.TrimSpace(rest), 64)
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no %s in the metrics", name)
}

// serverMeter measures what a server process spends on a step: CPU time
// from /proc (the process and its children) and, where metricsURL is set,
// heap bytes allocated from its /metrics.
type serverMeter struct {
	pid        int
	metricsURL string
	client     *http.Client
}

// meterReading is one sample of a server's counters.
type meterReading struct {
	cpu      time.Duration
	cpuOK    bool
	alloc    float64
	allocOK  bool
	scrapeBy float64 // bytes one scrape of /metrics allocates itself
}

// read samples the counters. With a metrics URL it scrapes twice, back to
// back, and keeps the second figure and the difference, which is what one
// scrape of /metrics allocates itself. The CPU time is read after the
// scrapes before a step (cpuLast) and before them after it, so that the
// scrapes' own CPU stays out of the step's.
func (m *serverMeter) read(ctx context.Context, cpuLast bool) meterReading {
	var r meterReading
	if !cpuLast {
		r.cpu, r.cpuOK = procCPU(m.pid)
	}
	if m.metricsURL != "" {
		a, errA := scrapeAllocBytes(ctx, m.client, m.metricsURL)
		b, errB := scrapeAllocBytes(ctx, m.client, m.metricsURL)
		if errA == nil && errB == nil {
			r.alloc, r.allocOK, r.scrapeBy = b, true, b-a
		}
	}
	if cpuLast {
		r.cpu, r.cpuOK = procCPU(m.pid)
	}
	return r
}

// fill sets res's server figures from the readings before and after the
// step.
func (m *serverMeter) fill(before, after meterReading, res *Result) {
	n := float64(res.Requests + res.ServerErrors)
	if n == 0 {
		return
	}
	if before.cpuOK && after.cpuOK {
		res.ServerCPUSeconds = (after.cpu - before.cpu).Seconds()
		res.ServerCPUMicrosPerRequest = res.ServerCPUSeconds * 1e6 / n
	}
	if before.allocOK && after.allocOK {
		// Each scrape allocates about scrapeBy; between the two figures
		// kept (the second scrape of each reading) lie the step and two
		// scrapes' allocations: the rest of the earlier second scrape and
		// the later first one, and as much of the later second one as
		// precedes its figure.
		bytes := after.alloc - before.alloc - 2*after.scrapeBy
		res.ServerAllocBytes = int64(max(bytes, 0))
		res.ServerAllocBytesPerRequest = float64(res.ServerAllocBytes) / n
	}
}
