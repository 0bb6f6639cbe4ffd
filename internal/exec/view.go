package exec

import (
	"bytes"
	"context"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/plan"
	"github.com/partita-db/partita/internal/token"
	"github.com/partita-db/partita/internal/types"
)

// A materialized view is a table of its own (catalog.ViewDef), kept in
// step with its base table by every base write, in the same storage batch,
// as Cassandra's ViewUpdateGenerator does it:
//  1. Under the base partition's read-modify-write lock, the write reads
//     the base rows it touches (the whole partition for a partition or
//     range deletion) and merges its own mutation into them, giving each
//     row before and after the write; the after-row's deletion is the
//     newest of its own, the partition's and the covering range deletions.
//  2. A base row is in a view while it has live data, every view key
//     column is set and the WHERE clause holds. With no base regular
//     column in the view key, the view row mirrors the base row: same
//     timestamps, TTLs and deletions, so last-write-wins in the view gives
//     what it gives in the base. A row leaving such a view is deleted at
//     the newest timestamp it held.
//  3. With a base regular column in the view key (ViewDef.KeyColumn) the
//     view row's marker carries that cell's timestamp (or the row
//     marker's, if newer) and TTL, and the row is shown only while its
//     marker is live (strict liveness). When the key cell changes, the old
//     view row gets an expired marker at the old cell's timestamp: it
//     wins over the live marker of that timestamp and leaves the cells, so
//     a row whose key comes back shows them again.
//
// Cells go to the view with their base timestamps, TTLs and collection
// deletions; the whole selected part of the after-row is written each
// time (equal cells reconcile to themselves).
//  4. The before-rows are read live, without the deletions that removed
//     what they no longer show; a write hidden by such a deletion is
//     caught when the rows are read back (view_check.go).

// viewedTable is a base table and its views.
type viewedTable struct {
	base  *catalog.Table
	views []*catalog.Table
}

// applyMaintained applies muts with the view rows they change. ms are the
// statements the mutations come from; locked says the caller already holds
// the base partitions' locks.
func (x *Executor) applyMaintained(ctx context.Context, ms []*plan.Modify, muts []backend.Mutation, now int64, locked bool) (err error) {
	if err := checkWrite(ctx, ms, muts); err != nil {
		return err
	}
	bases := map[backend.TableID]viewedTable{}
	for _, m := range ms {
		if len(m.Views) > 0 {
			bases[m.Table.StorageID] = viewedTable{m.Table, m.Views}
		}
	}
	if len(bases) == 0 {
		return x.apply(ctx, muts)
	}
	if !locked {
		var logical []backend.LogicalPartition
		for i := range muts {
			if _, ok := bases[muts[i].Partition.Table]; ok {
				logical = append(logical, muts[i].Partition.LogicalPartition)
			}
		}
		ctx = backend.WithReadModifyWrite(ctx)
		lock, lockErr := x.lockPartitions(ctx, logical)
		if lockErr != nil {
			return lockErr
		}
		defer lock.Unlock()
		defer func() {
			if err == nil {
				err = lock.Release(ctx, true)
			}
		}()
	}
	var extra []backend.Mutation
	var written []*baseRows
	for i := range muts {
		vt, ok := bases[muts[i].Partition.Table]
		if !ok {
			continue
		}
		rows, vm, err := x.viewMutations(ctx, vt, &muts[i], now)
		if err != nil {
			return err
		}
		extra = append(extra, vm...)
		if rows != nil {
			written = append(written, rows)
		}
	}
	if err := x.apply(ctx, append(muts, mergeMutations(extra)...)); err != nil {
		return err
	}
	// The write is in: its view corrections run to the end even past the
	// request's timeout.
	return x.correctViews(context.WithoutCancel(ctx), written, now)
}

// baseRows is what viewMutations computed for one base mutation: the rows
// it touched, as they were expected after the write.
type baseRows struct {
	vt        viewedTable
	partition backend.PhysicalPartition
	slices    []backend.Slice
	pk        [][]byte
	order     []string
	after     map[string]*backend.Row
}

