package exec

import (
	"bytes"
	"context"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/plan"
	"github.com/partita-db/partita/internal/token"
	"github.com/partita-db/partita/internal/types"
)

// A secondary index is stored as a hidden table (the index's StorageID):
// one partition per indexed value, whose rows are the base rows holding it,
// clustered by the base row's position: base token (order-preserving),
// escaped base partition key, then the base clustering key (empty for a
// static or partition-key entry). An entry's liveness carries the indexed
// cell's timestamp and TTL, so it expires with the cell. Entries are
// written blindly with the base write, in the same batch; an entry whose
// base row no longer holds the value is stale: readers re-check every
// candidate row and delete the stale entries they meet.

// entryKey is the clustering key of an index entry.
func entryKey(base backend.LogicalPartition, ck []byte) []byte {
	k := token.AppendOrdered(nil, base.Token)
	k = types.AppendBytesKey(k, base.Key)
	return append(k, ck...)
}

// partitionEntryPrefix is the prefix of every entry of a base partition.
func partitionEntryPrefix(base backend.LogicalPartition) []byte {
	return types.AppendBytesKey(token.AppendOrdered(nil, base.Token), base.Key)
}

// decodeEntryKey splits an entry key into the base partition and
// clustering key.
func decodeEntryKey(table backend.TableID, k []byte) (backend.LogicalPartition, []byte, error) {
	tok, err := token.DecodeOrdered(k)
	if err != nil {
		return backend.LogicalPartition{}, nil, err
	}
	pk, rest, err := types.DecodeBytesKey(k[token.OrderedLen:])
	if err != nil {
		return backend.LogicalPartition{}, nil, err
	}
	return backend.LogicalPartition{Table: table, Token: tok, Key: pk}, rest, nil
}

func indexPartition(ix *catalog.Index, value []byte) backend.PhysicalPartition {
	key := token.SerializeKey([][]byte{value})
	return backend.LogicalPartition{Table: ix.StorageID, Token: token.Of(key), Key: key}.Physical(backend.HomeShard)
}

// indexValues returns the values a written row gives to the index, each
// with the liveness of the cell it comes from.
func indexValues(t *catalog.Table, ix *catalog.Index, pk [][]byte, row *backend.Row) ([][]byte, []backend.Liveness) {
	col := t.Column(ix.Column)
	if col == nil {
		return nil, nil
	}
	rowLiveness := func() (backend.Liveness, bool) {
		if !row.Liveness.IsEmpty() {
			return row.Liveness, true
		}
		for i := range row.Cells {
			if !row.Cells[i].IsTombstone() {
				c := &row.Cells[i]
				return backend.Liveness{Timestamp: c.Timestamp, TTL: c.TTL, ExpiresAt: expiresAt(c)}, true
			}
		}
		return backend.Liveness{}, false
	}
	switch col.Kind {
	case catalog.PartitionKey:
		if l, ok := rowLiveness(); ok {
			return [][]byte{pk[col.Position]}, []backend.Liveness{l}
		}
		return nil, nil
	case catalog.Clustering:
		ck, err := decodeClustering(t, row.Clustering, nil)
		if l, ok := rowLiveness(); ok && err == nil && col.Position < len(ck) {
			return [][]byte{ck[col.Position]}, []backend.Liveness{l}
		}
		return nil, nil
	}
	var vals [][]byte
	var lives []backend.Liveness
	for _, c := range findCells(row, col.ID) {
		if c.IsTombstone() {
			continue
		}
		v := c.Value
		if c.Path != nil {
			switch {
			case ix.Target == "keys" || col.Type.Kind == types.KindSet:
				el, _, err := types.DecodeKey(col.Type.Elems[0], c.Path, false)
				if err != nil {
					continue
				}
				v = el
			case ix.Target != "values":
				continue
			}
		}
		vals = append(vals, v)
		lives = append(lives, backend.Liveness{Timestamp: c.Timestamp, TTL: c.TTL, ExpiresAt: expiresAt(&c)})
	}
	return vals, lives
}

func expiresAt(c *backend.Cell) int64 {
	if c.TTL > 0 {
		return c.LocalDeletionTime
	}
	return backend.NoDeletionTime
}

// indexMutations returns the index entries of the base mutations.
func indexMutations(t *catalog.Table, muts []backend.Mutation) ([]backend.Mutation, error) {
	if len(t.Indexes) == 0 {
		return nil, nil
	}
	var out []backend.Mutation
	for i := range muts {
		m := &muts[i]
		pk, err := token.SplitKey(m.Partition.Key, len(t.PartitionKey))
		if err != nil {
			return nil, err
		}
		add := func(ix *catalog.Index, row *backend.Row, ck []byte) {
			vals, lives := indexValues(t, ix, pk, row)
			for j, v := range vals {
				entry := backend.NewRow(entryKey(m.Partition.LogicalPartition, ck))
				entry.Liveness = lives[j]
				mut := backend.NewMutation(indexPartition(ix, v))
				mut.Rows = append(mut.Rows, entry)
				out = append(out, mut)
			}
		}
		for _, ix := range t.Indexes {
			col := t.Column(ix.Column)
			if col == nil {
				continue
			}
			if col.Kind == catalog.Static {
				if m.Static != nil {
					add(ix, m.Static, nil)
				}
				continue
			}
			for r := range m.Rows {
				add(ix, &m.Rows[r], m.Rows[r].Clustering)
			}
		}
	}
	return out, nil
}

