package exec

import (
	"bytes"
	"encoding/binary"
	"sort"
	"sync"
	"time"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/plan"
	"github.com/partita-db/partita/internal/token"
	"github.com/partita-db/partita/internal/types"
)

// writeContext is what every mutation of one statement (or batch) shares
// (invariant 1).
type writeContext struct {
	evaluator
	timestamp int64 // microseconds
	now       int64 // seconds
	// current is the data read before writing (read-modify-write
	// operations); cur is the row the operation being applied works on.
	current *currentState
	cur     *rowView
	// pendingCells and pendingDeletions are where the cells and complex
	// deletions of the row being built for cur begin in its row: a static
	// row gathers the writes of every clustering row of the statement, but
	// an operation sees only those of its own (UpdateParameters.newRow).
	pendingCells, pendingDeletions int
}

// attributes are one statement's timestamp and TTL.
type attributes struct {
	timestamp int64
	ttl       int32
}

func (w *writeContext) attributes(m *plan.Modify) (attributes, error) {
	a := attributes{timestamp: w.timestamp, ttl: m.Table.Options.DefaultTTL}
	if m.Timestamp != nil {
		v, unset, err := w.evalValid(m.Timestamp)
		if err != nil {
			return a, err
		}
		if !unset {
			if v == nil {
				return a, cqlerr.Invalidf("Invalid null value of timestamp")
			}
			ts, err := types.Int64(types.Bigint, v)
			if err != nil {
				return a, err
			}
			a.timestamp = ts
		}
	}
	if m.TTL != nil {
		v, unset, err := w.evalValid(m.TTL)
		if err != nil {
			return a, err
		}
		switch {
		case unset: // keeps the table's default
		case len(v) == 0:
			// A null (or empty) TTL means no expiry, even against the
			// table's default (Attributes.getTimeToLive, CASSANDRA-12216).
			a.ttl = 0
		default:
			ttl, err := types.Int64(types.Int, v)
			if err != nil {
				return a, err
			}
			if ttl < 0 {
				return a, cqlerr.Invalidf("A TTL must be greater or equal to 0, but was %d", ttl)
			}
			if ttl > catalog.MaxTTL {
				return a, cqlerr.Invalidf("ttl is too large. requested (%d) maximum (%d)", ttl, catalog.MaxTTL)
			}
			a.ttl = int32(ttl)
		}
	}
	if a.ttl > 0 && w.now+int64(a.ttl) > maxDeletionTime {
		// Attributes.maybeApplyExpirationDateOverflowPolicy under the default
		// REJECT policy: Cassandra 5.0 in its default storage compatibility
		// mode keeps the 2038 limit of 4.x.
		kind := ""
		if m.TTL == nil {
			kind = "default "
		}
		return a, cqlerr.Invalidf("Request on table %s.%s with %sttl of %d seconds exceeds maximum supported expiration date of 2038-01-19T03:14:06+00:00. "+
			"In order to avoid this use a lower TTL, change the expiration date overflow policy or upgrade to a version where this limitation is fixed. "+
			"See CASSANDRA-14092 and CASSANDRA-14227 for more details.", m.Table.Keyspace, m.Table.Name, kind, a.ttl)
	}
	return a, nil
}

// maxDeletionTime is the latest local expiration time, in seconds, that a
// cell may carry (Cell.MAX_DELETION_TIME, Integer.MAX_VALUE - 1).
const maxDeletionTime = 1<<31 - 2

func (a attributes) liveness(now int64) backend.Liveness {
	l := backend.Liveness{Timestamp: a.timestamp, ExpiresAt: backend.NoDeletionTime}
	if a.ttl > 0 {
		l.TTL, l.ExpiresAt = a.ttl, now+int64(a.ttl)
	}
	return l
}

func (a attributes) cell(col backend.ColumnID, path, value []byte, now int64) backend.Cell {
	c := backend.Cell{Column: col, Path: path, Value: value, Timestamp: a.timestamp, LocalDeletionTime: backend.NoDeletionTime}
	if a.ttl > 0 {
		c.TTL, c.LocalDeletionTime = a.ttl, now+int64(a.ttl)
	}
	return c
}

func (a attributes) tombstone(col backend.ColumnID, path []byte, now int64) backend.Cell {
	return backend.Cell{Column: col, Path: path, Timestamp: a.timestamp, LocalDeletionTime: now}
}

func (a attributes) deletion(now int64) backend.DeletionTime {
	return backend.DeletionTime{MarkedForDeleteAt: a.timestamp, LocalDeletionTime: now}
}

