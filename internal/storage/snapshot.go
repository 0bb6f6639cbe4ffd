package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// SnapshotsDir is the directory, inside a data directory, that holds its
// snapshots, one directory per tag (Cassandra's <table>/snapshots/<tag>).
const SnapshotsDir = "snapshots"

// validTag is what a snapshot tag may be: a file name of one path element.
var validTag = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// SnapshotInfo describes one snapshot of a data directory.
type SnapshotInfo struct {
	Tag       string    `json:"tag"`
	Path      string    `json:"path"`
	CreatedAt time.Time `json:"created_at"`
	// Bytes is the size of its files; those hard-linked to the live store
	// take no extra space until the store compacts them away.
	Bytes int64 `json:"bytes"`
}

// ErrSnapshotExists is returned for a tag that is already taken.
var ErrSnapshotExists = errors.New("snapshot already exists")

// CheckTag validates a snapshot tag.
func CheckTag(tag string) error {
	if !validTag.MatchString(tag) {
		return fmt.Errorf("invalid snapshot tag %q: use letters, digits, '.', '_' and '-', starting with a letter or digit", tag)
	}
	return nil
}

// Checkpoint writes a consistent copy of the whole store — rows, schema, split
// states, since all live in it — into dir/snapshots/tag while the store
// keeps serving: a Pebble checkpoint, which hard-links the sstables and
// copies the WAL and MANIFEST up to the moment it starts. Every write
// acknowledged before Checkpoint is called is in the copy; a write
// acknowledged after it returns is not; a write in between is in it whole
// or not at all (a batch is atomic in the WAL).
func (s *Store) Checkpoint(dir, tag string) (SnapshotInfo, error) {
	if err := CheckTag(tag); err != nil {
		return SnapshotInfo{}, err
	}
	root := filepath.Join(dir, SnapshotsDir)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return SnapshotInfo{}, err
	}
	dest := filepath.Join(root, tag)
	if _, err := os.Stat(dest); err == nil {
		return SnapshotInfo{}, fmt.Errorf("%w: %s", ErrSnapshotExists, dest)
	}
	// The checkpoint's small copies (WAL, MANIFEST) must fit the reserve
	// too, or a commit could meet the full disk they leave.
	if err := s.disk.admit(1 << 20); err != nil {
		return SnapshotInfo{}, fmt.Errorf("snapshot %s: not enough free space in %s", tag, dir)
	}
	if err := s.db.Checkpoint(dest, pebble.WithFlushedWAL()); err != nil {
		os.RemoveAll(dest)
		return SnapshotInfo{}, fmt.Errorf("snapshot %s: %w", tag, err)
	}
	return snapshotInfo(root, tag)
}

// ListSnapshots lists the snapshots of data directory dir, oldest first.
func ListSnapshots(dir string) ([]SnapshotInfo, error) {
	root := filepath.Join(dir, SnapshotsDir)
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []SnapshotInfo
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		info, err := snapshotInfo(root, e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out, nil
}

// ClearSnapshot removes the snapshot tag of data directory dir; it
// reports whether there was one.
func ClearSnapshot(dir, tag string) (bool, error) {
	if err := CheckTag(tag); err != nil {
		return false, err
	}
	dest := filepath.Join(dir, SnapshotsDir, tag)
	if _, err := os.Stat(dest); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return true, os.RemoveAll(dest)
}

func snapshotInfo(root, tag string) (SnapshotInfo, error) {
	path := filepath.Join(root, tag)
	st, err := os.Stat(path)
	if err != nil {
		return SnapshotInfo{}, err
	}
	info := SnapshotInfo{Tag: tag, Path: path, CreatedAt: st.ModTime().UTC()}
	entries, err := os.ReadDir(path)
	if err != nil {
		return SnapshotInfo{}, err
	}
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			info.Bytes += fi.Size()
		}
	}
	return info, nil
}

// Restore makes data directory target from snapshot directory snapshot,
// for a node to start on: the snapshot's files are copied (never linked,
// so the restored store shares nothing with the snapshot). The target
// must be missing or empty, so that nothing is overwritten.
func Restore(snapshot, target string) error {
	if err := checkSnapshotDir(snapshot); err != nil {
		return err
	}
	if entries, err := os.ReadDir(target); err == nil && len(entries) > 0 {
		return fmt.Errorf("restore into %s: the directory is not empty; give a new or empty directory", target)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("restore into %s: %w", target, err)
	}
	if err := os.MkdirAll(target, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(snapshot)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if err := copyFile(filepath.Join(snapshot, e.Name()), filepath.Join(target, e.Name())); err != nil {
			return fmt.Errorf("restore %s: %w", e.Name(), err)
		}
	}
	d, err := os.Open(target)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// checkSnapshotDir checks that dir looks like a store: it has a MANIFEST.
func checkSnapshotDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", dir, err)
	}
	for _, e := range entries {
		if matched, _ := filepath.Match("MANIFEST-*", e.Name()); matched {
			return nil
		}
	}
	return fmt.Errorf("snapshot %s: not a snapshot (no MANIFEST file); snapshots are in <data_dir>/%s/<tag>", dir, SnapshotsDir)
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := out.ReadFrom(in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
