package storage

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/cqlerr"
)

// sizedFS is an in-memory file system that reports the free space a test
// sets.
type sizedFS struct {
	vfs.FS
	avail atomic.Int64
}

func (fs *sizedFS) GetDiskUsage(string) (vfs.DiskUsage, error) {
	a := uint64(fs.avail.Load())
	return vfs.DiskUsage{AvailBytes: a, TotalBytes: 1 << 40, UsedBytes: 1<<40 - a}, nil
}

func oneRow(p backend.PhysicalPartition, i int) backend.Mutation {
	m := backend.NewMutation(p)
	m.Rows = []backend.Row{rowOf(ck(i), 10, regularCell(1, fmt.Sprint("v", i), 10))}
	return m
}

func TestDiskReserveRefusesWrites(t *testing.T) {
	fs := &sizedFS{FS: vfs.NewMem()}
	fs.avail.Store(100 << 20)
	s := openMem(t, Options{fs: fs, MinFreeBytes: 50 << 20})
	p := testPartition(1, "k", 0)
	mustApply(t, s, oneRow(p, 1))

	// Below the reserve: writes fail with Cassandra's WriteFailure for a
	// replica that could not apply the mutation; reads go on.
	// The poller reads the file system every diskPollInterval.
	fs.avail.Store(40 << 20)
	time.Sleep(diskPollInterval + 200*time.Millisecond)
	if !s.Stats().DiskFull {
		t.Fatal("the poller did not see the disk full")
	}
	err := s.Apply(context.Background(), &backend.WriteBatch{Mutations: []backend.Mutation{oneRow(p, 2)}})
	e := cqlerr.As(err)
	if e == nil || e.Code != cqlerr.WriteFailure || e.NumFailures != 1 || e.BlockFor != 1 || e.WriteType != "SIMPLE" {
		t.Fatalf("write below the reserve: %v, want WriteFailure", err)
	}
	if st := s.Stats(); !st.DiskFull || st.WritesRefused != 1 || st.DiskReserveBytes != 50<<20 || st.DiskFreeBytes != 40<<20 {
		t.Fatalf("stats %+v: want full, one write refused, 40MiB free of a 50MiB reserve", st)
	}
	rows, _ := readRows(t, s, backend.ReadCommand{Partition: p, Slices: []backend.Slice{backend.FullSlice}})
	if len(rows) != 1 {
		t.Fatalf("read on a full disk: %d rows, want the 1 acknowledged", len(rows))
	}

	// Space returns: the next write reads the free space again itself,
	// without waiting for the poller.
	fs.avail.Store(100 << 20)
	time.Sleep(diskRecheckInterval + 10*time.Millisecond)
	start := time.Now()
	mustApply(t, s, oneRow(p, 3))
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Fatalf("the write after space returned took %s", d)
	}
	if s.Stats().DiskFull {
		t.Fatal("still full after space returned")
	}
}

func TestDiskReserveCountsWritesBetweenReadings(t *testing.T) {
	fs := &sizedFS{FS: vfs.NewMem()}
	fs.avail.Store(50<<20 + 64<<10)
	s := openMem(t, Options{fs: fs, MinFreeBytes: 50 << 20})
	p := testPartition(1, "k", 0)
	// 64 KiB above the reserve: rows of about 1 KiB fit until the bytes
	// committed since the last reading use up the margin, even though the
	// file system (a fake) still reports the same free space.
	big := strings.Repeat("x", 1024)
	var n int
	for n = 0; n < 1000; n++ {
		m := backend.NewMutation(p)
		m.Rows = []backend.Row{rowOf(ck(n), 10, regularCell(1, big, 10))}
		if err := s.Apply(context.Background(), &backend.WriteBatch{Mutations: []backend.Mutation{m}}); err != nil {
			if !cqlerr.Is(err, cqlerr.WriteFailure) {
				t.Fatal(err)
			}
			break
		}
	}
	if n == 0 || n > 64 {
		t.Fatalf("%d rows of 1 KiB fitted in a 64 KiB margin", n)
	}
}

func TestNoSpaceErrorsArePaced(t *testing.T) {
	g := &diskGuard{reserve: 1}
	f := noSpaceFile{File: enospcFile{}, guard: g}
	start := time.Now()
	for range 3 {
		if _, err := f.Write([]byte("x")); !isNoSpace(err) {
			t.Fatalf("write: %v, want ENOSPC passed on", err)
		}
	}
	// 250 ms, then 500 ms, then 1 s: a retry loop cannot spin.
	if d := time.Since(start); d < 1700*time.Millisecond {
		t.Fatalf("three ENOSPC writes returned in %s, want paced (>= 1.75 s)", d)
	}
	if g.noSpace.Load() != 3 {
		t.Fatalf("counted %d ENOSPC errors, want 3", g.noSpace.Load())
	}
	g.resetBackoff()
	start = time.Now()
	_, _ = f.Write([]byte("x"))
	if d := time.Since(start); d > noSpaceBackoffMin+200*time.Millisecond {
		t.Fatalf("after a reset the pause was %s, want %s", d, noSpaceBackoffMin)
	}
}

type enospcFile struct{ vfs.File }

func (enospcFile) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestReadIOError injects an I/O error into every read of an sstable
// (Pebble's errorfs): the read fails with the ReadFailure Cassandra sends
// when its local read throws (service/StorageProxy.java, LocalReadRunnable),
// and once the device answers again reads are served.
func TestReadIOError(t *testing.T) {
	toggle := &errorfs.Toggle{Injector: errorfs.InjectorFunc(func(op errorfs.Op) error {
		if (op.Kind == errorfs.OpFileReadAt || op.Kind == errorfs.OpFileRead) && strings.HasSuffix(op.Path, ".sst") {
			return errorfs.ErrInjected
		}
		return nil
	})}
	s := openMem(t, Options{fs: errorfs.Wrap(vfs.NewMem(), toggle)})
	p, other := testPartition(1, "k", 0), testPartition(1, "other", 0)
	mustApply(t, s, oneRow(p, 1))
	if err := s.flush(); err != nil {
		t.Fatal(err)
	}
	mustApply(t, s, oneRow(other, 1)) // in the memtable: no sstable read

	toggle.On()
	it, err := s.Read(context.Background(), backend.ReadCommand{Partition: p, Slices: []backend.Slice{backend.FullSlice}})
	if err == nil {
		for it.Next() {
		}
		err = it.Err()
		it.Close()
	}
	e := cqlerr.As(err)
	if e == nil || e.Code != cqlerr.ReadFailure || e.NumFailures != 1 ||
		e.Message != "Operation failed - received 0 responses and 1 failures: UNKNOWN from /127.0.0.1:7000" {
		t.Fatalf("read with an I/O error: %v, want ReadFailure", err)
	}
	// Other requests are served meanwhile.
	mustApply(t, s, oneRow(other, 2))
	toggle.Off()
	if rows, _ := readRows(t, s, backend.ReadCommand{Partition: p, Slices: []backend.Slice{backend.FullSlice}}); len(rows) != 1 {
		t.Fatalf("read after the device recovered: %d rows, want 1", len(rows))
	}
	if rows, _ := readRows(t, s, backend.ReadCommand{Partition: other, Slices: []backend.Slice{backend.FullSlice}}); len(rows) != 2 {
		t.Fatalf("other partition: %d rows, want 2", len(rows))
	}
}
