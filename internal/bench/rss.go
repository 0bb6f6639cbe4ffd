package bench

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"sync"
	"time"
)

// rssSampler tracks the peak resident set size of a process (this one, or
// a peer's server) while a step runs: the kernel's high-water mark (VmHWM,
// reset at the start when the kernel allows it) and, as a cross-check,
// VmRSS sampled every 50 ms.
type rssSampler struct {
	proc     string // "self" or a pid
	stopOnce sync.Once
	done     chan struct{}
	wg       sync.WaitGroup
	peak     int64
	resetHWM bool
}

// startRSSSampler samples this process.
func startRSSSampler() *rssSampler { return startRSSSamplerOf("self") }

// startRSSSamplerOf samples the process /proc/<proc> describes.
func startRSSSamplerOf(proc string) *rssSampler {
	s := &rssSampler{proc: proc, done: make(chan struct{})}
	// Writing 5 to clear_refs resets VmHWM to the current RSS (Linux ≥ 4.0).
	s.resetHWM = os.WriteFile("/proc/"+proc+"/clear_refs", []byte("5"), 0) == nil
	s.peak = procStatusKBOf(proc, "VmRSS:")
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-s.done:
				return
			case <-t.C:
				s.peak = max(s.peak, procStatusKBOf(s.proc, "VmRSS:"))
			}
		}
	}()
	return s
}

// stop returns the peak RSS in bytes (0 where /proc is unavailable).
func (s *rssSampler) stop() int64 {
	s.stopOnce.Do(func() { close(s.done) })
	s.wg.Wait()
	peak := max(s.peak, procStatusKBOf(s.proc, "VmRSS:"))
	if s.resetHWM {
		peak = max(peak, procStatusKBOf(s.proc, "VmHWM:"))
	}
	return peak * 1024
}

// procStatusKB reads one "Name:   123 kB" field of /proc/self/status.
func procStatusKB(field string) int64 { return procStatusKBOf("self", field) }

// procStatusKBOf reads one field of /proc/<proc>/status (0 when the process
// or the field is gone).
func procStatusKBOf(proc, field string) int64 {
	b, err := os.ReadFile("/proc/" + proc + "/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte(field)) {
			continue
		}
		f := bytes.Fields(line[len(field):])
		if len(f) == 0 {
			return 0
		}
		n, _ := strconv.ParseInt(string(f[0]), 10, 64)
		return n
	}
	return 0
}