// viewMutations returns the view rows one base mutation changes (1-3),
// and the base rows it expects after the write.
func (x *Executor) viewMutations(ctx context.Context, vt viewedTable, m *backend.Mutation, now int64) (*baseRows, []backend.Mutation, error) {
	slices := []backend.Slice{backend.FullSlice}
	if m.PartitionDeletion.IsLive() && len(m.RangeTombstones) == 0 {
		slices = slices[:0]
		for _, r := range m.Rows {
			slices = append(slices, backend.PrefixSlice(r.Clustering))
		}
		if len(slices) == 0 {
			return nil, nil, nil
		}
		slices = normalizeSlices(slices)
	}
	before := map[string]*backend.Row{}
	var order []string
	it, err := x.store.Read(ctx, backend.ReadCommand{Partition: m.Partition, Slices: slices, Now: now})
	if err != nil {
		return nil, nil, err
	}
	for it.Next() {
		if r := it.Row(); r.Clustering != nil {
			before[string(r.Clustering)] = copyRow(r)
			order = append(order, string(r.Clustering))
		}
	}
	err = it.Err()
	it.Close()
	if err != nil {
		return nil, nil, err
	}
	written := map[string]*backend.Row{}
	for i := range m.Rows {
		k := string(m.Rows[i].Clustering)
		written[k] = &m.Rows[i]
		if before[k] == nil {
			order = append(order, k)
		}
	}
	pk, err := token.SplitKey(m.Partition.Key, len(vt.base.PartitionKey))
	if err != nil {
		return nil, nil, err
	}
	rows := &baseRows{vt: vt, partition: m.Partition, slices: slices, pk: pk, order: order, after: map[string]*backend.Row{}}
	var out []backend.Mutation
	for _, k := range order {
		b := before[k]
		a := backend.NewRow([]byte(k))
		if b != nil {
			a = *copyRow(b)
		}
		deletion := m.PartitionDeletion
		for _, rt := range m.RangeTombstones {
			if rt.Slice.Contains(a.Clustering) {
				deletion = deletion.Max(rt.Deletion)
			}
		}
		a.Purge(deletion)
		if w := written[k]; w != nil {
			backend.MergeInto(&a, w, nil)
		}
		a.Deletion = a.Deletion.Max(deletion)
		rows.after[k] = &a
		ck, err := decodeClustering(vt.base, a.Clustering, nil)
		if err != nil {
			return nil, nil, err
		}
		for _, v := range vt.views {
			g := viewUpdate{base: vt.base, view: v, pk: pk, ck: ck, now: now}
			out = append(out, g.change(b, &a)...)
		}
	}
	return rows, out, nil
}

// viewUpdate computes what one base row's write does to one view
// (ViewUpdateGenerator).
type viewUpdate struct {
	base, view *catalog.Table
	pk, ck     [][]byte
	now        int64
}

// change returns the view mutations of a base row going from before (nil
// when absent) to after.
func (g *viewUpdate) change(before, after *backend.Row) []backend.Mutation {
	existing := before != nil && before.HasLiveData(g.now)
	merged := after.HasLiveData(g.now)
	if key := g.keyColumn(); key != nil {
		var old, cur *backend.Cell
		if existing {
			old = liveCell(before, key.ID, g.now)
		}
		if merged {
			cur = liveCell(after, key.ID, g.now)
		}
		switch {
		case old != nil && cur != nil && bytes.Equal(old.Value, cur.Value):
			return g.update(before, after)
		case old != nil && cur != nil:
			return append(g.create(after), g.deleteOld(before, after)...)
		case old != nil:
			return g.deleteOld(before, after)
		case cur != nil:
			return g.create(after)
		}
		return nil
	}
	switch {
	case existing && merged:
		return g.update(before, after)
	case existing:
		return g.deleteOld(before, after)
	case merged:
		return g.create(after)
	}
	return nil
}

// keyColumn is the base regular column in the view key, or nil (3).
func (g *viewUpdate) keyColumn() *catalog.Column {
	if g.view.View.KeyColumn == "" {
		return nil
	}
	return g.base.Column(g.view.View.KeyColumn)
}

func (g *viewUpdate) create(row *backend.Row) []backend.Mutation {
	part, ck, ok := g.key(row)
	if !ok {
		return nil
	}
	r := g.project(row, ck)
	r.Liveness = g.liveness(row)
	return []backend.Mutation{viewMutation(part, r)}
}

func (g *viewUpdate) update(before, after *backend.Row) []backend.Mutation {
	if _, _, ok := g.key(before); !ok {
		return g.create(after)
	}
	if _, _, ok := g.key(after); !ok {
		return g.deleteOld(before, after)
	}
	return g.create(after)
}

