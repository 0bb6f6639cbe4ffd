package exec

import (
	"bytes"
	"context"
	"sort"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/plan"
	"github.com/partita-db/partita/internal/token"
)

// indexScan is one page of an index query: it walks the index entries for
// one value in base order (token, partition key, clustering key) and reads
// the base rows they name. The page resumes right after the entry of the
// last row returned, so a page reads the entries of its own rows (and of
// the rows the filters reject), whatever the number of entries before it.
type indexScan struct {
	r     *selectRun
	state *pagingState
	value []byte
	// check is the indexed expression: a candidate that fails it comes from
	// a stale entry.
	check []compiledFilter
	// partitionEntries: the index is on a static or partition key column,
	// its entries name whole partitions.
	partitionEntries bool
	// slices are the query's clustering slices (sliced: it restricts
	// clustering columns).
	slices []backend.Slice
	sliced bool
	// current is the base partition of the entries being read.
	current []byte
	stale   []backend.Mutation
}

// indexLookupValue is the value the index is searched for.
func (r *selectRun) indexLookupValue() ([]byte, error) {
	rs := r.p.IndexValue
	var t *plan.Term
	switch {
	case rs.Kind == plan.RestrictMapEQ:
		key, value, err := r.ev.mapEntry(plan.MapEntry{Key: rs.MapKey, Value: rs.Value}, rs)
		if err != nil {
			return nil, err
		}
		return entryIndexValue(key, value), nil
	case rs.Kind == plan.RestrictEQ:
		t = rs.Value
	case len(rs.Contains) > 0:
		t = rs.Contains[0]
	default:
		t = rs.ContainsKey[0]
	}
	v, err := r.indexTerm(t, rs)
	if err != nil || !rs.Multi {
		return v, err
	}
	// (c) = (v): the tuple's one component.
	parts, err := splitTuple(true, rs.Columns, v)
	if err != nil {
		return nil, err
	}
	return parts[0], nil
}

func (r *selectRun) indexTerm(t *plan.Term, rs *plan.Restriction) ([]byte, error) {
	v, unset, err := r.ev.evalValid(t)
	if err != nil {
		return nil, err
	}
	if unset || v == nil {
		return nil, cqlerr.Invalidf("Unsupported null value for column %s", rs.Columns[0].Name)
	}
	return v, nil
}

// runIndex answers a query from a secondary index.
func (r *selectRun) runIndex(ctx context.Context, state *pagingState) error {
	value, err := r.indexLookupValue()
	if err != nil {
		return err
	}
	if len(value) > maxIndexedValue {
		return cqlerr.Invalidf("Index expression values may not be larger than 64K")
	}
	s := &indexScan{r: r, state: state, value: value, sliced: len(r.p.Clustering) > 0}
	if s.check, err = r.ev.compileFilters([]*plan.Restriction{r.p.IndexValue}); err != nil {
		return err
	}
	if s.slices, err = r.slices(); err != nil {
		return err
	}
	tr := TraceFrom(ctx)
	if tr != nil {
		tr.Event("Index used: " + r.p.Index.Name)
	}
	kind := r.p.IndexValue.Columns[0].Kind
	s.partitionEntries = kind == catalog.Static || kind == catalog.PartitionKey
	ranges, err := s.ranges()
	if err != nil {
		return err
	}
	for len(ranges) > 0 && !r.done {
		skipTo, err := s.read(ctx, ranges)
		if err != nil {
			return err
		}
		if skipTo == nil {
			break
		}
		ranges = intersectSlices(ranges, backend.Slice{Start: skipTo})
	}
	if s.current != nil && !s.partitionEntries && !r.done {
		if err := r.endPartition(); err != nil {
			return err
		}
	}
	if tr != nil {
		// The base rows read, over every partition the entries named.
		traceReadStats(tr, r.liveRows, r.tombstones)
	}
	if len(s.stale) > 0 {
		return r.x.apply(ctx, s.stale)
	}
	return nil
}

