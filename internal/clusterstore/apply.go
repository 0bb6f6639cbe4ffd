package clusterstore

import (
	"context"
	"fmt"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/backend"
)

// statement is one CQL statement of a batch with its bound values.
type statement struct {
	cql    string
	values []any
	bytes  int
	part   string // the partition it writes, for the batch log
}

// writer accumulates the statements of one commit.
type writer struct {
	s          *Store
	stmts      []statement
	partitions map[string]bool
	markerTTL  int
	newShards  []string // registry entries this commit adds
}

func (s *Store) newWriter() *writer { return &writer{s: s, partitions: map[string]bool{}} }

// where returns the backing table of p and the restriction naming its
// partition, with the values it binds.
func (s *Store) where(p backend.PhysicalPartition) (table, cond string, values []any) {
	if p.Shard == backend.HomeShard {
		return s.homeTable(p.Table), "k = ?", []any{p.Key}
	}
	return s.childTable(p.Table), "k = ? AND shard = ?", []any{p.Key, int32(p.Shard)}
}

func (w *writer) add(p backend.PhysicalPartition, cql string, values ...any) {
	n := 0
	for _, v := range values {
		if b, ok := v.([]byte); ok {
			n += len(b)
		} else {
			n += 8
		}
	}
	part := partitionKey(p)
	w.partitions[part] = true
	w.stmts = append(w.stmts, statement{cql: cql, values: values, bytes: n + len(p.Key), part: part})
}

func partitionKey(p backend.PhysicalPartition) string {
	return fmt.Sprintf("%d/%d/%x", p.Table, p.Shard, p.Key)
}

// writeCell writes one backing cell at gen. An expiring cell keeps its
// TTL and its expiration time (the engine's, in seconds) beside the value,
// so reads report them exactly as written; the cluster's own TTL is what
// remains of it, so the cluster drops the cell when the engine expires it.
func (w *writer) writeCell(p backend.PhysicalPartition, kind int8, c []byte, col int64, path []byte, gen int64,
	value []byte, ts int64, ttl int32, expiresAt int64) {
	table, cond, vals := w.s.where(p)
	clusterTTL := remaining(ttl, expiresAt, time.Now().Unix())
	if ttl == 0 {
		expiresAt = 0
	}
	w.add(p, fmt.Sprintf(`UPDATE %s USING TIMESTAMP ? AND TTL ? SET v = ?, ttl = ?, exp = ? WHERE %s AND kind = ? AND c = ? AND col = ? AND path = ? AND gen = ?`, table, cond),
		append(append([]any{ts, int(clusterTTL), nonNil(value), int(ttl), expiresAt}, vals...), kind, nonNil(c), col, path, gen)...)
}

// deletePrefix deletes every backing row under a clustering prefix at ts:
// restrict names the prefix ("kind = ? AND c = ?" ...).
func (w *writer) deletePrefix(p backend.PhysicalPartition, ts int64, restrict string, values ...any) {
	table, cond, vals := w.s.where(p)
	if restrict != "" {
		cond += " AND " + restrict
	}
	w.add(p, fmt.Sprintf(`DELETE FROM %s USING TIMESTAMP ? WHERE %s`, table, cond), append(append([]any{ts}, vals...), values...)...)
}

// marker records a deletion where Move can read it (invariant 3).
func (w *writer) marker(p backend.PhysicalPartition, col int64, c, path []byte, d backend.DeletionTime) {
	table, cond, vals := w.s.where(p)
	w.add(p, fmt.Sprintf(`UPDATE %s USING TIMESTAMP ? AND TTL ? SET v = ? WHERE %s AND kind = ? AND c = ? AND col = ? AND path = ? AND gen = 0`, table, cond),
		append(append([]any{markerTimestamp, w.markerTTL, encodeDeletion(d)}, vals...), kindMarker, nonNil(c), col, nonNil(path))...)
}