// deleteOld removes the view row of before (ViewUpdateGenerator
// .deleteOldEntryInternal).
func (g *viewUpdate) deleteOld(before, after *backend.Row) []backend.Mutation {
	part, ck, ok := g.key(before)
	if !ok {
		return nil
	}
	r := g.project(after, ck)
	if ts := g.entryDeletionTimestamp(before, after); ts > after.Deletion.MarkedForDeleteAt {
		r.Liveness = backend.ExpiredLiveness(ts, g.now)
	}
	return []backend.Mutation{viewMutation(part, r)}
}

// entryDeletionTimestamp is computeTimestampForEntryDeletion: the newest
// timestamp of the old row (2), or the old key cell's (3).
func (g *viewUpdate) entryDeletionTimestamp(before, after *backend.Row) int64 {
	if key := g.keyColumn(); key != nil {
		old := liveCell(before, key.ID, g.now)
		if after.Deletion.Deletes(old.Timestamp) {
			return after.Deletion.MarkedForDeleteAt
		}
		return old.Timestamp
	}
	return max(after.Deletion.MarkedForDeleteAt, before.MaxTimestamp())
}

func viewMutation(part backend.PhysicalPartition, r backend.Row) backend.Mutation {
	mut := backend.NewMutation(part)
	mut.Rows = append(mut.Rows, r)
	return mut
}

// key returns the view partition and clustering key of a base row, and
// false when the row is not in the view (its key columns and WHERE clause,
// View.matchesViewFilter).
func (g *viewUpdate) key(row *backend.Row) (backend.PhysicalPartition, []byte, bool) {
	if row == nil {
		return backend.PhysicalPartition{}, nil, false
	}
	def := g.view.View
	for i := range def.Filters {
		if !g.matches(&def.Filters[i], row) {
			return backend.PhysicalPartition{}, nil, false
		}
	}
	for _, name := range def.NotNull {
		if g.value(g.base.Column(name), row) == nil {
			return backend.PhysicalPartition{}, nil, false
		}
	}
	values := make([][]byte, 0, len(g.view.PartitionKey))
	for _, vc := range g.view.PartitionKey {
		v := g.value(g.base.Column(vc.Name), row)
		if v == nil {
			return backend.PhysicalPartition{}, nil, false
		}
		values = append(values, v)
	}
	clustering := []byte{}
	for _, vc := range g.view.Clustering {
		v := g.value(g.base.Column(vc.Name), row)
		if v == nil {
			return backend.PhysicalPartition{}, nil, false
		}
		clustering = types.AppendKey(clustering, vc.Type, v, vc.Desc)
	}
	key := token.SerializeKey(values)
	part := backend.LogicalPartition{Table: g.view.StorageID, Token: token.Of(key), Key: key}.Physical(backend.HomeShard)
	return part, clustering, true
}

// matches reports whether a base row meets one restriction of the view's
// WHERE clause.
func (g *viewUpdate) matches(f *catalog.ViewFilter, row *backend.Row) bool {
	cols := make([]*catalog.Column, len(f.Columns))
	values := make([][]byte, len(f.Columns))
	for i, name := range f.Columns {
		cols[i] = g.base.Column(name)
		if values[i] = g.value(cols[i], row); values[i] == nil {
			return false
		}
	}
	compare := func(want [][]byte) int {
		for i, c := range cols {
			if n := types.Compare(c.Type, values[i], want[i]); n != 0 {
				return n
			}
		}
		return 0
	}
	for _, want := range f.Values {
		n := compare(want)
		switch f.Op {
		case "=", "IN":
			if n == 0 {
				return true
			}
		case "<":
			return n < 0
		case "<=":
			return n <= 0
		case ">":
			return n > 0
		case ">=":
			return n >= 0
		}
	}
	return false
}

// value is a base column's value in a row: a key component, or the live
// value of a regular cell (nil when absent).
func (g *viewUpdate) value(c *catalog.Column, row *backend.Row) []byte {
	if c == nil {
		return nil
	}
	switch c.Kind {
	case catalog.PartitionKey:
		return g.pk[c.Position]
	case catalog.Clustering:
		if c.Position < len(g.ck) {
			return g.ck[c.Position]
		}
		return nil
	}
	if cell := liveCell(row, c.ID, g.now); cell != nil {
		return cell.Value
	}
	return nil
}

