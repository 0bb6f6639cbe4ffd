package storage

import (
	"math/rand/v2"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// CrashableFS is an in-memory file system that can show what a machine
// crash would leave on disk: every synced byte, and a random part of what
// was written but not yet synced. Crash tests open a Store on one
// (Options.CrashableFS), crash it, and open a new Store on the copy.
type CrashableFS struct{ fs *vfs.MemFS }

// NewCrashableFS returns an empty crashable file system.
func NewCrashableFS() *CrashableFS { return &CrashableFS{fs: vfs.NewCrashableMem()} }

// Crash returns the file system as a crash at this moment could leave it:
// everything synced, plus each unsynced block or directory entry with
// probability unsyncedPercent/100 (rng decides). The receiver keeps working
// for the store still open on it; close that store after the crash (its
// later writes do not reach the copy).
func (c *CrashableFS) Crash(unsyncedPercent int, rng *rand.Rand) *CrashableFS {
	cfg := vfs.CrashCloneCfg{UnsyncedDataPercent: unsyncedPercent}
	if unsyncedPercent > 0 {
		cfg.RNG = rng
	}
	return &CrashableFS{fs: c.fs.CrashClone(cfg)}
}
