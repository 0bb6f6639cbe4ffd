package exec

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/plan"
	"github.com/partita-db/partita/internal/types"
)

// currentState is what a read-modify-write statement read, under the
// partitions' locks, before writing.
type currentState struct {
	table    *catalog.Table
	now      int64
	rows     map[string]*backend.Row // by partition key + clustering
	statics  map[string]*backend.Row // by partition key
	pkValues map[string][][]byte
}

func stateKey(pk, ck []byte) string {
	return string(pk) + "\x00" + string(ck)
}

// view returns the current row at (pk, ck) with the partition's static
// row; an absent row gives a view with no cells.
func (s *currentState) view(pk partitionKey, ck []byte) *rowView {
	if s == nil {
		return nil
	}
	v := &rowView{table: s.table, pk: pk.components, pkKey: pk.logical.Key, ckKey: ck, now: s.now,
		static: s.statics[string(pk.logical.Key)]}
	v.row = s.rows[stateKey(pk.logical.Key, ck)]
	v.ck, _ = decodeClustering(s.table, ck, nil)
	return v
}

// readCurrent reads the rows at the given clustering keys (and the static
// row) of each partition.
func (x *Executor) readCurrent(ctx context.Context, t *catalog.Table, pks []partitionKey, cks [][]byte, now int64) (*currentState, error) {
	s := &currentState{table: t, now: now, rows: map[string]*backend.Row{}, statics: map[string]*backend.Row{}}
	var slices []backend.Slice
	for _, ck := range cks {
		slices = append(slices, backend.PrefixSlice(ck))
	}
	slices = normalizeSlices(slices)
	for _, pk := range pks {
		it, err := x.store.Read(ctx, backend.ReadCommand{Partition: pk.logical.Physical(backend.HomeShard),
			Slices: slices, Static: t.HasStatics(), Now: now})
		if err != nil {
			return nil, err
		}
		it = hideDropped(t, it, now)
		for it.Next() {
			r := copyRow(it.Row())
			if r.Clustering == nil {
				s.statics[string(pk.logical.Key)] = r
				continue
			}
			if len(t.Clustering) == 0 || len(cks) > 0 {
				s.rows[stateKey(pk.logical.Key, r.Clustering)] = r
			}
		}
		err = it.Err()
		it.Close()
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

func copyRow(r *backend.Row) *backend.Row {
	c := *r
	if r.Clustering != nil {
		c.Clustering = append([]byte{}, r.Clustering...)
	}
	c.Cells = make([]backend.Cell, len(r.Cells))
	for i, cell := range r.Cells {
		cell.Path = append([]byte(nil), cell.Path...)
		if cell.Path != nil && len(cell.Path) == 0 {
			cell.Path = []byte{}
		}
		if cell.Value != nil {
			cell.Value = append([]byte{}, cell.Value...)
		}
		c.Cells[i] = cell
	}
	c.ComplexDeletions = append([]backend.ComplexDeletion(nil), r.ComplexDeletions...)
	return &c
}

// newest is the newest timestamp of anything the read returned, or
// backend.NoTimestamp.
func (s *currentState) newest() int64 {
	newest := backend.NoTimestamp
	for _, rows := range []map[string]*backend.Row{s.rows, s.statics} {
		for _, r := range rows {
			newest = max(newest, r.MaxTimestamp())
		}
	}
	return newest
}

// rmwKind is what decides the timestamp of a statement that reads first.
type rmwKind uint8

const (
	rmwList        rmwKind = iota // a list operation by index or by value
	rmwCounter                    // a counter update (or deletion)
	rmwConditional                // a lightweight transaction
)

func rmwKindOf(m *plan.Modify) rmwKind {
	switch {
	case m.IsConditional():
		return rmwConditional
	case m.Table.IsCounter:
		return rmwCounter
	}
	return rmwList
}

// lockedTimestamp is the timestamp of a read-modify-write statement (or
// batch), chosen once it holds its partitions' locks and has read; newest
// is current.newest() of that read. Every read-modify-write of a partition
// runs under its lock, so server timestamps taken here are in the order
// they run.
//   - A conditional write ignores the client's timestamp: Cassandra writes
//     it at its Paxos ballot's, the server's now raised above the
//     partition's last ballot (StorageProxy.beginAndRepairPaxos,
//     ClientState.getTimestampForPaxos, Commit.newProposal). Here it is
//     the clock's now raised above what the read returned, so an applied
//     write is never hidden by the data its condition held on (a deletion
//     stamped in the future, which reads do not return, still hides it,
//     as in Cassandra). As in Cassandra (CASSANDRA-11991), the raise does
//     not advance the clock.
//   - A counter keeps its total in one cell that last-write-wins
//     reconciles, where Cassandra merges counter contexts whose clock is
//     max(now, previous clock + 1) (CounterMutation.updateWithCurrentValue):
//     the update's timestamp (the client's, or the clock's now) is raised
//     above the total it read, so every increment supersedes the total it
//     added to, whatever timestamps the clients sent.
//   - A list operation keeps the client's timestamp, and last write wins
//     as in Cassandra; the server's is the clock's now.
func (r *Request) lockedTimestamp(kind rmwKind, newest int64) int64 {
	switch kind {
	case rmwConditional:
		return above(r.serverTimestamp(), newest)
	case rmwCounter:
		return above(r.writeTimestamp(), newest)
	}
	return r.writeTimestamp()
}

// above returns ts, or newest+1 when that is larger (newest itself when it
// is the largest timestamp, which nothing can pass).
func above(ts, newest int64) int64 {
	switch {
	case newest < ts:
		return ts
	case newest == math.MaxInt64:
		return newest
	}
	return newest + 1
}

// modifyWithRead runs a statement that must see the current data: it locks
// the partitions, reads, checks IF conditions, stamps, computes and applies
// the mutations. For a conditional statement it returns the [applied]
// result.
func (x *Executor) modifyWithRead(ctx context.Context, w *writeContext, m *plan.Modify, req *Request) (*Rows, error) {
	pks, err := w.partitionKeys(m.Table, m.PartitionKey)
	if err != nil {
		return nil, err
	}
	if m.IsConditional() {
		if err := checkConditionalKeys(m); err != nil {
			return nil, err
		}
	}
	logical := make([]backend.LogicalPartition, len(pks))
	for i, pk := range pks {
		logical[i] = pk.logical
	}
	ctx = backend.WithReadModifyWrite(ctx)
	lock, err := x.lockPartitions(ctx, logical)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	_, cks, err := w.keysOf(m)
	if err != nil {
		return nil, err
	}
	tr := TraceFrom(ctx)
	if tr != nil && m.IsConditional() {
		tr.Event("Reading existing values for CAS precondition")
	}
	w.current, err = x.readCurrent(ctx, m.Table, pks, cks, w.now)
	if err != nil {
		return nil, err
	}
	if m.IsConditional() {
		applied, err := w.checkConditions(m, pks[0], cks)
		if err != nil {
			return nil, err
		}
		traceCAS(tr, applied)
		if !applied {
			res, err := x.statementCASFailure(ctx, w, m, pks[0], cks)
			if err == nil {
				err = lock.Release(ctx, false)
			}
			return res, err
		}
	}
	// Over several gateways the lock's timestamp is raised above what an
	// earlier holder of the partition's lease may write (lease fencing).
	if w.timestamp, err = lock.Timestamp(ctx, req.lockedTimestamp(rmwKindOf(m), w.current.newest())); err != nil {
		return nil, err
	}
	muts, err := w.mutations(m)
	if err != nil {
		return nil, err
	}
	if m.IsConditional() {
		for i := range muts {
			withTimestamp(&muts[i], w.timestamp)
		}
	}
	if err := x.applyMaintained(ctx, []*plan.Modify{m}, muts, w.now, true); err != nil {
		return nil, err
	}
	// Done only once the lease is known to have outlived the write.
	if err := lock.Release(ctx, true); err != nil {
		return nil, err
	}
	if m.IsConditional() {
		if tr != nil {
			tr.Event("CAS successful")
		}
		return appliedResult(m.Table, true), nil
	}
	return nil, nil
}

// checkConditionalKeys refuses IN on the keys of a conditional statement,
// which Cassandra checks once it has built (and validated) the partition
// keys (ModificationStatement.makeCasRequest).
func checkConditionalKeys(m *plan.Modify) error {
	word := "updates"
	if m.Kind == plan.Delete {
		word = "deletions"
	}
	if partitionKeyIN(m) {
		return cqlerr.Invalidf("IN on the partition key is not supported with conditional %s", word)
	}
	for _, r := range m.Clustering {
		if r.Kind == plan.RestrictIN {
			return cqlerr.Invalidf("IN on the clustering key columns is not supported with conditional %s", word)
		}
	}
	return nil
}

// keysOf evaluates the partition keys and full clustering keys m writes.
func (w *writeContext) keysOf(m *plan.Modify) ([]partitionKey, [][]byte, error) {
	pks, err := w.partitionKeys(m.Table, m.PartitionKey)
	if err != nil {
		return nil, nil, err
	}
	if len(m.Table.Clustering) == 0 {
		return pks, [][]byte{{}}, nil
	}
	if m.StaticOnly && len(m.Clustering) == 0 {
		return pks, nil, nil
	}
	prefixes, slice, err := w.clusteringPrefixes(m.Table, m.Clustering)
	if err != nil || slice != nil {
		return pks, nil, err
	}
	return pks, prefixes, nil
}

// appliedResult is the one-row [applied] result of a conditional statement.
func appliedResult(t *catalog.Table, applied bool) *Rows {
	return &Rows{Columns: []plan.ResultColumn{{Keyspace: t.Keyspace, Table: t.Name, Name: "[applied]", Type: types.Boolean}},
		Rows: [][][]byte{{types.EncodeBoolean(applied)}}}
}

// checkConditions evaluates IF NOT EXISTS / IF EXISTS / IF conditions on
// the current row (CQL3CasRequest.appliesTo): bound first, then the static
// row's conditions, then the row's, up to the first that does not hold.
func (w *writeContext) checkConditions(m *plan.Modify, pk partitionKey, cks [][]byte) (bool, error) {
	if err := w.bindConditions(m); err != nil {
		return false, err
	}
	for _, static := range []bool{true, false} {
		if ok, err := w.checkRowConditions(m, pk, cks, static); err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// checkRowConditions evaluates the part of m's conditions that is on the
// static row, or on the row m names: Cassandra evaluates the static row's
// conditions first, then each row's in clustering order, and stops at the
// first that does not hold, so a later condition's error is not reported.
func (w *writeContext) checkRowConditions(m *plan.Modify, pk partitionKey, cks [][]byte, static bool) (bool, error) {
	var ck []byte
	if len(cks) > 0 {
		ck = cks[0]
	}
	v := w.current.view(pk, ck)
	if m.IfNotExists || m.IfExists {
		staticRow := m.StaticOnly && len(m.Clustering) == 0
		if staticRow != static {
			return true, nil
		}
		exists := v.row != nil
		if staticRow {
			exists = v.static != nil
		}
		return exists == m.IfExists, nil
	}
	for _, c := range m.Conditions {
		if (c.Column.Kind == catalog.Static) != static {
			continue
		}
		match, err := w.conditionHolds(c, v)
		if err != nil || !match {
			return false, err
		}
	}
	return true, nil
}

// bindConditions refuses the unset values Cassandra refuses when it binds
// the conditions, before evaluating any (ColumnCondition.bindAndGetTerms).
func (w *writeContext) bindConditions(m *plan.Modify) error {
	for _, c := range m.Conditions {
		var terms []*plan.Term
		switch c.Op {
		case ast.OpIn:
			for _, t := range c.Values {
				if t.Kind == plan.TermBindList {
					terms = append(terms, t)
				}
			}
		case ast.OpContains, ast.OpContainsKey:
		default:
			terms = append(terms, c.Value)
		}
		for _, t := range terms {
			_, unset, err := w.evalValid(t)
			if err != nil {
				return err
			}
			if unset {
				return cqlerr.Invalidf("Invalid 'unset' value in condition")
			}
		}
	}
	return nil
}

// statementCASFailure is the result of a conditional statement that does
// not apply: [applied] false with what the read for its conditions
// returned (casFailure), the statement being a conditional batch of one
// whose result names no key columns.
func (x *Executor) statementCASFailure(ctx context.Context, w *writeContext, m *plan.Modify, pk partitionKey, cks [][]byte) (*Rows, error) {
	cas := &casRequest{table: m.Table, pk: pk, rows: map[string]casKind{}, conditionColumns: map[*catalog.Column]bool{},
		updatesRegular: len(m.Table.Clustering) == 0 || len(m.Clustering) > 0}
	if err := cas.add(m, cks); err != nil {
		return nil, err
	}
	return x.casFailure(ctx, cas, w.now)
}

// conditionHolds evaluates one IF condition (ColumnCondition.Bound).
func (w *writeContext) conditionHolds(c plan.Condition, v *rowView) (bool, error) {
	current := v.value(c.Column)
	typ := c.Column.Type
	var err error
	if c.Key != nil {
		if current, typ, err = w.elementOf(c, current); err != nil {
			return false, err
		}
	} else if c.Field >= 0 {
		typ = c.Column.Type.Elems[c.Field]
		if current != nil {
			fields, err := types.DecodeTuple(c.Column.Type, current)
			if err != nil {
				return false, err
			}
			current = fields[c.Field]
		}
	}
	// A whole non-frozen collection or UDT: an empty collection does not
	// exist, so an empty value compares as null (Operator.isSatisfiedBy on
	// multi-cell data).
	multiCell := c.Key == nil && c.Field < 0 && typ.IsMultiCell()
	switch c.Op {
	case ast.OpIn:
		vals, err := w.conditionValues(c, multiCell)
		if err != nil {
			return false, err
		}
		for _, want := range vals {
			if equalValues(typ, current, want) {
				return true, nil
			}
		}
		return false, nil
	case ast.OpContains, ast.OpContainsKey:
		want, unset, err := w.evalValid(c.Value)
		if err != nil {
			return false, err
		}
		if unset {
			// Cassandra binds unset as an empty value, which no element
			// equals.
			return false, nil
		}
		if want == nil {
			return false, cqlerr.Invalidf("Invalid comparison with null for operator \"%s\"", c.Op)
		}
		if current == nil {
			return false, nil
		}
		f := compiledFilter{}
		if c.Op == ast.OpContains {
			f.contains = [][]byte{want}
		} else {
			f.containsKey = [][]byte{want}
		}
		return f.collectionMatches(typ, current), nil
	}
	want, unset, err := w.evalValid(c.Value)
	if err != nil {
		return false, err
	}
	if unset {
		return false, cqlerr.Invalidf("Invalid 'unset' value in condition")
	}
	if multiCell && emptyCollection(typ, want) {
		switch c.Op {
		case ast.OpEq, ast.OpNeq:
			want = nil
		default:
			return false, cqlerr.Invalidf("Invalid comparison with an empty %s for operator \"%s\"", typ.Kind, c.Op)
		}
	}
	return compareCondition(c.Op, typ, current, want)
}

// emptyCollection reports whether v is a collection of type t with no
// elements.
func emptyCollection(t *types.Type, v []byte) bool {
	if !t.IsCollection() || v == nil {
		return false
	}
	// A serialized collection starts with its element count.
	return len(v) == 0 || (len(v) >= 4 && binary.BigEndian.Uint32(v) == 0)
}

// conditionValues evaluates the values of an IN condition; an empty
// collection among them is null when the column is a whole multi-cell
// collection.
func (w *writeContext) conditionValues(c plan.Condition, multiCell bool) ([][]byte, error) {
	var out [][]byte
	add := func(v []byte) {
		if multiCell && emptyCollection(c.Column.Type, v) {
			v = nil
		}
		out = append(out, v)
	}
	for _, t := range c.Values {
		v, unset, err := w.evalValid(t)
		if err != nil {
			return nil, err
		}
		if unset && t.Kind == plan.TermBindList {
			return nil, cqlerr.Invalidf("Invalid 'unset' value in condition")
		}
		if unset {
			continue
		}
		if t.Kind == plan.TermBindList {
			if v == nil {
				return nil, cqlerr.Invalidf("Invalid null list in IN condition")
			}
			elems, err := types.DecodeCollection(v)
			if err != nil {
				return nil, err
			}
			for _, e := range elems {
				add(e)
			}
			continue
		}
		add(v)
	}
	return out, nil
}

// elementOf returns l[i] or m[k] of the current collection value, with the
// element's type.
func (w *writeContext) elementOf(c plan.Condition, current []byte) ([]byte, *types.Type, error) {
	key, unset, err := w.evalValid(c.Key)
	if err != nil {
		return nil, nil, err
	}
	t := c.Column.Type
	if key == nil && !unset {
		return nil, nil, cqlerr.Invalidf("Invalid null value for %s element access", t.Kind)
	}
	if unset && t.Kind == types.KindList {
		// Cassandra binds unset as an empty value, and reading a list
		// index from it fails (ByteBufferUtil.toInt).
		return nil, nil, cqlerr.Serverf("java.lang.IndexOutOfBoundsException")
	}
	if unset {
		// An empty map key names no element.
		return nil, t.Elems[1], nil
	}
	if t.Kind == types.KindList {
		idx, err := types.Int64(types.Int, key)
		if err != nil {
			return nil, nil, err
		}
		if idx < 0 {
			return nil, nil, cqlerr.Invalidf("Invalid negative list index %d", idx)
		}
		if current == nil {
			return nil, t.Elems[0], nil
		}
		elems, err := types.DecodeCollection(current)
		if err != nil {
			return nil, nil, err
		}
		if idx >= int64(len(elems)) {
			return nil, t.Elems[0], nil
		}
		return elems[idx], t.Elems[0], nil
	}
	if current == nil {
		return nil, t.Elems[1], nil
	}
	keys, vals, err := types.DecodeMap(current)
	if err != nil {
		return nil, nil, err
	}
	for i, k := range keys {
		if types.Compare(t.Elems[0], k, key) == 0 {
			return vals[i], t.Elems[1], nil
		}
	}
	return nil, t.Elems[1], nil
}

// compareCondition applies a comparison operator of an IF condition in
// the value's type; null equals only null, and ordering against null is
// false (or an error when the condition's own value is null). (Cassandra
// 5.0 compares a map element in the map's key type; Partita does not copy
// that: random_known.txt, cassandra-map-element-condition-key-type.)
func compareCondition(op ast.Operator, t *types.Type, current, want []byte) (bool, error) {
	switch op {
	case ast.OpEq:
		return equalValues(t, current, want), nil
	case ast.OpNeq:
		return !equalValues(t, current, want), nil
	}
	if want == nil {
		return false, cqlerr.Invalidf("Invalid comparison with null for operator \"%s\"", op)
	}
	if current == nil {
		return false, nil
	}
	c := types.Compare(t, current, want)
	switch op {
	case ast.OpLt:
		return c < 0, nil
	case ast.OpLte:
		return c <= 0, nil
	case ast.OpGt:
		return c > 0, nil
	case ast.OpGte:
		return c >= 0, nil
	}
	return false, cqlerr.Invalidf("Unsupported operator %s in IF condition", op)
}

func equalValues(t *types.Type, a, b []byte) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return bytes.Equal(a, b) || types.Compare(t, a, b) == 0
}
