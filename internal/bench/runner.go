package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"
	"github.com/schollz/progressbar/v3"
)

// step is one measured phase of a workload, run the same way on every
// system.
type step struct {
	name string
	// stmt is what each request runs (ignored when build is set).
	stmt statement
	// build makes the op instead of system.prepare (the lwt workload).
	build func(ctx context.Context, sys system) (op, error)
	// requests is the number of requests; a timed step stops earlier when
	// Options.Duration has passed.
	requests int
	timed    bool
	// concurrency overrides Options.Concurrency (a single DELETE runs
	// alone).
	concurrency int
	// args returns request i's argument lists (several: one batch).
	args func(i int) [][]any
	// expect, when set, is the number of rows request i must read; other
	// counts are reported as mismatches.
	expect func(i int) int
	// width is the partition width the step measures at (wide workload).
	width int
	// ingest marks a bulk write: the Pebble floor repeats it and the
	// server's RSS is sampled while it runs (the in-process Partita's,
	// a Cassandra peer's JVM's).
	ingest bool
	// note describes a finished step's result (the lwt workload's applied
	// share).
	note func(Result) string
	// only, when set, lists the systems that run the step; the others
	// report it skipped, for the reason onlyWhy.
	only    []string
	onlyWhy string
	// before runs, untimed, before the step on each system that runs it
	// (the split workload enables splitting there); a *skipError skips
	// the step.
	before func(ctx context.Context, sys system) error
	// after runs, untimed and outside any CPU profile, once the step has
	// figures (the split workload waits for the split there); it may add
	// to res.Note.
	after func(ctx context.Context, sys system, res *Result) error
}

// Result is one system's figures for one step.
type Result struct {
	System   string  `json:"system"`
	Requests int64   `json:"requests"`
	Rows     int64   `json:"rows"`
	Seconds  float64 `json:"seconds"`
	// RequestsPerSec and RowsPerSec are the throughput; a batch is one
	// request of many rows.
	RequestsPerSec float64 `json:"requests_per_sec"`
	RowsPerSec     float64 `json:"rows_per_sec"`
	Latency        Summary `json:"latency"`
	// Mismatches counts reads that returned another number of rows than
	// the data holds.
	Mismatches int64 `json:"row_count_mismatches,omitempty"`
	// ServerErrors counts the requests of a timed step that the server
	// gave up on (serverGaveUp: Cassandra's compare-and-set under
	// contention, its reads past many deleted rows): not in Requests, Rows
	// or the throughput, but their time to that answer is in the latency
	// percentiles, which are then lower bounds of the time to a real
	// answer. FirstServerError is the first one's message.
	ServerErrors     int64  `json:"server_errors,omitempty"`
	FirstServerError string `json:"first_server_error,omitempty"`
	// Resent counts the requests of a counted step sent again after the
	// server gave up on them (send); a request's latency runs from its
	// first attempt to its answer.
	Resent int64 `json:"resent,omitempty"`
	// PeakRSS is the server process's peak resident set during the step
	// (a Partita or Cassandra server of its own; in-process, the harness's).
	PeakRSS int64 `json:"peak_rss_bytes,omitempty"`
	// ServerCPUSeconds is the CPU time, user and system, the server process
	// and its children (PostgreSQL's backends) spent during the step, and
	// ServerCPUMicrosPerRequest that per request answered (servers in
	// processes of their own only). Background work the step caused, or
	// the previous one left, is in it: compactions, flushes, splits.
	ServerCPUSeconds          float64 `json:"server_cpu_seconds,omitempty"`
	ServerCPUMicrosPerRequest float64 `json:"server_cpu_us_per_request,omitempty"`
	// ServerAllocBytes is the Go heap bytes a Partita server process
	// allocated during the step (go_memstats_alloc_bytes_total from its
	// /metrics, less the scrapes'), and ServerAllocBytesPerRequest that
	// per request.
	ServerAllocBytes           int64   `json:"server_alloc_bytes,omitempty"`
	ServerAllocBytesPerRequest float64 `json:"server_alloc_bytes_per_request,omitempty"`
	Note                       string  `json:"note,omitempty"`
	Skipped                    string  `json:"skipped,omitempty"`
	Error                      string  `json:"error,omitempty"`

	// hist holds the latencies behind Latency, for pooling rounds.
	hist *recorder
}