// BuildIndex writes the entries of a new index for every row of its table.
func (x *Executor) BuildIndex(ctx context.Context, t *catalog.Table, ix *catalog.Index) error {
	it, err := x.store.Scan(ctx, backend.ScanCommand{Table: t.StorageID, Static: true, Now: 0})
	if err != nil {
		return err
	}
	defer it.Close()
	var batch []backend.Mutation
	for it.Next() {
		p := it.Partition()
		m := backend.NewMutation(p)
		row := copyRow(it.Row())
		if row.Clustering == nil {
			m.Static = row
		} else {
			m.Rows = []backend.Row{*row}
		}
		only := *t
		only.Indexes = []*catalog.Index{ix}
		entries, err := indexMutations(&only, []backend.Mutation{m})
		if err != nil {
			return err
		}
		batch = append(batch, entries...)
		if len(batch) >= 500 {
			if err := x.apply(ctx, batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	return x.apply(ctx, batch)
}

// indexLookupValue is the value the index is searched for.
func (r *selectRun) indexLookupValue() ([]byte, error) {
	rs := r.p.IndexValue
	var t *plan.Term
	switch {
	case rs.Kind == plan.RestrictEQ:
		t = rs.Value
	case len(rs.Contains) > 0:
		t = rs.Contains[0]
	default:
		t = rs.ContainsKey[0]
	}
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
	t := r.p.Table
	slice := backend.FullSlice
	if state != nil {
		resume := backend.LogicalPartition{Table: t.StorageID, Token: token.Of(state.partition), Key: state.partition}
		slice = backend.Slice{Start: partitionEntryPrefix(resume)}
	}
	it, err := r.x.store.Read(ctx, backend.ReadCommand{Partition: indexPartition(r.p.Index, value),
		Slices: []backend.Slice{slice}, Now: r.now})
	if err != nil {
		return err
	}
	defer it.Close()
	var stale []backend.Mutation
	var lastBase []byte
	for !r.done && it.Next() {
		entry := it.Row()
		base, ck, err := decodeEntryKey(t.StorageID, entry.Clustering)
		if err != nil {
			return err
		}
		if lastBase != nil && bytes.Equal(lastBase, base.Key) && len(ck) == 0 {
			continue
		}
		matched, err := r.indexCandidate(ctx, base, ck, state)
		if err != nil {
			return err
		}
		if !matched {
			del := backend.NewRow(append([]byte(nil), entry.Clustering...))
			del.Deletion = backend.DeletionTime{MarkedForDeleteAt: entry.Liveness.Timestamp, LocalDeletionTime: r.now}
			m := backend.NewMutation(indexPartition(r.p.Index, value))
			m.Rows = append(m.Rows, del)
			stale = append(stale, m)
		}
		lastBase = append(lastBase[:0], base.Key...)
	}
	if err := it.Err(); err != nil {
		return err
	}
	if len(stale) > 0 {
		if err := r.x.apply(ctx, stale); err != nil {
			return err
		}
	}
	return nil
}

// indexCandidate reads the base row(s) an entry points at and emits those
// matching every restriction; it reports whether the indexed value still
// holds (false: the entry is stale).
func (r *selectRun) indexCandidate(ctx context.Context, base backend.LogicalPartition, ck []byte, state *pagingState) (bool, error) {
	t := r.p.Table
	comps, err := token.SplitKey(base.Key, len(t.PartitionKey))
	if err != nil {
		return false, err
	}
	slices := []backend.Slice{backend.PrefixSlice(ck)}
	if len(ck) == 0 {
		slices = []backend.Slice{backend.FullSlice}
	}
	r.resumeClust, r.partRemaining = nil, r.perPartLim
	if state != nil && bytes.Equal(base.Key, state.partition) {
		if state.clustering == nil {
			return true, nil
		}
		r.resumeClust, r.partRemaining = state.clustering, state.remainingInPartition
		slices = resumeSlices(slices, state.clustering, false)
	}
	it, err := r.x.store.Read(ctx, backend.ReadCommand{Partition: base.Physical(backend.HomeShard),
		Slices: slices, Static: true, Now: r.now})
	if err != nil {
		return false, err
	}
	defer it.Close()
	r.beginPartition(comps, base.Key)
	found := len(slices) == 0
	indexFilter, err := r.ev.compileFilters([]*plan.Restriction{r.p.IndexValue})
	if err != nil {
		return false, err
	}
	rows := 0
	for !r.done && it.Next() {
		row := it.Row()
		if row.Clustering == nil {
			r.static = copyRow(row)
			continue
		}
		rows++
		cks, err := decodeClustering(t, row.Clustering, nil)
		if err != nil {
			return false, err
		}
		v := r.view(row, cks)
		if !indexFilter[0].matches(v) {
			continue
		}
		found = true
		if allMatch(r.filters, v) {
			if err := r.emit(v); err != nil {
				return false, err
			}
		}
	}
	if rows == 0 && r.static != nil && !r.done && indexFilter[0].matches(r.view(nil, nil)) {
		found = true
		if err := r.endPartition(); err != nil {
			return false, err
		}
	}
	if err := it.Err(); err != nil {
		return false, err
	}
	return found || r.done, r.checkTombstones(it.Stats())
}
