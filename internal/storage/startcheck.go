package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"syscall"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/record"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// ErrDamaged marks an error from Open or VerifyFiles that means a file of
// the data directory is truncated or corrupt: the store cannot start on it
// as it is.
var ErrDamaged = errors.New("damaged data directory")

// storeFile finds the name of a store file in an error's text.
var storeFile = regexp.MustCompile(`(?:MANIFEST-\d+|OPTIONS-\d+|\d{6,}\.(?:sst|log|blob)|marker\.[A-Za-z.0-9-]+|CURRENT|file \d{6,})`)

// damagedHelp is what an operator can do about a damaged file.
const damagedHelp = "restore the data directory from a snapshot (partita restore --snapshot DIR --data-dir NEW; docs/operations.md, Backups), " +
	"or move the directory aside and start on an empty one"

// damaged returns the error for a file of dir that cannot be read.
func damaged(dir, file string, cause error) error {
	switch {
	case file == "":
		file = "a file"
	case strings.HasPrefix(file, "file "):
		file = strings.TrimPrefix(file, "file ") + ".sst"
	}
	// Pebble's errors may span lines; the message stays one line.
	why := strings.Join(strings.Fields(cause.Error()), " ")
	return fmt.Errorf("%w: %s in %s is truncated or corrupt (%s); the node cannot start on it: %s",
		ErrDamaged, file, dir, why, damagedHelp)
}

// openError explains why Pebble could not open dir, naming the file.
func openError(dir string, err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		return fmt.Errorf("open store in %s: no space left on the device (%v): free some space and start again", dir, err)
	}
	if isDamage(err) {
		return damaged(dir, storeFile.FindString(err.Error()), err)
	}
	return fmt.Errorf("open store in %s: %w", dir, err)
}

// isDamage reports whether a Pebble error is about a file's content.
func isDamage(err error) bool {
	if pebble.IsCorruptionError(err) || errors.Is(err, pebble.ErrCorruption) {
		return true
	}
	return storeFile.MatchString(err.Error()) && !errors.Is(err, syscall.ENOENT) && !errors.Is(err, syscall.EACCES)
}

// metaError names the damaged file when reading metadata (schema, roles,
// split states) fails on its content, as it does at start.
func (s *Store) metaError(err error) error {
	if isDamage(err) {
		return damaged(s.dir, storeFile.FindString(err.Error()), err)
	}
	return err
}

// verifyFiles checks, before the store opens for serving, that every
// sstable the MANIFEST lists is whole: its size is the one recorded, and
// its footer, index and properties parse and pass their checksums. Pebble
// reads these only when it first needs a table — some damaged footers make
// it panic in a background goroutine, which nothing can recover — so a
// truncated or overwritten sstable is found here, and named, instead. The
// store is opened read-only for this, without table statistics (the
// background reader), so the check writes nothing. Data blocks are checked
// when read. A new directory (no MANIFEST yet) has nothing to check.
//
// It also returns the bytes of write-ahead log the store replays at start:
// Pebble flushes them before its Open returns, and retries a failed flush
// for as long as it fails, so Open must not be asked to on a disk without
// room for them (Open opens read-only then).
func verifyFiles(fs vfs.FS, dir string, popts *pebble.Options) (walBytes uint64, err error) {
	names, err := fs.List(dir)
	if err != nil {
		return 0, nil // missing: Pebble creates it
	}
	manifest := ""
	for _, n := range names {
		if rest, ok := strings.CutPrefix(n, "marker.manifest."); ok {
			if i := strings.Index(rest, "MANIFEST-"); i >= 0 {
				manifest = rest[i:]
			}
		}
	}
	if manifest == "" {
		return 0, nil
	}
	manifestTail, err := readManifest(fs, dir, manifest)
	if err != nil {
		return 0, err
	}
	if err := checkNewestWAL(fs, dir, names); err != nil {
		return 0, err
	}
	check := popts.Clone()
	check.ReadOnly, check.DisableTableStats = true, true
	check.Experimental.CompactionScheduler = nil // Pebble's own: the store's gate serves one DB
	check.EventListener = &pebble.EventListener{DataCorruption: func(pebble.DataCorruptionInfo) {}}
	db, err := pebble.Open(dir, check)
	if err != nil {
		return 0, openError(dir, err)
	}
	defer db.Close()
	m := db.Metrics()
	// The replayed memtables hold what the flush at Open writes (their
	// arenas are sized to it); the WAL figures stay 0 when read-only.
	walBytes = max(m.MemTable.Size, m.WAL.Size, m.WAL.PhysicalSize)
	tables, err := db.SSTables()
	if err != nil {
		return 0, fmt.Errorf("verify store files in %s: %w", dir, err)
	}
	live := map[string]bool{}
	for _, level := range tables {
		for _, t := range level {
			if t.Virtual {
				continue
			}
			name := fmt.Sprintf("%06d.sst", uint64(t.FileNum))
			live[name] = true
			if err := verifyTable(fs, dir, name, t.Size); err != nil {
				return 0, damaged(dir, name, err)
			}
		}
	}
	if manifestTail != nil {
		// Pebble reads a MANIFEST up to its first bad record and drops what
		// follows, as a crash's torn last write; it then deletes the
		// sstables the edits it dropped had added. Whole sstables that the
		// MANIFEST does not list mean it lost edits that were written:
		// it was truncated or damaged, not torn by a crash.
		var lost []string
		for _, n := range names {
			if strings.HasSuffix(n, ".sst") && !live[n] {
				if st, err := fs.Stat(fs.PathJoin(dir, n)); err == nil && verifyTable(fs, dir, n, uint64(st.Size())) == nil {
					lost = append(lost, n)
				}
			}
		}
		if len(lost) > 0 {
			return 0, damaged(dir, manifest, fmt.Errorf("it ends in an incomplete record (%v) and does not list the whole sstables %s", manifestTail, strings.Join(lost, ", ")))
		}
	}
	return walBytes, nil
}

// readManifest reads every record of the MANIFEST: a record that fails its
// checksum with valid records after it is damage (an error naming the
// file); an incomplete last record, which a crash can also leave, is
// returned as tail for verifyFiles to judge.
func readManifest(fs vfs.FS, dir, name string) (tail error, err error) {
	f, err := fs.Open(fs.PathJoin(dir, name))
	if err != nil {
		return nil, damaged(dir, name, err)
	}
	defer f.Close()
	rr := record.NewReader(f, 0)
	for {
		r, err := rr.Next()
		if err == nil {
			_, err = io.Copy(io.Discard, r)
		}
		switch {
		case err == nil:
		case errors.Is(err, io.EOF):
			return nil, nil
		case errors.Is(err, record.ErrUnexpectedEOF):
			return err, nil
		default:
			return nil, damaged(dir, name, err)
		}
	}
}

// verifyTable opens one sstable on its own, as Pebble's table cache would.
func verifyTable(fs vfs.FS, dir, name string, size uint64) (err error) {
	f, err := fs.Open(fs.PathJoin(dir, name))
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	if uint64(st.Size()) != size {
		f.Close()
		return fmt.Errorf("%d bytes on disk, %d recorded in the MANIFEST", st.Size(), size)
	}
	readable, err := sstable.NewSimpleReadable(f)
	if err != nil {
		f.Close()
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			readable.Close()
			err = fmt.Errorf("unreadable footer or index: %v", p)
		}
	}()
	r, err := sstable.NewReader(context.Background(), readable, sstable.ReaderOptions{Merger: merger})
	if err != nil {
		readable.Close()
		return err
	}
	return r.Close()
}