// ok reports whether the result carries figures.
func (r *Result) ok() bool {
	return r != nil && r.Error == "" && r.Skipped == "" && r.Requests+r.ServerErrors > 0
}

// skipError reports that a system cannot run a step yet; the step is
// reported as skipped, not failed.
type skipError struct{ reason string }

func (e *skipError) Error() string { return "skipped: " + e.reason }

// runner runs steps and shows their progress.
type runner struct {
	opts Options
}

// runStep prepares and runs st on sys. A harness or server failure is
// returned in Result.Error.
func (r *runner) runStep(ctx context.Context, workload string, sys system, st *step) Result {
	res := Result{System: sys.name()}
	if st.only != nil && !slices.Contains(st.only, sys.name()) {
		res.Skipped = st.onlyWhy
		return res
	}
	if writesOnly(sys.name()) && stepKind(st) == "read" {
		res.Skipped = "reads do not wait for the commit log: the batch-mode node's figures apply"
		return res
	}
	var o op
	var err error
	if st.before != nil {
		err = st.before(ctx, sys)
	}
	switch {
	case err != nil:
	case st.build != nil:
		o, err = st.build(ctx, sys)
	default:
		o, err = sys.prepare(ctx, st.stmt)
	}
	var skip *skipError
	switch {
	case errors.As(err, &skip):
		res.Skipped = skip.reason
		return res
	case err != nil:
		res.Error = err.Error()
		return res
	}
	if st.timed && (st.stmt.kind == kindRead || st.build != nil) {
		// A timed read first runs unrecorded for a tenth of its duration,
		// so that its figures describe the steady state, not the caches
		// and compactions the previous step left behind. A timed write
		// does not: its warm-up would write the rows it is to time.
		var warm Result
		r.drive(ctx, workload, sys.name(), st, o, r.opts.Duration/warmupDivisor, &warm)
		if warm.Error != "" {
			res.Error = "warm-up: " + warm.Error
			return res
		}
	}
	stopProfile := func() error { return nil }
	if r.opts.CPUProfileDir != "" && sys.name() == SystemPartita {
		if stopProfile, err = startCPUProfile(ctx, r.opts.CPUProfileDir, workload, st.name, sys); err != nil {
			res.Error = err.Error()
			return res
		}
	}
	var rss *rssSampler
	if sp, ok := sys.(serverProcess); ok && (st.ingest || sp.ownProcess()) && sp.serverPid() > 0 {
		rss = startRSSSamplerOf(strconv.Itoa(sp.serverPid()))
	}
	var meter *serverMeter
	var before meterReading
	if m, ok := sys.(metered); ok {
		if meter = m.meter(); meter != nil {
			before = meter.read(ctx, true)
		}
	}
	r.drive(ctx, workload, sys.name(), st, o, r.opts.Duration, &res)
	if meter != nil && res.Error == "" {
		meter.fill(before, meter.read(ctx, false), &res)
	}
	if err := stopProfile(); err != nil && res.Error == "" {
		res.Error = "CPU profile: " + err.Error()
	}
	if rss != nil {
		res.PeakRSS = rss.stop()
	}
	if st.note != nil && res.Error == "" {
		res.Note = st.note(res)
	}
	if st.after != nil && res.Error == "" {
		if err := st.after(ctx, sys, &res); err != nil {
			res.Error = err.Error()
		}
	}
	return res
}

// warmupDivisor sets a timed step's unrecorded warm-up to a fraction of
// its duration.
const warmupDivisor = 10