// mutation adds the statements of m.
func (w *writer) mutation(m *backend.Mutation) {
	p := m.Partition
	w.markerTTL = w.s.markerTTL(p.Table)
	if !m.PartitionDeletion.IsLive() {
		w.deletePrefix(p, m.PartitionDeletion.MarkedForDeleteAt, "")
		w.marker(p, markerPartition, nil, nil, m.PartitionDeletion)
	}
	for _, rt := range m.RangeTombstones {
		w.rangeTombstone(p, rt)
	}
	if m.Static != nil {
		w.row(p, kindStatic, m.Static)
	}
	for i := range m.Rows {
		w.row(p, kindRow, &m.Rows[i])
	}
	if p.Shard != backend.HomeShard {
		w.register(p)
	}
}

func (w *writer) rangeTombstone(p backend.PhysicalPartition, rt backend.RangeTombstone) {
	if rt.Slice.IsEmpty() || rt.Deletion.IsLive() {
		return
	}
	ts := rt.Deletion.MarkedForDeleteAt
	if rt.Slice.End == nil {
		w.deletePrefix(p, ts, "kind = ? AND c >= ?", kindRow, nonNil(rt.Slice.Start))
	} else {
		w.deletePrefix(p, ts, "kind = ? AND c >= ? AND c < ?", kindRow, nonNil(rt.Slice.Start), rt.Slice.End)
	}
	w.marker(p, markerRange, rt.Slice.Start, encodeRangeEnd(rt.Slice.End), rt.Deletion)
}

func (w *writer) row(p backend.PhysicalPartition, kind int8, r *backend.Row) {
	c := nonNil(r.Clustering)
	if kind == kindStatic {
		c = []byte{}
	}
	if kind == kindRow && !r.Deletion.IsLive() {
		w.deletePrefix(p, r.Deletion.MarkedForDeleteAt, "kind = ? AND c = ?", kind, c)
		w.marker(p, markerRow, c, nil, r.Deletion)
	}
	for _, cd := range r.ComplexDeletions {
		if cd.Deletion.IsLive() {
			continue
		}
		w.deletePrefix(p, cd.Deletion.MarkedForDeleteAt, "kind = ? AND c = ? AND col = ?", kind, c, int64(cd.Column))
		col := markerComplex
		if kind == kindStatic {
			col = markerStaticComplex
		}
		w.marker(p, col, c, encodeColumn(cd.Column), cd.Deletion)
	}
	switch {
	case r.Liveness.IsEmpty():
	case r.Liveness.TTL == expiredLivenessTTL:
		// An expired row marker (materialized views) only ever hides the
		// markers it wins over: a tombstone at its timestamp does the same.
		w.deletePrefix(p, r.Liveness.Timestamp, "kind = ? AND c = ? AND col = ? AND path = ?", kind, c, livenessColumn, []byte{})
	default:
		w.writeCell(p, kind, c, livenessColumn, []byte{}, 0, []byte{}, r.Liveness.Timestamp, r.Liveness.TTL, r.Liveness.ExpiresAt)
	}
	for i := range r.Cells {
		cell := &r.Cells[i]
		if cell.IsTombstone() {
			w.deletePrefix(p, cell.Timestamp, "kind = ? AND c = ? AND col = ? AND path = ?", kind, c, int64(cell.Column), encodePath(cell.Path))
			col := markerCell
			if kind == kindStatic {
				col = markerStaticCell
			}
			w.marker(p, col, c, cellPosition(cell.Column, cell.Path),
				backend.DeletionTime{MarkedForDeleteAt: cell.Timestamp, LocalDeletionTime: cell.LocalDeletionTime})
			continue
		}
		w.writeCell(p, kind, c, int64(cell.Column), encodePath(cell.Path), 0, cell.Value, cell.Timestamp, cell.TTL, cell.LocalDeletionTime)
	}
}

// register lists a non-home shard in the shard registry (once per process).
func (w *writer) register(p backend.PhysicalPartition) {
	key := partitionKey(p)
	w.s.mu.Lock()
	done := w.s.mu.shards[key]
	w.s.mu.Unlock()
	if done {
		return
	}
	w.stmts = append(w.stmts, statement{
		cql:    fmt.Sprintf(`INSERT INTO %s.shards (table_id, tok, key, shard) VALUES (?, ?, ?, ?) USING TIMESTAMP ?`, w.s.keyspace),
		values: []any{int64(p.Table), int64(p.Token), p.Key, int32(p.Shard), w.s.timestamp()},
		bytes:  len(p.Key) + 24,
		part:   "registry",
	})
	w.partitions["registry"] = true
	w.newShards = append(w.newShards, key)
}