// mutations builds the mutations of one INSERT, UPDATE or DELETE.
func (w *writeContext) mutations(m *plan.Modify) ([]backend.Mutation, error) {
	if m.JSON != nil {
		var err error
		if m, err = w.resolveJSON(m); err != nil {
			return nil, err
		}
	}
	attrs, err := w.attributes(m)
	if err != nil {
		return nil, err
	}
	pks, err := w.partitionKeys(m.Table, m.PartitionKey)
	if err != nil {
		return nil, err
	}
	var rows [][]byte // full clustering keys, or nil
	var slices []backend.Slice
	switch {
	case m.StaticOnly && len(m.Clustering) == 0:
	case m.Kind == plan.Delete && (m.DeleteRows || m.StaticOnly) && !fullClusteringRestricted(m):
		if len(m.Clustering) > 0 {
			if slices, err = w.clusteringSlices(m.Table, m.Clustering); err != nil {
				return nil, err
			}
		}
	case m.Kind == plan.Delete && len(m.Clustering) > 0 && !fullClusteringRestricted(m):
		return nil, w.refuseColumnRangeDeletion(m, pks)
	default:
		if err := w.checkClusteringSize(m.Clustering); err != nil {
			return nil, err
		}
		prefixes, slice, err := w.clusteringPrefixes(m.Table, m.Clustering)
		if err != nil {
			return nil, err
		}
		if slice != nil {
			return nil, cqlerr.Serverf("unexpected slice in %s", m.Kind)
		}
		rows = clusteringSet(prefixes)
	}
	out := make([]backend.Mutation, 0, len(pks))
	for _, pk := range pks {
		mut := backend.NewMutation(pk.logical.Physical(backend.HomeShard))
		if err := w.fill(&mut, m, attrs, pk, rows, slices); err != nil {
			return nil, err
		}
		out = append(out, mut)
	}
	entries, err := indexMutations(m.Table, out)
	if err != nil {
		return nil, err
	}
	return append(out, entries...), nil
}

// refuseColumnRangeDeletion refuses a DELETE of specific columns over a
// clustering range. Cassandra refuses it as it deletes each range of each
// partition (DeleteStatement.addUpdateForKey), so once the partition keys
// are built and checked, and not at all when there is no partition or no
// non-empty range.
func (w *writeContext) refuseColumnRangeDeletion(m *plan.Modify, pks []partitionKey) error {
	if _, err := w.clusteringSlices(m.Table, m.Clustering); err != nil || len(pks) == 0 {
		return err
	}
	empty, err := w.clusteringEmpty(m.Table, m.Clustering)
	if err != nil || empty {
		return err
	}
	return cqlerr.Invalidf("Range deletions are not supported for specific columns")
}

// clusteringSet sorts full clustering keys into the table's clustering
// order and drops repeats: the rows a write touches are a set
// (ModificationStatement.createClustering), so ck IN (1, 1) writes the row
// once, and rows are written, and their errors met, in that order.
func clusteringSet(keys [][]byte) [][]byte {
	sort.Slice(keys, func(i, j int) bool { return bytes.Compare(keys[i], keys[j]) < 0 })
	out := keys[:0]
	for _, k := range keys {
		if n := len(out); n > 0 && bytes.Equal(out[n-1], k) {
			continue
		}
		out = append(out, k)
	}
	return out
}

// checkClusteringSize refuses a written row whose clustering values total
// more than 65535 bytes, as ModificationStatement.validateClustering does
// (Cassandra 5.0: the message reports the clustering's data size, the sum
// of its values' lengths). With IN lists the largest combination is
// reported. Reads are not limited: a SELECT of such a key finds nothing.
func (w *writeContext) checkClusteringSize(rs []*plan.Restriction) error {
	total := 0
	for _, r := range rs {
		if r.Kind == plan.RestrictSlice {
			return nil
		}
		tuples, err := w.clusteringTuples(r)
		if err != nil {
			return err
		}
		largest := 0
		for _, tup := range tuples {
			n := 0
			for _, v := range tup {
				n += len(v)
			}
			largest = max(largest, n)
		}
		total += largest
	}
	if total > token.MaxKeyLength {
		return cqlerr.Invalidf("Key length of %d is longer than maximum of %d", total, token.MaxKeyLength)
	}
	return nil
}

func fullClusteringRestricted(m *plan.Modify) bool {
	n := 0
	for _, r := range m.Clustering {
		if r.Kind == plan.RestrictSlice {
			return false
		}
		n += len(r.Columns)
	}
	return n == len(m.Table.Clustering) && n > 0
}

