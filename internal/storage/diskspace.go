package storage

import (
	"context"
	"errors"
	"log"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/partita-db/partita/internal/cqlerr"
)

// DefaultMinFreeBytes is the free space a store keeps on its file system
// unless Options say otherwise: Cassandra 5.0's min_free_space_per_drive
// default (config/Config.java, 50MiB).
const DefaultMinFreeBytes = 50 << 20

// How the reserve is watched: the poller reads the file system's free space
// every diskPollInterval; a write that the estimate refuses reads it again
// itself, at most every diskRecheckInterval, so a write after space returns
// succeeds without waiting for the poller. Lines about a full disk are
// logged at most every diskLogInterval.
const (
	diskPollInterval    = time.Second
	diskRecheckInterval = 100 * time.Millisecond
	diskLogInterval     = 10 * time.Second
	noSpaceBackoffMin   = 250 * time.Millisecond
	noSpaceBackoffMax   = 10 * time.Second
)

// errDiskFull is what a write refused for want of space returns: the
// failure a Cassandra node sends when applying a mutation locally throws
// (service/StorageProxy.java, LocalMutationRunnable: onFailure with
// RequestFailureReason.forException, UNKNOWN for an FSWriteError; the text
// is exceptions/RequestFailureException.java's), for one replica at ONE.
func errDiskFull() error {
	e := cqlerr.New(cqlerr.WriteFailure, "Operation failed - received 0 responses and 1 failures: UNKNOWN from /127.0.0.1:7000")
	e.Consistency, e.Received, e.BlockFor, e.NumFailures, e.WriteType = 1, 0, 1, 1, "SIMPLE"
	return e
}

// diskGuard keeps a free-space reserve on the store's file system, so that
// Pebble's WAL and MANIFEST writes, which end the process when they fail
// (a failed commit leaves Pebble's commit pipeline unusable), never meet a
// full disk: commits are refused once the free space, less what was
// committed since it was last read, would drop below the reserve. Reads
// never consult it. What is already committed still fits: the reserve is
// never smaller than a memtable's flush (Open raises it to that), the one
// write that does not pass admit. Compactions do not pass it either; one
// that finds no room fails and is retried, paced by noSpaceFS.
type diskGuard struct {
	fs      vfs.FS
	dir     string
	reserve int64 // 0: no guard (an in-memory file system)

	free     atomic.Int64 // available bytes at the last reading
	since    atomic.Int64 // bytes committed since that reading
	lastRead atomic.Int64 // unix nanos of that reading
	full     atomic.Bool  // the last check refused
	// readOnly: the store opened read-only, as the disk had no room to
	// flush the write-ahead log at start (replayNeed bytes); every write
	// is refused until a restart.
	readOnly   atomic.Bool
	replayNeed int64
	refused    atomic.Int64 // writes refused so far
	noSpace    atomic.Int64 // ENOSPC errors Pebble's background work met
	readMu     sync.Mutex   // one statfs at a time
	backoffMu  sync.Mutex
	backoff    time.Duration
	logs       rateLimitedLog

	stop chan struct{}
	done chan struct{}
}

func newDiskGuard(fs vfs.FS, dir string, reserve int64) *diskGuard {
	g := &diskGuard{fs: fs, dir: dir, reserve: reserve, stop: make(chan struct{}), done: make(chan struct{})}
	if reserve > 0 && g.read() != nil {
		g.reserve = 0 // the file system cannot tell its free space
	}
	if g.reserve <= 0 {
		close(g.done)
		return g
	}
	if g.free.Load() < g.reserve {
		g.setFull(true)
	}
	go g.poll()
	return g
}

// read takes a fresh reading of the free space.
func (g *diskGuard) read() error {
	g.readMu.Lock()
	defer g.readMu.Unlock()
	u, err := g.fs.GetDiskUsage(g.dir)
	if err != nil {
		return err
	}
	g.free.Store(int64(u.AvailBytes))
	g.since.Store(0)
	g.lastRead.Store(time.Now().UnixNano())
	return nil
}