// drive runs the requests of st with the step's concurrency and fills res;
// a timed step runs for dur. A warm-up (dur below Options.Duration) shows
// no progress and logs nothing.
func (r *runner) drive(ctx context.Context, workload, sysName string, st *step, o op, dur time.Duration, res *Result) {
	conc := r.opts.Concurrency
	if st.concurrency > 0 {
		conc = st.concurrency
	}
	conc = min(conc, st.requests)
	var (
		t        tally
		firstErr error
		errOnce  sync.Once
		wg       sync.WaitGroup
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	recs := make([]*recorder, conc)
	start := time.Now()
	deadline := start.Add(dur)
	warmup := dur < r.opts.Duration
	var bar *progressbar.ProgressBar
	if !warmup {
		bar = r.newBar(fmt.Sprintf("%s %s %s", sysName, workload, st.name), st)
	}
	stopBar := r.tickBar(bar, st, start, &t.done)
	for w := range conc {
		recs[w] = newRecorder()
		wg.Add(1)
		go func(rec *recorder) {
			defer wg.Done()
			for ctx.Err() == nil {
				i := t.next.Add(1) - 1
				if i >= int64(st.requests) || (st.timed && time.Now().After(deadline)) {
					return
				}
				args := st.args(int(i))
				t0 := time.Now()
				n, again, err := send(ctx, st, o, args)
				rec.record(time.Since(t0))
				t.resent.Add(int64(again))
				// A timed step measures, and a server that gives up on a
				// request has been measured.
				if err != nil && st.timed && serverGaveUp(err) {
					t.giveUp(err)
					continue
				}
				if err != nil {
					errOnce.Do(func() { firstErr = fmt.Errorf("request %d: %w", i, err); cancel() })
					return
				}
				t.done.Add(1)
				if st.stmt.kind == kindRead || st.build != nil {
					t.rows.Add(int64(n))
				} else {
					t.rows.Add(int64(len(args)))
				}
				if st.expect != nil && n != st.expect(int(i)) {
					t.mismatches.Add(1)
				}
			}
		}(recs[w])
	}
	wg.Wait()
	elapsed := time.Since(start)
	stopBar()
	for _, rec := range recs[1:] {
		recs[0].merge(rec)
	}
	if firstErr != nil {
		res.Error = firstErr.Error()
		return
	}
	t.fill(res)
	res.Seconds = elapsed.Seconds()
	res.RequestsPerSec = float64(res.Requests) / res.Seconds
	res.RowsPerSec = float64(res.Rows) / res.Seconds
	res.Latency, res.hist = recs[0].summary(), recs[0]
	if warmup {
		return
	}
	fmt.Fprintf(r.opts.Log, "%-8s %-11s %-24s %12s requests  %12s rows  p50 %-7s p99 %s\n", sysName, workload, st.name,
		FormatRate(res.RequestsPerSec), FormatRate(res.RowsPerSec), FormatMillis(res.Latency.P50), FormatMillis(res.Latency.P99))
}

// tally is what the workers of a step count.
type tally struct {
	next, done, rows, mismatches, gaveUp, resent atomic.Int64
	firstGaveUp                                  atomic.Pointer[string]
}

// giveUp counts a request the server gave up on.
func (t *tally) giveUp(err error) {
	t.gaveUp.Add(1)
	msg := err.Error()
	t.firstGaveUp.CompareAndSwap(nil, &msg)
}

// fill copies the counts into res.
func (t *tally) fill(res *Result) {
	res.Requests, res.Rows, res.Mismatches = t.done.Load(), t.rows.Load(), t.mismatches.Load()
	res.ServerErrors, res.Resent = t.gaveUp.Load(), t.resent.Load()
	if msg := t.firstGaveUp.Load(); msg != nil {
		res.FirstServerError = *msg
	}
}

// newBar returns a progress bar for st, or nil when progress is not shown.
// A timed step's bar counts milliseconds of its duration.
func (r *runner) newBar(desc string, st *step) *progressbar.ProgressBar {
	if r.opts.Progress == io.Discard {
		return nil
	}
	total := int64(st.requests)
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(r.opts.Progress),
		progressbar.OptionSetDescription(fmt.Sprintf("%-45s", desc)),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(200 * time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetPredictTime(true),
	}
	if st.timed {
		total = r.opts.Duration.Milliseconds()
	} else {
		opts = append(opts, progressbar.OptionShowCount(), progressbar.OptionShowIts())
	}
	return progressbar.NewOptions64(total, opts...)
}

// tickBar moves bar every 200 ms until the returned function is called.
func (r *runner) tickBar(bar *progressbar.ProgressBar, st *step, start time.Time, done *atomic.Int64) func() {
	if bar == nil {
		return func() {}
	}
	update := func() {
		if st.timed {
			_ = bar.Set64(min(time.Since(start).Milliseconds(), r.opts.Duration.Milliseconds()))
		} else {
			_ = bar.Set64(done.Load())
		}
	}
	stop := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				update()
			}
		}
	}()
	return func() {
		close(stop)
		<-finished
		_ = bar.Finish()
		_ = bar.Clear()
	}
}