func liveCell(row *backend.Row, id backend.ColumnID, now int64) *backend.Cell {
	cs := findCells(row, id)
	for i := range cs {
		if cs[i].Path == nil && cs[i].IsLive(now) {
			return &cs[i]
		}
	}
	return nil
}

// project is the view row of a base row at clustering ck: its deletion,
// and the cells and collection deletions of the selected columns, with
// their base timestamps.
func (g *viewUpdate) project(row *backend.Row, ck []byte) backend.Row {
	r := backend.NewRow(ck)
	r.Deletion = row.Deletion
	for _, vc := range g.view.Regulars {
		bc := g.base.Column(vc.Name)
		if bc == nil {
			continue
		}
		for _, c := range findCells(row, bc.ID) {
			c.Column = vc.ID
			r.Cells = append(r.Cells, c)
		}
		for _, d := range row.ComplexDeletions {
			if d.Column == bc.ID {
				r.ComplexDeletions = append(r.ComplexDeletions, backend.ComplexDeletion{Column: vc.ID, Deletion: d.Deletion})
			}
		}
	}
	sortCells(&r)
	return r
}

// liveness is the view row's marker (computeLivenessInfoForEntry).
func (g *viewUpdate) liveness(row *backend.Row) backend.Liveness {
	base := row.Liveness
	if key := g.keyColumn(); key != nil {
		c := liveCell(row, key.ID, g.now)
		ts := max(base.Timestamp, c.Timestamp)
		if c.TTL != 0 {
			return backend.Liveness{Timestamp: ts, TTL: c.TTL, ExpiresAt: c.LocalDeletionTime}
		}
		return backend.Liveness{Timestamp: ts, ExpiresAt: backend.NoDeletionTime}
	}
	if g.view.View.IncludeAll {
		return base
	}
	// Unselected columns keep the view row alive as they keep the base
	// row.
	ts, forever := base.Timestamp, false
	var longest *backend.Cell
	for i := range row.Cells {
		c := &row.Cells[i]
		bc := g.base.ColumnByID(c.Column)
		if bc == nil || g.view.Column(bc.Name) != nil || !c.IsLive(g.now) {
			continue
		}
		ts = max(ts, c.Timestamp)
		if c.TTL == 0 {
			forever = true
		} else if longest == nil || c.LocalDeletionTime > longest.LocalDeletionTime {
			longest = c
		}
	}
	switch {
	case base.IsLive(g.now) && !base.IsExpiring(), forever:
		return backend.Liveness{Timestamp: ts, ExpiresAt: backend.NoDeletionTime}
	case longest == nil:
		return base
	case longest.LocalDeletionTime > base.ExpiresAt || !base.IsLive(g.now):
		return backend.Liveness{Timestamp: ts, TTL: longest.TTL, ExpiresAt: longest.LocalDeletionTime}
	}
	return base
}

// strictLiveness hides the rows of a view with a base regular column in its
// key whose marker is not live (3).
func strictLiveness(t *catalog.Table, it backend.RowIterator) backend.RowIterator {
	if t.View == nil || t.View.KeyColumn == "" {
		return it
	}
	return &strictFilter{RowIterator: it}
}

type strictFilter struct{ backend.RowIterator }

func (f *strictFilter) Next() bool {
	for f.RowIterator.Next() {
		if r := f.RowIterator.Row(); r.Clustering == nil || !r.Liveness.IsEmpty() {
			return true
		}
	}
	return false
}

// BuildView writes the rows of a new view for every row of its base table.
func (x *Executor) BuildView(ctx context.Context, base, view *catalog.Table) error {
	now := (&Request{}).now().Unix()
	it, err := x.store.Scan(ctx, backend.ScanCommand{Table: base.StorageID, Now: now})
	if err != nil {
		return err
	}
	defer it.Close()
	var batch []backend.Mutation
	for it.Next() {
		row := copyRow(it.Row())
		if row.Clustering == nil {
			continue
		}
		p := it.Partition()
		pk, err := token.SplitKey(p.Key, len(base.PartitionKey))
		if err != nil {
			return err
		}
		ck, err := decodeClustering(base, row.Clustering, nil)
		if err != nil {
			return err
		}
		g := viewUpdate{base: base, view: view, pk: pk, ck: ck, now: now}
		batch = append(batch, g.change(nil, row)...)
		if len(batch) >= 256 {
			if err := x.apply(ctx, mergeMutations(batch)); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	return x.apply(ctx, mergeMutations(batch))
}
