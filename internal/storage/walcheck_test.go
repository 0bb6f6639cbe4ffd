package storage

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// newestWAL writes rows to a store in dir, closes it, and returns the path
// of its newest WAL.
func newestWAL(t *testing.T, dir string) string {
	t.Helper()
	s, err := Open(Options{Dir: dir, MinFreeBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	p := testPartition(1, "k", 0)
	for i := range 3000 {
		mustApply(t, s, oneRow(p, i))
	}
	s.Close()
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	sort.Strings(logs)
	return logs[len(logs)-1]
}

func TestNewestWALDamage(t *testing.T) {
	t.Run("overwritten in the middle", func(t *testing.T) {
		dir := t.TempDir()
		wal := newestWAL(t, dir)
		f, err := os.OpenFile(wal, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteAt([]byte("\xde\xad\xbe\xef\xde\xad\xbe\xef"), 1024)
		f.Close()
		_, err = Open(Options{Dir: dir, MinFreeBytes: -1})
		if !errors.Is(err, ErrDamaged) {
			t.Fatalf("open with a damaged WAL: %v, want ErrDamaged", err)
		}
		t.Log(err)
	})
	t.Run("truncated, as a crash leaves it", func(t *testing.T) {
		dir := t.TempDir()
		wal := newestWAL(t, dir)
		st, _ := os.Stat(wal)
		if err := os.Truncate(wal, st.Size()/2+3); err != nil {
			t.Fatal(err)
		}
		s, err := Open(Options{Dir: dir, MinFreeBytes: -1})
		if err != nil {
			t.Fatalf("open after a torn WAL tail: %v", err)
		}
		s.Close()
	})
	t.Run("clean", func(t *testing.T) {
		dir := t.TempDir()
		newestWAL(t, dir)
		s, err := Open(Options{Dir: dir, MinFreeBytes: -1})
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		// A second start sees the log the first one left, with its trailer.
		s, err = Open(Options{Dir: dir, MinFreeBytes: -1})
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	})
}