// fill adds one statement's changes for one partition.
func (w *writeContext) fill(mut *backend.Mutation, m *plan.Modify, attrs attributes, pk partitionKey, rows [][]byte, slices []backend.Slice) error {
	if m.Kind == plan.Delete && m.DeleteRows {
		switch {
		case rows != nil:
			for _, ck := range rows {
				r := backend.NewRow(ck)
				r.Deletion = attrs.deletion(w.now)
				mut.Rows = append(mut.Rows, r)
			}
		case len(m.Clustering) == 0:
			mut.PartitionDeletion = attrs.deletion(w.now)
		default:
			for _, s := range slices {
				mut.RangeTombstones = append(mut.RangeTombstones, backend.RangeTombstone{Slice: s, Deletion: attrs.deletion(w.now)})
			}
		}
		return nil
	}
	var static *backend.Row
	for _, op := range m.Operations {
		if op.Column.Kind == catalog.Static {
			st := backend.NewRow(nil)
			static = &st
			break
		}
	}
	staticWritten := false
	if m.StaticOnly && len(m.Clustering) == 0 {
		if err := w.applyOperations(static, m, attrs, pk, nil, true); err != nil {
			return err
		}
		staticWritten = true
	}
	// One row per clustering, in clustering order: its regular operations,
	// then the static ones, again for every row (UpdateStatement
	// .addUpdateForKey), so a static append appends once per row, a static
	// counter counts once per row, and of several failing operations the
	// first met is the one reported. An empty IN writes nothing, static
	// columns included.
	for _, ck := range rows {
		r := backend.NewRow(ck)
		if m.RowMarker {
			r.Liveness = attrs.liveness(w.now)
		}
		if err := w.applyOperations(&r, m, attrs, pk, ck, false); err != nil {
			return err
		}
		sortCells(&r)
		mut.Rows = append(mut.Rows, r)
		if static != nil {
			if err := w.applyOperations(static, m, attrs, pk, nil, true); err != nil {
				return err
			}
			staticWritten = true
		}
	}
	if staticWritten {
		sortCells(static)
		mut.Static = static
	}
	return nil
}

// applyOperations adds to row the cells of m's operations on its static
// columns (static) or on its other columns, reading the current values of
// the row at clustering ck (nil: the static row).
func (w *writeContext) applyOperations(row *backend.Row, m *plan.Modify, attrs attributes, pk partitionKey, ck []byte, static bool) error {
	w.cur = w.current.view(pk, ck)
	w.pendingCells, w.pendingDeletions = len(row.Cells), len(row.ComplexDeletions)
	for _, op := range m.Operations {
		if (op.Column.Kind == catalog.Static) != static {
			continue
		}
		if err := w.applyOperation(row, op, attrs); err != nil {
			return err
		}
	}
	return nil
}

// applyOperation adds the cells of one operation to row.
func (w *writeContext) applyOperation(row *backend.Row, op plan.Operation, attrs attributes) error {
	col := op.Column
	switch op.Kind {
	case plan.OpSet:
		v, unset, err := w.evalValid(op.Value)
		if err != nil || unset {
			return err
		}
		if col.Type.IsMultiCell() {
			return w.setMultiCell(row, col, v, attrs)
		}
		if v == nil {
			row.Cells = append(row.Cells, attrs.tombstone(col.ID, nil, w.now))
			return nil
		}
		row.Cells = append(row.Cells, attrs.cell(col.ID, nil, v, w.now))
		return nil
	case plan.OpDelete:
		if col.Type.IsMultiCell() {
			row.ComplexDeletions = append(row.ComplexDeletions, backend.ComplexDeletion{Column: col.ID, Deletion: attrs.deletion(w.now)})
			return nil
		}
		row.Cells = append(row.Cells, attrs.tombstone(col.ID, nil, w.now))
		return nil
	}
	return w.applyCollectionOperation(row, op, attrs)
}

// setMultiCell replaces a whole non-frozen collection or UDT: a complex
// deletion just before the write, then one cell per element. Null is no
// exception (UpdateParameters.setComplexDeletionTimeForOverwrite): elements
// written at the same timestamp, by another statement of a batch or one
// with the same USING TIMESTAMP, survive it. DELETE c deletes at the
// timestamp itself.
func (w *writeContext) setMultiCell(row *backend.Row, col *catalog.Column, v []byte, attrs attributes) error {
	del := attrs
	del.timestamp--
	row.ComplexDeletions = append(row.ComplexDeletions, backend.ComplexDeletion{Column: col.ID, Deletion: del.deletion(w.now)})
	if v == nil {
		return nil
	}
	return w.addElements(row, col, v, attrs, false)
}

