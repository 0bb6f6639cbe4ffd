package bench

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeSystem runs every op with a delay and counts the requests in flight.
type fakeSystem struct {
	delay  time.Duration
	failAt int64 // fail the request with this 1-based number (0: never)
	casErr error // what the compare-and-set returns
	// gate, when set, holds every request until that many have been in
	// flight at once (or 10 s have passed), so that a runner with that
	// concurrency reaches it whatever the scheduling.
	gate     int64
	inFlight atomic.Int64
	peak     atomic.Int64
	calls    atomic.Int64
	// late counts requests begun after their context was cancelled.
	late atomic.Int64
}

func (f *fakeSystem) name() string                                 { return "fake" }
func (f *fakeSystem) createTables(context.Context, []*table) error { return nil }
func (f *fakeSystem) close() error                                 { return nil }

func (f *fakeSystem) prepare(_ context.Context, st statement) (op, error) {
	return func(ctx context.Context, rows [][]any) (int, error) {
		if ctx.Err() != nil {
			f.late.Add(1)
		}
		n := f.inFlight.Add(1)
		defer f.inFlight.Add(-1)
		for p := f.peak.Load(); n > p && !f.peak.CompareAndSwap(p, n); p = f.peak.Load() {
		}
		for start := time.Now(); f.peak.Load() < f.gate && time.Since(start) < 10*time.Second; {
			time.Sleep(100 * time.Microsecond)
		}
		if f.calls.Add(1) == f.failAt {
			return 0, errors.New("boom")
		}
		time.Sleep(f.delay)
		if st.kind == kindRead {
			return 10, nil
		}
		return 0, nil
	}, nil
}

func (f *fakeSystem) prepareCAS(context.Context, statement, statement) (casOp, error) {
	return func(context.Context, []any) (bool, int64, error) { return f.casErr == nil, 0, f.casErr }, nil
}

func testRunner(d time.Duration) *runner {
	return &runner{opts: Options{Concurrency: 8, Duration: d, Progress: io.Discard, Log: io.Discard}}
}

func TestRunStepCounted(t *testing.T) {
	sys := &fakeSystem{delay: time.Millisecond, gate: 8}
	st := &step{name: "w", stmt: statement{kind: kindWrite}, requests: 200,
		args: func(i int) [][]any { return [][]any{{i}, {i}} }}
	res := testRunner(time.Minute).runStep(context.Background(), "test", sys, st)
	if res.Error != "" {
		t.Fatal(res.Error)
	}
	if res.Requests != 200 || res.Rows != 400 || res.Latency.Count != 200 {
		t.Errorf("requests %d rows %d latencies %d, want 200, 400 (two rows a batch), 200", res.Requests, res.Rows, res.Latency.Count)
	}
	if p := sys.peak.Load(); p != 8 {
		t.Errorf("%d requests in flight at most, want the concurrency, 8", p)
	}
	if res.Latency.P50 < 1 {
		t.Errorf("p50 %v ms below the op's 1 ms", res.Latency.P50)
	}
}

func TestRunStepTimed(t *testing.T) {
	sys := &fakeSystem{delay: time.Millisecond}
	st := &step{name: "r", stmt: statement{kind: kindRead}, timed: true, requests: timedRequests,
		args: func(int) [][]any { return one("k") }, expect: func(i int) int { return 10 + i%2 }}
	start := time.Now()
	res := testRunner(200*time.Millisecond).runStep(context.Background(), "test", sys, st)
	// It stops at its duration, not after its 2^40 requests: at least the
	// duration (and its warm-up), and the upper bound only catches a step
	// that ignores it, not a slow machine.
	if el := time.Since(start); el < 220*time.Millisecond || el > time.Minute {
		t.Fatalf("timed step of 200 ms (and 20 ms of warm-up) ran %v", el)
	}
	if res.Error != "" || res.Requests == 0 {
		t.Fatalf("result %+v", res)
	}
	if res.Rows != 10*res.Requests {
		t.Errorf("rows %d for %d reads of 10", res.Rows, res.Requests)
	}
	// Every odd request expects 11 rows and reads 10. A worker that took a
	// number just before the deadline can see the deadline passed after a
	// later number ran, so up to one number per worker may be skipped.
	if d := res.Mismatches - res.Requests/2; d < -8 || d > 8 {
		t.Errorf("%d mismatches in %d requests, want half", res.Mismatches, res.Requests)
	}
}