// ranges are the entry keys that may hold candidates: those of the
// partitions the query names, or of its token range, after the paging
// state's position.
func (s *indexScan) ranges() ([]backend.Slice, error) {
	r := s.r
	ranges := []backend.Slice{backend.FullSlice}
	switch {
	case r.p.PartitionKey != nil:
		keys, err := r.keys()
		if err != nil {
			return nil, err
		}
		ranges = ranges[:0]
		for _, k := range keys {
			ranges = append(ranges, backend.PrefixSlice(partitionEntryPrefix(k.logical)))
		}
		sort.Slice(ranges, func(i, j int) bool { return bytes.Compare(ranges[i].Start, ranges[j].Start) < 0 })
	case r.p.Token != nil:
		var cmd backend.ScanCommand
		if err := r.tokenBounds(&cmd); err != nil {
			return nil, err
		}
		ranges = []backend.Slice{tokenEntrySlice(cmd.Start, cmd.End)}
	}
	if s.state != nil {
		ranges = intersectSlices(ranges, backend.Slice{Start: s.resumeKey()})
	}
	return ranges, nil
}

// resumeKey is the first entry key a resumed page reads: the resumed
// partition's entry again when the index names partitions (the partition
// read resumes after the last row), else the entry after the last row's.
func (s *indexScan) resumeKey() []byte {
	st := s.state
	base := backend.LogicalPartition{Table: s.r.p.Table.StorageID, Token: token.Of(st.partition), Key: st.partition}
	prefix := partitionEntryPrefix(base)
	switch {
	case st.clustering == nil:
		return backend.PrefixSuccessor(prefix) // that partition is finished
	case s.partitionEntries:
		return prefix
	}
	return append(entryKey(base, st.clustering), 0x00)
}

// tokenEntrySlice is the range of entry keys whose base token lies between
// two bounds (entry keys start with the base token, order-preserving).
func tokenEntrySlice(start, end *backend.TokenBound) backend.Slice {
	var out backend.Slice
	if start != nil {
		out.Start = token.AppendOrdered(nil, start.Token)
		if !start.Inclusive {
			if out.Start = backend.PrefixSuccessor(out.Start); out.Start == nil {
				return backend.Slice{Start: []byte{1}, End: []byte{0}} // after the largest token: empty
			}
		}
	}
	if end != nil {
		out.End = token.AppendOrdered(nil, end.Token)
		if end.Inclusive {
			out.End = backend.PrefixSuccessor(out.End) // nil past the largest token: unbounded
		}
	}
	return out
}

// intersectSlices keeps the parts of sorted, disjoint slices inside bound.
func intersectSlices(slices []backend.Slice, bound backend.Slice) []backend.Slice {
	var out []backend.Slice
	for _, x := range slices {
		if y := x.Intersect(bound); !y.IsEmpty() {
			out = append(out, y)
		}
	}
	return out
}

// read walks the entries in ranges until the page is full or the entries
// end. It returns the key to continue from when the rest of a base
// partition's entries can be skipped (PER PARTITION LIMIT reached), nil
// otherwise.
func (s *indexScan) read(ctx context.Context, ranges []backend.Slice) ([]byte, error) {
	r := s.r
	t := r.p.Table
	it, err := r.x.store.Read(ctx, backend.ReadCommand{Partition: indexPartition(r.p.Index, s.value),
		Slices: ranges, Now: r.now})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	for !r.done && it.Next() {
		entry := it.Row()
		base, ck, err := decodeEntryKey(t.StorageID, entry.Clustering)
		if err != nil {
			return nil, err
		}
		samePartition := s.current != nil && bytes.Equal(s.current, base.Key)
		if s.partitionEntries {
			// One entry per partition (an index on a partition key column
			// written before partition entries has one per row: the first
			// stands for the partition).
			if !samePartition {
				s.current = append(s.current[:0], base.Key...)
				if err := s.partitionCandidate(ctx, base, entry); err != nil {
					return nil, err
				}
			}
			continue
		}
		if !samePartition {
			if err := s.beginPartition(base); err != nil {
				return nil, err
			}
		}
		if err := s.rowCandidate(ctx, base, ck, entry); err != nil {
			return nil, err
		}
		if r.partitionFull() && !r.done {
			return backend.PrefixSuccessor(partitionEntryPrefix(base)), it.Err()
		}
	}
	return nil, it.Err()
}