// startCPUProfile profiles the step into dir/<workload>-<step>.pprof: the
// server process's CPU (sys a profiler: its /admin/cpuprofile), or, for an
// in-process server, this process's, which then holds the server's work
// and the driver's (`go tool pprof -focus` separates them). The returned
// function stops the profile and writes it.
func startCPUProfile(ctx context.Context, dir, workload, stepName string, sys system) (func() error, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	name := strings.NewReplacer("@", "-at-", " ", "-", "/", "-").Replace(workload + "-" + stepName)
	path := filepath.Join(dir, name+".pprof")
	if p, ok := sys.(profiler); ok && p.canProfile() {
		return p.startProfile(ctx, path)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error { pprof.StopCPUProfile(); return f.Close() }, nil
}

// maxAttempts bounds the attempts of one request of a counted step.
const maxAttempts = 5

// send runs one request. A counted step writes what later steps read, so
// its request is sent again when the server gave up on it, up to
// maxAttempts in all: every counted step writes (INSERTs, one range
// DELETE), and sending the same write again is idempotent. It returns how
// many times the request was sent again.
func send(ctx context.Context, st *step, o op, args [][]any) (n, again int, err error) {
	for {
		n, err = o(ctx, args)
		if err == nil || st.timed || !serverGaveUp(err) || again == maxAttempts-1 || ctx.Err() != nil {
			return n, again, err
		}
		again++
	}
}

// serverGaveUp reports whether err is the server's reply that it could not
// serve the request, or not in time: WriteTimeout (0x1100), ReadTimeout
// (0x1200), ReadFailure (0x1300) or WriteFailure (0x1500), native protocol
// v4 §9 (Cassandra answers a local read that ran past its timeout with a
// ReadFailure), or no answer at all within requestTimeout (an overloaded
// Cassandra may not even send its timeout reply). Any other driver or
// transport error is none of these.
func serverGaveUp(err error) bool {
	if errors.Is(err, gocql.ErrTimeoutNoResponse) {
		return true
	}
	var re gocql.RequestError
	if !errors.As(err, &re) {
		return false
	}
	switch re.Code() {
	case gocql.ErrCodeWriteTimeout, gocql.ErrCodeReadTimeout, gocql.ErrCodeReadFailure, gocql.ErrCodeWriteFailure:
		return true
	}
	return false
}

// unsupported reports whether err is the server refusing a statement it
// does not implement: an Invalid (0x2200) reply, or any reply saying "not
// supported". Anything else is a failure.
func unsupported(err error) bool {
	var re gocql.RequestError
	if !errors.As(err, &re) {
		return false
	}
	return re.Code() == gocql.ErrCodeInvalid || strings.Contains(strings.ToLower(re.Message()), "not supported")
}