func (g *diskGuard) poll() {
	defer close(g.done)
	t := time.NewTicker(diskPollInterval)
	defer t.Stop()
	for {
		select {
		case <-g.stop:
			return
		case <-t.C:
		}
		if err := g.read(); err != nil {
			g.logs.printf("statfs", "storage: cannot read the free space of %s: %v", g.dir, err)
			continue
		}
		switch {
		case g.readOnly.Load():
			if g.free.Load() >= g.replayNeed+g.reserve {
				g.logs.printf("readonly", "storage: %s has %d bytes free again: restart the node to accept writes (it opened read-only on a full disk)", g.dir, g.free.Load())
			}
		case g.free.Load() >= g.reserve:
			g.setFull(false)
			g.resetBackoff()
		default:
			g.setFull(true)
		}
	}
}

func (g *diskGuard) close() {
	if g.reserve > 0 {
		close(g.stop)
	}
	<-g.done
}

// admit decides whether a commit of n bytes may go to Pebble, and counts
// it against the free space when it may.
func (g *diskGuard) admit(n int) error {
	if g.readOnly.Load() {
		g.refused.Add(1)
		return errDiskFull()
	}
	if g.reserve <= 0 {
		return nil
	}
	if g.free.Load()-g.since.Load()-int64(n) < g.reserve {
		if time.Since(time.Unix(0, g.lastRead.Load())) >= diskRecheckInterval {
			_ = g.read()
		}
		if g.free.Load()-g.since.Load()-int64(n) < g.reserve {
			g.refused.Add(1)
			g.setFull(true)
			return errDiskFull()
		}
	}
	g.setFull(false)
	g.since.Add(int64(n))
	return nil
}

// setFull records whether writes are refused, logging each change.
func (g *diskGuard) setFull(full bool) {
	if !g.full.CompareAndSwap(!full, full) {
		return
	}
	left := g.free.Load() - g.since.Load()
	if full {
		log.Printf("storage: %s has about %d bytes free, below the reserve of %d (min_free_space_per_drive): writes are refused until space is freed; reads are served", g.dir, left, g.reserve)
	} else {
		log.Printf("storage: %s has %d bytes free again: writes are accepted", g.dir, left)
	}
}

// tooFullToReplay decides whether the store must open read-only: the
// write-ahead log replayed at start (walBytes) is flushed before Pebble's
// Open returns, and a flush that finds no room is retried until it fits,
// so Open would wait for space instead of serving reads. The flush needs
// about the log's size, and a little for the new MANIFEST, OPTIONS and WAL.
func (g *diskGuard) tooFullToReplay(walBytes uint64) bool {
	if g.reserve <= 0 || walBytes == 0 {
		return false
	}
	need := int64(walBytes)*11/10 + 1<<20
	if g.free.Load() >= need {
		return false
	}
	g.replayNeed = need
	g.readOnly.Store(true)
	g.setFull(true)
	log.Printf("storage: %s has %d bytes free, not enough to flush the %d bytes of write-ahead log replayed at start: "+
		"the node serves reads only and refuses writes; free at least %d bytes and restart it to accept writes",
		g.dir, g.free.Load(), walBytes, need)
	return true
}

// noSpaceError slows Pebble's background work down when it hits ENOSPC:
// Pebble retries a failed flush or compaction at once, so without a pause
// a nearly full disk turns into a busy loop. The pause doubles up to
// noSpaceBackoffMax and resets once the poller sees the reserve free.
func (g *diskGuard) noSpaceError(err error) {
	g.noSpace.Add(1)
	g.backoffMu.Lock()
	if g.backoff == 0 {
		g.backoff = noSpaceBackoffMin
	} else {
		g.backoff = min(2*g.backoff, noSpaceBackoffMax)
	}
	d := g.backoff
	g.backoffMu.Unlock()
	g.logs.printf("nospace", "storage: %v (in %s): background flushes and compactions retry with a pause of up to %s until space is freed", err, g.dir, noSpaceBackoffMax)
	time.Sleep(d)
}

