package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
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
	// in-process server's RSS is sampled while it runs.
	ingest bool
	// note describes a finished step's result (the lwt workload's applied
	// share).
	note func(Result) string
	// only, when set, is the one system that runs the step; the others
	// report it skipped, for the reason onlyWhy.
	only, onlyWhy string
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
	Mismatches int64  `json:"row_count_mismatches,omitempty"`
	PeakRSS    int64  `json:"peak_rss_bytes,omitempty"`
	Note       string `json:"note,omitempty"`
	Skipped    string `json:"skipped,omitempty"`
	Error      string `json:"error,omitempty"`
}

// ok reports whether the result carries figures.
func (r *Result) ok() bool { return r != nil && r.Error == "" && r.Skipped == "" && r.Requests > 0 }

// skipError reports that a system cannot run a step yet; the step is
// reported as skipped, not failed.
type skipError struct{ reason string }

func (e *skipError) Error() string { return "skipped: " + e.reason }

// runner runs steps and shows their progress.
type runner struct {
	opts      Options
	inProcess bool // the Partita server runs in this process
}

// runStep prepares and runs st on sys. A harness or server failure is
// returned in Result.Error.
func (r *runner) runStep(ctx context.Context, workload string, sys system, st *step) Result {
	res := Result{System: sys.name()}
	if st.only != "" && sys.name() != st.only {
		res.Skipped = st.onlyWhy
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
	stopProfile := func() {}
	if r.opts.CPUProfileDir != "" && sys.name() == SystemPartita {
		if stopProfile, err = startCPUProfile(r.opts.CPUProfileDir, workload, st.name); err != nil {
			res.Error = err.Error()
			return res
		}
	}
	var rss *rssSampler
	if st.ingest && r.inProcess && sys.name() == SystemPartita {
		rss = startRSSSampler()
	}
	r.drive(ctx, workload, sys.name(), st, o, r.opts.Duration, &res)
	stopProfile()
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
		next, done, rows, mismatches atomic.Int64
		firstErr                     error
		errOnce                      sync.Once
		wg                           sync.WaitGroup
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
	stopBar := r.tickBar(bar, st, start, &done)
	for w := range conc {
		recs[w] = newRecorder()
		wg.Add(1)
		go func(rec *recorder) {
			defer wg.Done()
			for ctx.Err() == nil {
				i := next.Add(1) - 1
				if i >= int64(st.requests) || (st.timed && time.Now().After(deadline)) {
					return
				}
				args := st.args(int(i))
				t0 := time.Now()
				n, err := o(ctx, args)
				rec.record(time.Since(t0))
				if err != nil {
					errOnce.Do(func() { firstErr = fmt.Errorf("request %d: %w", i, err); cancel() })
					return
				}
				done.Add(1)
				if st.stmt.kind == kindRead || st.build != nil {
					rows.Add(int64(n))
				} else {
					rows.Add(int64(len(args)))
				}
				if st.expect != nil && n != st.expect(int(i)) {
					mismatches.Add(1)
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
	res.Requests, res.Rows, res.Mismatches = done.Load(), rows.Load(), mismatches.Load()
	res.Seconds = elapsed.Seconds()
	res.RequestsPerSec = float64(res.Requests) / res.Seconds
	res.RowsPerSec = float64(res.Rows) / res.Seconds
	res.Latency = recs[0].summary()
	if warmup {
		return
	}
	fmt.Fprintf(r.opts.Log, "%-8s %-11s %-24s %12s requests  %12s rows  p50 %-7s p99 %s\n", sysName, workload, st.name,
		FormatRate(res.RequestsPerSec), FormatRate(res.RowsPerSec), FormatMillis(res.Latency.P50), FormatMillis(res.Latency.P99))
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

// startCPUProfile profiles the process into dir/<workload>-<step>.pprof.
// The server runs in this process, so the profile holds the server's work
// and the driver's; `go tool pprof -focus` separates them.
func startCPUProfile(dir, workload, stepName string) (func(), error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	name := strings.NewReplacer("@", "-at-", " ", "-", "/", "-").Replace(workload + "-" + stepName)
	f, err := os.Create(filepath.Join(dir, name+".pprof"))
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
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
