package split

import (
	"bytes"
	"context"
	"time"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/cqlerr"
)

// Scan reads a token range of logical partitions. Unsplit partitions come
// straight from the backend's scan; a split one (split when the scan
// started or when it is reached, or showing shards other than the home
// one) is read through the logical reader instead, and its physical rows in
// the scan are skipped.
func (l *Layer) Scan(ctx context.Context, cmd backend.ScanCommand) (backend.RowIterator, error) {
	var deadline time.Time
	if l.shared != nil {
		until, err := l.leased(ctx)
		if err != nil {
			return nil, err
		}
		deadline = until.Add(l.shared.opts.Drain)
	} else if l.reg.empty() {
		return l.backend.Scan(ctx, cmd)
	}
	splitAtStart := map[string]bool{}
	for _, s := range l.reg.all() {
		if s.Partition.Table == cmd.Table {
			splitAtStart[logicalKey(s.Partition)] = true
		}
	}
	it, err := l.backend.Scan(ctx, cmd)
	if err != nil {
		return nil, err
	}
	return &scanIter{l: l, ctx: ctx, cmd: cmd, it: it, splitAtStart: splitAtStart, deadline: deadline}, nil
}

type scanIter struct {
	l            *Layer
	ctx          context.Context
	cmd          backend.ScanCommand
	it           backend.RowIterator
	splitAtStart map[string]bool

	logical  backend.RowIterator // the logical reader of a split partition
	current  backend.LogicalPartition
	skipping []byte // logical key whose physical rows are skipped
	first    bool
	err      error
	// With shared states, the rows the scan returns straight from the
	// backend are read under a lease, as a partition's read is (leaseIter):
	// deadline is its end plus Drain, direct says the current partition
	// is read straight from the scan and currentEpoch is the epoch of its
	// state row when the scan reached it.
	deadline     time.Time
	direct       bool
	currentEpoch uint64
	// stats: what the logical readers read, minus the physical rows of
	// split partitions the scan met before skipping them.
	logicalStats, skipped backend.ReadStats
}

func (s *scanIter) Next() bool {
	for {
		if s.logical != nil {
			if s.logical.Next() {
				return true
			}
			if err := s.logical.Err(); err != nil {
				s.err = err
				return false
			}
			s.closeLogical()
		}
		before := s.it.Stats()
		more := s.it.Next()
		if err := s.checkLease(); err != nil {
			s.err = err
			return false
		}
		if !more {
			s.err = s.it.Err()
			return false
		}
		p := s.it.Partition()
		if s.skipping != nil && bytes.Equal(p.Key, s.skipping) {
			s.skipped = addStats(s.skipped, subStats(s.it.Stats(), before))
			s.it.SkipPartition()
			continue
		}
		s.skipping = nil
		lp := p.LogicalPartition
		state, epoch := s.l.reg.getWithEpoch(lp)
		if p.Shard == backend.HomeShard && !s.splitAtStart[logicalKey(lp)] && state == nil {
			s.current, s.direct, s.currentEpoch = lp, true, epoch
			return true
		}
		s.direct = false
		// A split partition: read it logically, then skip its shards.
		after := s.it.Stats()
		s.skipped = addStats(s.skipped, subStats(after, before))
		s.skipping = append([]byte(nil), p.Key...)
		s.it.SkipPartition()
		if err := s.openLogical(lp); err != nil {
			s.err = err
			return false
		}
	}
}

// checkLease is leaseIter's rule for the rows the scan returns straight
// from the backend, applied once the backend has answered: past the
// lease, a step may have moved rows of the partition being read away from
// its home shard, and a row, or the end of the partition, that arrived
// then may hide them. The scan goes on under a fresh lease when the
// partition's state row is at the epoch it was reached at; it fails
// otherwise, with the error a read gets.
func (s *scanIter) checkLease() error {
	if s.deadline.IsZero() || !time.Now().After(s.deadline) {
		return nil
	}
	until, err := s.l.leased(s.ctx)
	if err != nil {
		return err
	}
	if s.direct {
		stripe := s.l.stripe(s.current)
		s.l.routing[stripe].RLock()
		_, epoch := s.l.reg.getWithEpoch(s.current)
		s.l.routing[stripe].RUnlock()
		if epoch != s.currentEpoch {
			return cqlerr.New(cqlerr.ServerError, "the scan outlived the gateway's lease on the split states; retry it")
		}
	}
	s.deadline = until.Add(s.l.shared.opts.Drain)
	return nil
}

func (s *scanIter) openLogical(lp backend.LogicalPartition) error {
	slices := []backend.Slice{backend.FullSlice}
	if !s.first {
		s.first = true
		if s.cmd.After != nil && s.cmd.Start != nil && bytes.Equal(s.cmd.Start.Key, lp.Key) {
			slices = []backend.Slice{{Start: append(append([]byte(nil), s.cmd.After...), 0x00)}}
		}
	}
	r, err := s.l.Read(s.ctx, backend.ReadCommand{Partition: lp.Physical(backend.HomeShard), Slices: slices,
		Static: s.cmd.Static, Now: s.cmd.Now})
	if err != nil {
		return err
	}
	s.current, s.logical = lp, r
	return nil
}

func (s *scanIter) Row() *backend.Row {
	if s.logical != nil {
		return s.logical.Row()
	}
	return s.it.Row()
}

func (s *scanIter) Partition() backend.PhysicalPartition {
	return s.current.Physical(backend.HomeShard)
}

func (s *scanIter) SkipPartition() {
	if s.logical != nil {
		s.closeLogical()
		return
	}
	s.it.SkipPartition()
}

func (s *scanIter) closeLogical() {
	s.logicalStats = addStats(s.logicalStats, s.logical.Stats())
	s.logical.Close()
	s.logical = nil
}

func (s *scanIter) Stats() backend.ReadStats {
	st := addStats(subStats(s.it.Stats(), s.skipped), s.logicalStats)
	if s.logical != nil {
		st = addStats(st, s.logical.Stats())
	}
	return st
}

func addStats(a, b backend.ReadStats) backend.ReadStats {
	return backend.ReadStats{LiveRows: a.LiveRows + b.LiveRows, Tombstones: a.Tombstones + b.Tombstones, Bytes: a.Bytes + b.Bytes}
}

func subStats(a, b backend.ReadStats) backend.ReadStats {
	return backend.ReadStats{LiveRows: a.LiveRows - b.LiveRows, Tombstones: a.Tombstones - b.Tombstones, Bytes: a.Bytes - b.Bytes}
}
func (s *scanIter) Err() error { return s.err }

func (s *scanIter) Close() error {
	if s.logical != nil {
		s.logical.Close()
	}
	return s.it.Close()
}