func (g *diskGuard) resetBackoff() {
	g.backoffMu.Lock()
	g.backoff = 0
	g.backoffMu.Unlock()
}

// rateLimitedLog prints each kind of line at most once per diskLogInterval,
// with the count of lines it dropped in between.
type rateLimitedLog struct {
	mu      sync.Mutex
	last    map[string]time.Time
	dropped map[string]int
}

func (l *rateLimitedLog) printf(kind, format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last == nil {
		l.last, l.dropped = map[string]time.Time{}, map[string]int{}
	}
	if time.Since(l.last[kind]) < diskLogInterval {
		l.dropped[kind]++
		return
	}
	if n := l.dropped[kind]; n > 0 {
		format += " (%d similar lines suppressed)"
		args = append(args, n)
	}
	l.last[kind], l.dropped[kind] = time.Now(), 0
	log.Printf(format, args...)
}

func isNoSpace(err error) bool { return err != nil && errors.Is(err, syscall.ENOSPC) }

// noSpaceFS passes every call to its FS and reports ENOSPC from a write to
// the guard, which pauses the caller before the error goes back to Pebble.
type noSpaceFS struct {
	vfs.FS
	guard *diskGuard
}

func (fs noSpaceFS) wrap(f vfs.File, err error) (vfs.File, error) {
	if err != nil {
		fs.check(err)
		return f, err
	}
	return noSpaceFile{File: f, guard: fs.guard}, nil
}

func (fs noSpaceFS) check(err error) {
	if isNoSpace(err) {
		fs.guard.noSpaceError(err)
	}
}

func (fs noSpaceFS) Create(name string, c vfs.DiskWriteCategory) (vfs.File, error) {
	return fs.wrap(fs.FS.Create(name, c))
}

func (fs noSpaceFS) OpenReadWrite(name string, c vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	return fs.wrap(fs.FS.OpenReadWrite(name, c, opts...))
}

func (fs noSpaceFS) ReuseForWrite(oldname, newname string, c vfs.DiskWriteCategory) (vfs.File, error) {
	return fs.wrap(fs.FS.ReuseForWrite(oldname, newname, c))
}

func (fs noSpaceFS) Unwrap() vfs.FS { return fs.FS }

type noSpaceFile struct {
	vfs.File
	guard *diskGuard
}

func (f noSpaceFile) check(err error) error {
	if isNoSpace(err) {
		f.guard.noSpaceError(err)
	}
	return err
}

func (f noSpaceFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	return n, f.check(err)
}

func (f noSpaceFile) WriteAt(p []byte, off int64) (int, error) {
	n, err := f.File.WriteAt(p, off)
	return n, f.check(err)
}

func (f noSpaceFile) Preallocate(off, length int64) error {
	return f.check(f.File.Preallocate(off, length))
}

func (f noSpaceFile) Sync() error { return f.check(f.File.Sync()) }

func (f noSpaceFile) SyncData() error { return f.check(f.File.SyncData()) }

func (f noSpaceFile) SyncTo(length int64) (bool, error) {
	full, err := f.File.SyncTo(length)
	return full, f.check(err)
}

var readErrors rateLimitedLog

// readError turns an error of the store under a read (an I/O error, a
// checksum mismatch) into the failure a Cassandra node sends when its
// local read throws (service/StorageProxy.java, LocalReadRunnable:
// onFailure with RequestFailureReason.UNKNOWN), and logs the cause, which
// the client does not see. Errors that already carry a code, and a
// cancelled request, pass unchanged.
func readError(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var coded *cqlerr.Error
	if errors.As(err, &coded) {
		return err
	}
	readErrors.printf("read", "storage: read failed: %v", err)
	e := cqlerr.New(cqlerr.ReadFailure, "Operation failed - received 0 responses and 1 failures: UNKNOWN from /127.0.0.1:7000")
	e.Consistency, e.Received, e.BlockFor, e.NumFailures = 1, 0, 1, 1
	return e
}