func (w *writer) meta(m backend.MetaWrite) {
	ts := w.s.timestamp()
	if m.Value == nil {
		w.stmts = append(w.stmts, statement{cql: fmt.Sprintf(`DELETE FROM %s.meta USING TIMESTAMP ? WHERE bucket = 0 AND key = ?`, w.s.keyspace),
			values: []any{ts, m.Key}, bytes: len(m.Key), part: "meta"})
	} else {
		w.stmts = append(w.stmts, statement{cql: fmt.Sprintf(`UPDATE %s.meta USING TIMESTAMP ? SET value = ? WHERE bucket = 0 AND key = ?`, w.s.keyspace),
			values: []any{ts, m.Value, m.Key}, bytes: len(m.Key) + len(m.Value), part: "meta"})
	}
	w.partitions["meta"] = true
}

// commit runs the statements as one batch: unlogged when they touch one
// partition (atomic and isolated there), logged otherwise (invariant 5).
func (w *writer) commit(ctx context.Context) error {
	if len(w.partitions) <= 1 {
		return w.s.runBatch(ctx, w.stmts, false)
	}
	return w.s.commitAtomic(ctx, w.stmts)
}

func (s *Store) runBatch(ctx context.Context, stmts []statement, logged bool) error {
	if len(stmts) == 0 {
		return nil
	}
	release, err := s.acquire(ctx)
	if err != nil {
		return err
	}
	defer release()
	if len(stmts) == 1 {
		return clusterError(s.session.Query(stmts[0].cql, stmts[0].values...).WithContext(ctx).Consistency(s.level(ctx)).Exec())
	}
	typ := gocql.UnloggedBatch
	if logged {
		typ = gocql.LoggedBatch
	}
	b := s.session.NewBatch(typ).WithContext(ctx)
	b.SetConsistency(s.level(ctx))
	for _, st := range stmts {
		b.Query(st.cql, st.values...)
	}
	return clusterError(s.session.ExecuteBatch(b))
}

// registered records the shards a successful commit registered.
func (w *writer) registered() {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	for _, key := range w.newShards {
		w.s.mu.shards[key] = true
	}
}

// Apply implements backend.Backend.
func (s *Store) Apply(ctx context.Context, b *backend.WriteBatch) error {
	for _, t := range b.DropTables {
		if err := s.dropTable(ctx, t); err != nil {
			return err
		}
	}
	w := s.newWriter()
	for i := range b.Mutations {
		if err := s.ensureTable(ctx, b.Mutations[i].Partition.Table); err != nil {
			return err
		}
		w.mutation(&b.Mutations[i])
	}
	for _, m := range b.Meta {
		w.meta(m)
	}
	if err := w.commit(ctx); err != nil {
		return fmt.Errorf("clusterstore: write: %w", err)
	}
	w.registered()
	return nil
}

// dropTable removes every row of t (DROP TABLE and TRUNCATE): the backing
// tables are truncated and the table's shard registry entries deleted.
func (s *Store) dropTable(ctx context.Context, t backend.TableID) error {
	if err := s.ensureTable(ctx, t); err != nil {
		return err
	}
	for _, q := range []string{`TRUNCATE ` + s.homeTable(t), `TRUNCATE ` + s.childTable(t)} {
		if err := s.exec(ctx, q); err != nil {
			return fmt.Errorf("clusterstore: truncate table %d: %w", t, err)
		}
	}
	if err := s.exec(ctx, fmt.Sprintf(`DELETE FROM %s.shards USING TIMESTAMP ? WHERE table_id = ?`, s.keyspace), s.timestamp(), int64(t)); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	prefix := fmt.Sprintf("%d/", t)
	for k := range s.mu.shards {
		if len(k) >= len(prefix) && k[:len(prefix)] == prefix {
			delete(s.mu.shards, k)
		}
	}
	return nil
}