// addElements writes the elements of a serialized collection (or UDT) as
// cells; prepend gives list elements ids that sort before existing ones.
func (w *writeContext) addElements(row *backend.Row, col *catalog.Column, v []byte, attrs attributes, prepend bool) error {
	switch col.Type.Kind {
	case types.KindList:
		elems, err := types.DecodeCollection(v)
		if err != nil {
			return err
		}
		var ids [][]byte
		if prepend {
			ids = prependListIDs(len(elems))
		} else {
			ids = appendListIDs(len(elems))
		}
		for i, el := range elems {
			row.Cells = append(row.Cells, attrs.cell(col.ID, ids[i], el, w.now))
		}
	case types.KindSet:
		elems, err := types.DecodeCollection(v)
		if err != nil {
			return err
		}
		for _, el := range elems {
			row.Cells = append(row.Cells, attrs.cell(col.ID, elementPath(col.Type.Elems[0], el), []byte{}, w.now))
		}
	case types.KindMap:
		keys, vals, err := types.DecodeMap(v)
		if err != nil {
			return err
		}
		for i := range keys {
			row.Cells = append(row.Cells, attrs.cell(col.ID, elementPath(col.Type.Elems[0], keys[i]), vals[i], w.now))
		}
	case types.KindUDT:
		fields, err := types.DecodeTuple(col.Type, v)
		if err != nil {
			return err
		}
		for i, f := range fields {
			// A null field writes nothing: the overwrite's deletion, at
			// T-1, already removes it (UserTypes.Setter), and a field set
			// at T by another write survives.
			if f != nil {
				row.Cells = append(row.Cells, attrs.cell(col.ID, fieldPath(i), f, w.now))
			}
		}
	}
	return nil
}

// fieldPath is the cell path of a non-frozen UDT field.
func fieldPath(i int) []byte { return binary.BigEndian.AppendUint16(nil, uint16(i)) }

// List elements are addressed by 16-byte ids: a big-endian 60-bit time
// (in 100 ns units) and 8 random bytes fixed per process, so ids sort by
// time as bytes, appends get increasing ids and prepends decreasing ones
// mirrored around 2010-01-01 (Cassandra's PrecisionTime reference).
const (
	uuidEpochTicks    = uint64(0x01B21DD213814000)
	prependEpochTicks = uuidEpochTicks + 1262304000000*10000
)

var listClock struct {
	mu          sync.Mutex
	lastAppend  uint64
	lastPrepend uint64
	node        uint64
}

func listIDs(n int, prepend bool) [][]byte {
	c := &listClock
	c.mu.Lock()
	if c.node == 0 {
		c.node = binary.BigEndian.Uint64(types.NewTimeUUID()[8:]) | 1
	}
	now := uint64(time.Now().UnixNano()/100) + uuidEpochTicks
	var base uint64
	if prepend {
		base = 2*prependEpochTicks - now - uint64(n)
		if c.lastPrepend != 0 && base+uint64(n) > c.lastPrepend {
			base = c.lastPrepend - uint64(n)
		}
		c.lastPrepend = base
	} else {
		base = now
		if base <= c.lastAppend {
			base = c.lastAppend + 1
		}
		c.lastAppend = base + uint64(n) - 1
	}
	node := c.node
	c.mu.Unlock()
	out := make([][]byte, n)
	for i := range out {
		id := binary.BigEndian.AppendUint64(make([]byte, 0, 16), base+uint64(i))
		out[i] = binary.BigEndian.AppendUint64(id, node)
	}
	return out
}

func appendListIDs(n int) [][]byte  { return listIDs(n, false) }
func prependListIDs(n int) [][]byte { return listIDs(n, true) }

// elementPath is the cell path of a set element or map key: its
// order-preserving encoding, so cells sort as the collection does.
func elementPath(t *types.Type, v []byte) []byte { return types.AppendKey(nil, t, v, false) }

// sortCells orders a row's cells by (column, path), as the storage format
// requires, and reconciles the writes of a repeated position (m['k'] = 1,
// m['k'] = 2, or a static column written once per clustering row) as the
// row builder does: the greater value wins a tie, whatever the order.
// Counter cells are not repeated (counterUpdate folds them).
func sortCells(r *backend.Row) {
	sort.SliceStable(r.Cells, func(i, j int) bool { return backend.ComparePosition(&r.Cells[i], &r.Cells[j]) < 0 })
	out := r.Cells[:0]
	for _, c := range r.Cells {
		if n := len(out); n > 0 && backend.ComparePosition(&out[n-1], &c) == 0 {
			out[n-1] = *backend.Reconcile(&out[n-1], &c)
			continue
		}
		out = append(out, c)
	}
	r.Cells = out
	sort.SliceStable(r.ComplexDeletions, func(i, j int) bool { return r.ComplexDeletions[i].Column < r.ComplexDeletions[j].Column })
	cd := r.ComplexDeletions[:0]
	for _, d := range r.ComplexDeletions {
		if n := len(cd); n > 0 && cd[n-1].Column == d.Column {
			cd[n-1].Deletion = cd[n-1].Deletion.Max(d.Deletion)
			continue
		}
		cd = append(cd, d)
	}
	r.ComplexDeletions = cd
}