// beginPartition starts the base partition of the next row entries.
func (s *indexScan) beginPartition(base backend.LogicalPartition) error {
	r := s.r
	if s.current != nil {
		if err := r.endPartition(); err != nil {
			return err
		}
	}
	comps, err := token.SplitKey(base.Key, len(r.p.Table.PartitionKey))
	if err != nil {
		return err
	}
	s.current = append(s.current[:0], base.Key...)
	r.beginPartition(comps, base.Key)
	r.resumeClust, r.partRemaining = nil, r.perPartLim
	if st := s.state; st != nil && bytes.Equal(base.Key, st.partition) {
		r.resumeClust, r.partRemaining = st.clustering, st.remainingInPartition
	}
	return nil
}

// rowCandidate reads the base row a row entry names and hands it on if it
// still holds the indexed value.
func (s *indexScan) rowCandidate(ctx context.Context, base backend.LogicalPartition, ck []byte, entry *backend.Row) error {
	r := s.r
	if s.sliced && !sliceSet(s.slices).contains(ck) {
		return nil // outside the clustering slices: not a candidate
	}
	it, err := r.x.store.Read(ctx, backend.ReadCommand{Partition: base.Physical(backend.HomeShard),
		Slices: []backend.Slice{backend.PrefixSlice(ck)}, Static: r.wantStatic, Now: r.now})
	if err != nil {
		return err
	}
	it = hideDropped(r.p.Table, it, r.now)
	defer it.Close()
	live := false
	for !r.done && it.Next() {
		row := it.Row()
		if row.Clustering != nil {
			cks, err := decodeClustering(r.p.Table, row.Clustering, nil)
			if err != nil {
				return err
			}
			if !allMatch(s.check, r.view(row, cks)) {
				continue
			}
			live = true
		}
		if err := r.onRow(row); err != nil {
			return err
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	if !live && !r.done {
		s.stale = append(s.stale, s.deletion(entry))
	}
	return r.checkTombstones(it.Stats())
}

// partitionCandidate reads the base partition a partition entry names, as
// a read by key would (clustering slices, PER PARTITION LIMIT, DISTINCT,
// static-only partitions), resuming after the paging state's row.
func (s *indexScan) partitionCandidate(ctx context.Context, base backend.LogicalPartition, entry *backend.Row) error {
	r := s.r
	comps, err := token.SplitKey(base.Key, len(r.p.Table.PartitionKey))
	if err != nil {
		return err
	}
	slices := s.slices
	r.resumeClust, r.partRemaining = nil, r.perPartLim
	if st := s.state; st != nil && bytes.Equal(base.Key, st.partition) && st.clustering != nil {
		r.resumeClust, r.partRemaining = st.clustering, st.remainingInPartition
		slices = resumeSlices(slices, st.clustering, false)
	}
	if err := r.readPartition(ctx, partitionKey{components: comps, logical: base}, slices); err != nil {
		return err
	}
	// A static entry is stale once the static row no longer holds the
	// value; a partition key entry once the partition holds nothing (known
	// only from a read of the whole partition).
	stale := !allMatch(s.check, r.view(nil, nil))
	if r.p.IndexValue.Columns[0].Kind == catalog.PartitionKey {
		stale = r.partRead == 0 && !s.sliced && r.resumeClust == nil
	}
	if stale {
		s.stale = append(s.stale, s.deletion(entry))
	}
	return nil
}

// deletion is the mutation that deletes a stale entry (at its own
// timestamp, so a newer write of the same entry survives it).
func (s *indexScan) deletion(entry *backend.Row) backend.Mutation {
	del := backend.NewRow(append([]byte(nil), entry.Clustering...))
	del.Deletion = backend.DeletionTime{MarkedForDeleteAt: entry.Liveness.Timestamp, LocalDeletionTime: s.r.now}
	m := backend.NewMutation(indexPartition(s.r.p.Index, s.value))
	m.Rows = append(m.Rows, del)
	return m
}