func TestRunStepFailure(t *testing.T) {
	sys := &fakeSystem{failAt: 50, delay: time.Millisecond}
	st := &step{name: "w", stmt: statement{kind: kindWrite}, requests: 1000, args: func(i int) [][]any { return one(i) }}
	res := testRunner(time.Minute).runStep(context.Background(), "test", sys, st)
	if !strings.Contains(res.Error, "boom") {
		t.Fatalf("error %q, want the op's", res.Error)
	}
	if res.ok() {
		t.Error("a failed step reports figures")
	}
	// Once the failure cancels the step, no worker begins a request other
	// than the one it may have been starting (how many run before the
	// cancellation depends on the scheduling, not on the runner).
	if n, late := sys.calls.Load(), sys.late.Load(); n < 50 || late > 7 {
		t.Errorf("%d requests, %d begun after the failure at 50 cancelled the step; want at most 7 (one per other worker)", n, late)
	}
}

// rejection is a server error reply, as gocql returns one.
type rejection struct {
	code int
	msg  string
}

func (e rejection) Code() int       { return e.code }
func (e rejection) Message() string { return e.msg }
func (e rejection) Error() string   { return e.msg }

func TestLWTSkippedWhenUnsupported(t *testing.T) {
	w := lwtWorkload(Options{LWTKeys: 4, Concurrency: 4})
	cas := w.steps[1]
	for _, tc := range []struct {
		name        string
		err         error
		wantSkipped bool
		wantError   bool
	}{
		{"supported", nil, false, false},
		{"invalid", rejection{0x2200, "Conditional updates are not supported yet"}, true, false},
		{"not supported", rejection{0x0000, "LWT not supported"}, true, false},
		{"server failure", rejection{0x1100, "Operation timed out"}, false, true},
		{"transport failure", errors.New("connection reset"), false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sys := &fakeSystem{casErr: tc.err}
			res := testRunner(50*time.Millisecond).runStep(context.Background(), w.name, sys, cas)
			// A worker held up past the 50 ms sends nothing, and on a
			// loaded machine every worker can be: run again until a
			// request has run (a figure that cannot fail by chance).
			for try := 0; try < 20 && !tc.wantSkipped && !tc.wantError && res.Requests == 0; try++ {
				res = testRunner(50*time.Millisecond).runStep(context.Background(), w.name, sys, cas)
			}
			if got := res.Skipped != ""; got != tc.wantSkipped {
				t.Errorf("skipped = %q, want skipped %v", res.Skipped, tc.wantSkipped)
			}
			if got := res.Error != ""; got != tc.wantError {
				t.Errorf("error = %q, want error %v", res.Error, tc.wantError)
			}
			if tc.wantSkipped && !strings.Contains(res.Skipped, "server does not support LWT yet") {
				t.Errorf("skip reason %q", res.Skipped)
			}
			if !tc.wantSkipped && !tc.wantError && (res.Requests == 0 || res.Rows != res.Requests) {
				t.Errorf("%d requests, %d applied; want all applied", res.Requests, res.Rows)
			}
		})
	}
}

func TestRSSSampler(t *testing.T) {
	s := startRSSSampler()
	buf := make([]byte, 32<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	time.Sleep(120 * time.Millisecond)
	peak := s.stop()
	if procStatusKB("VmRSS:") == 0 {
		t.Skip("no /proc/self/status")
	}
	if peak < 32<<20 {
		t.Errorf("peak RSS %s after touching 32 MiB", FormatBytes(peak))
	}
	_ = buf[len(buf)-1]
}
