package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/v2/sstable"

	"github.com/partita-db/partita/internal/backend"
)

// bulkFileBytes is the size at which a bulk load starts its next sstable.
const bulkFileBytes = 256 << 20

// bulkHeadersPerBatch bounds the header operands one commit of Finish
// carries.
const bulkHeadersPerBatch = 10_000

// BulkLoader writes rows of partitions straight into sstables, in key order,
// and ingests them into the store when it finishes: the keys and values are
// those Apply writes (rows as merge operands, encoded as Apply encodes them;
// invariant 1, 2), and each partition gets the header operand Apply would
// merge for the same rows, so the store reads the data as any other. A load
// skips the WAL, the memtables and the compactions a write goes through,
// which makes it the way to build a data set of many gigabytes for a
// benchmark in minutes.
//
// Mutations must come in key order: physical partitions in the store's key
// order (table, token, partition key, shard) and, within one, rows in
// clustering order; one partition may span several consecutive Add calls.
// They may carry rows only (no partition or range deletion, no static row).
// The partitions loaded must not be written while the load runs. Nothing is
// visible before Finish returns; Abort drops what was written.
type BulkLoader struct {
	s     *Store
	tmp   string // directory of the sstables being written
	opts  sstable.WriterOptions
	w     *sstable.Writer
	paths []string
	// last is the newest key written; key and value are scratch buffers.
	last, key, value []byte
	// prefix and hdr are the partition being written and its header.
	prefix  []byte
	hdr     header
	headers []bulkHeader
	rows    int64
	done    bool
}

type bulkHeader struct {
	prefix []byte
	h      header
}

// NewBulkLoader starts a load; its sstables are written in a directory of
// their own inside the store's directory until Finish ingests them.
func (s *Store) NewBulkLoader() (*BulkLoader, error) {
	if s.db == nil || s.closed.Load() {
		return nil, errors.New("storage: bulk load on a closed store")
	}
	tmp := s.fs.PathJoin(s.dir, "bulk-load")
	if err := s.fs.RemoveAll(tmp); err != nil {
		return nil, fmt.Errorf("bulk load: %w", err)
	}
	if err := s.fs.MkdirAll(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("bulk load: %w", err)
	}
	po := s.popts.Clone()
	po.EnsureDefaults()
	// The files are ingested into the bottom level when nothing overlaps
	// them: they are written as the bottom level's.
	return &BulkLoader{s: s, tmp: tmp, opts: po.MakeWriterOptions(len(po.Levels)-1, s.db.TableFormat())}, nil
}

// Rows is the number of rows added so far.
func (l *BulkLoader) Rows() int64 { return l.rows }

// Add writes m's rows.
func (l *BulkLoader) Add(m *backend.Mutation) error {
	if l.done {
		return errors.New("storage: bulk load already finished")
	}
	if !m.PartitionDeletion.IsLive() || len(m.RangeTombstones) > 0 || m.Static != nil {
		return errors.New("storage: a bulk load takes rows only (no deletion, no static row)")
	}
	prefix := appendPhysical(nil, m.Partition)
	if !bytes.Equal(prefix, l.prefix) {
		l.endPartition()
		l.prefix, l.hdr = prefix, newHeader()
	}
	for i := range m.Rows {
		r := &m.Rows[i]
		l.key = append(append(append(l.key[:0], prefix...), kindRow), r.Clustering...)
		if l.last != nil && bytes.Compare(l.key, l.last) <= 0 {
			return fmt.Errorf("storage: bulk load keys out of order (row %d of partition %x)", i, m.Partition.Key)
		}
		l.value = encodeRow(l.value[:0], r)
		if err := l.writer(); err != nil {
			return err
		}
		if err := l.w.Merge(l.key, l.value); err != nil {
			return fmt.Errorf("bulk load: %w", err)
		}
		l.last = append(l.last[:0], l.key...)
		l.hdr.maxTimestamp = max(l.hdr.maxTimestamp, r.MaxTimestamp())
		l.hdr.rowsWritten++
		l.hdr.bytesWritten += int64(len(l.value) + len(r.Clustering))
		if !r.Deletion.IsLive() {
			l.hdr.tombstonesWritten++
		}
		l.rows++
		if l.w.Raw().EstimatedSize() >= bulkFileBytes {
			if err := l.closeWriter(); err != nil {
				return err
			}
		}
	}
	return nil
}

// endPartition keeps the header of the partition written so far.
func (l *BulkLoader) endPartition() {
	if l.prefix != nil && l.hdr.rowsWritten > 0 {
		l.headers = append(l.headers, bulkHeader{prefix: l.prefix, h: l.hdr})
	}
}

// writer opens the next sstable if none is open.
func (l *BulkLoader) writer() error {
	if l.w != nil {
		return nil
	}
	path := l.s.fs.PathJoin(l.tmp, fmt.Sprintf("%06d.sst", len(l.paths)))
	f, err := l.s.fs.Create(path, "")
	if err != nil {
		return fmt.Errorf("bulk load: %w", err)
	}
	l.w = sstable.NewWriter(objstorageprovider.NewFileWritable(f), l.opts)
	l.paths = append(l.paths, path)
	return nil
}

func (l *BulkLoader) closeWriter() error {
	if l.w == nil {
		return nil
	}
	err := l.w.Close()
	l.w = nil
	if err != nil {
		return fmt.Errorf("bulk load: %w", err)
	}
	return nil
}

// Finish ingests the sstables, then commits the partitions' headers (the
// headers sort before the rows they describe, so they cannot go into the
// sstables of a load that streams partitions larger than memory).
func (l *BulkLoader) Finish(ctx context.Context) error {
	if l.done {
		return errors.New("storage: bulk load already finished")
	}
	l.done = true
	defer l.s.fs.RemoveAll(l.tmp)
	if err := l.closeWriter(); err != nil {
		return err
	}
	l.endPartition()
	if len(l.paths) > 0 {
		if err := l.s.db.Ingest(ctx, l.paths); err != nil {
			return fmt.Errorf("bulk load: ingest: %w", err)
		}
	}
	var buf []byte
	for len(l.headers) > 0 {
		n := min(len(l.headers), bulkHeadersPerBatch)
		b := l.s.db.NewBatch()
		for _, h := range l.headers[:n] {
			buf = h.h.encode(buf[:0])
			if err := b.Merge(append(append([]byte(nil), h.prefix...), kindHeader), buf, nil); err != nil {
				b.Close()
				return err
			}
		}
		err := b.Commit(pebble.Sync)
		b.Close()
		if err != nil {
			return fmt.Errorf("bulk load: headers: %w", err)
		}
		l.headers = l.headers[n:]
	}
	return nil
}

// Abort drops an unfinished load.
func (l *BulkLoader) Abort() {
	if l.done {
		return
	}
	l.done = true
	if l.w != nil {
		_ = l.w.Close()
		l.w = nil
	}
	_ = l.s.fs.RemoveAll(l.tmp)
}
