package exec

import (
	"context"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/token"
	"github.com/partita-db/partita/internal/types"
)

// A secondary index is stored as a hidden table (the index's StorageID):
// one partition per indexed value (a map entry's key and value together for
// an entries() index), whose rows are the base rows holding it,
// clustered by the base row's position: base token (order-preserving),
// escaped base partition key, then the base clustering key. An index on a
// static or partition key column has one entry per base partition, with an
// empty clustering key (a partition entry): the value belongs to the whole
// partition, static-only partitions included. A row entry's liveness
// carries the indexed cell's timestamp and TTL, so it expires with the
// cell; a partition-key entry never expires (the partition's rows may have
// different TTLs), and a static entry carries the static cell's. Entries
// are written blindly with the base write, in the same batch; an entry
// whose base no longer holds the value is stale: readers re-check every
// candidate and delete the stale entries they meet.

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
			case ix.Target == "entries":
				key, _, err := types.DecodeKey(col.Type.Elems[0], c.Path, false)
				if err != nil {
					continue
				}
				v = entryIndexValue(key, c.Value)
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

// entryIndexValue is the value an entries() index holds for a map entry:
// the key and the value as a composite (CompositeType's layout, so its size
// is the one Cassandra limits).
func entryIndexValue(key, value []byte) []byte {
	return token.SerializeKey([][]byte{key, value})
}

func expiresAt(c *backend.Cell) int64 {
	if c.TTL > 0 {
		return c.LocalDeletionTime
	}
	return backend.NoDeletionTime
}

// maxIndexedValue is the size from which a value cannot be indexed: an
// index's partition key is limited to 65535 bytes
// (CassandraIndex.validateIndexedValue, FBUtilities.MAX_UNSIGNED_SHORT).
const maxIndexedValue = 65535

// indexMutations returns the index entries of the base mutations, refusing
// the write if a value of a regular or static column is too large to index
// (CassandraIndex.validate; key columns are bounded by the key limits).
func indexMutations(t *catalog.Table, muts []backend.Mutation) ([]backend.Mutation, error) {
	return indexEntries(t, muts, true)
}

func checkIndexedValue(t *catalog.Table, ix *catalog.Index, v []byte) error {
	if len(v) < maxIndexedValue {
		return nil
	}
	return cqlerr.Invalidf("Cannot index value of size %d for index %s on %s(%s) (maximum allowed size=%d)",
		len(v), ix.Name, t.QualifiedName(), ix.Column, maxIndexedValue)
}

func indexEntries(t *catalog.Table, muts []backend.Mutation, validate bool) ([]backend.Mutation, error) {
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
		add := func(ix *catalog.Index, row *backend.Row, ck []byte, check bool) error {
			vals, lives := indexValues(t, ix, pk, row)
			for j, v := range vals {
				if check {
					if err := checkIndexedValue(t, ix, v); err != nil {
						return err
					}
				} else if len(v) > maxIndexedValue {
					// Too long for an index key: Cassandra's build skips
					// the entry, and no query can look it up.
					continue
				}
				entry := backend.NewRow(entryKey(m.Partition.LogicalPartition, ck))
				entry.Liveness = lives[j]
				mut := backend.NewMutation(indexPartition(ix, v))
				mut.Rows = append(mut.Rows, entry)
				out = append(out, mut)
			}
			return nil
		}
		for _, ix := range t.Indexes {
			col := t.Column(ix.Column)
			if col == nil {
				continue
			}
			switch col.Kind {
			case catalog.Static:
				if m.Static != nil {
					if err := add(ix, m.Static, nil, validate); err != nil {
						return nil, err
					}
				}
			case catalog.PartitionKey:
				if e, ok := partitionKeyEntry(t, ix, pk, m); ok {
					out = append(out, e)
				}
			default:
				for r := range m.Rows {
					if err := add(ix, &m.Rows[r], m.Rows[r].Clustering, validate && col.Kind == catalog.Regular); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	return out, nil
}

// partitionKeyEntry is the partition entry a mutation writes to an index on
// a partition key column, if it writes live data: stamped with its newest
// timestamp and no TTL.
func partitionKeyEntry(t *catalog.Table, ix *catalog.Index, pk [][]byte, m *backend.Mutation) (backend.Mutation, bool) {
	var value []byte
	found, ts := false, backend.NoTimestamp
	consider := func(row *backend.Row) {
		vals, lives := indexValues(t, ix, pk, row)
		for i := range vals {
			found, value = true, vals[i]
			ts = max(ts, lives[i].Timestamp)
		}
	}
	if m.Static != nil {
		consider(m.Static)
	}
	for r := range m.Rows {
		consider(&m.Rows[r])
	}
	if !found {
		return backend.Mutation{}, false
	}
	entry := backend.NewRow(entryKey(m.Partition.LogicalPartition, nil))
	entry.Liveness = backend.Liveness{Timestamp: ts, ExpiresAt: backend.NoDeletionTime}
	mut := backend.NewMutation(indexPartition(ix, value))
	mut.Rows = append(mut.Rows, entry)
	return mut, true
}

// BuildIndex writes the entries of a new index for every row of its table.
func (x *Executor) BuildIndex(ctx context.Context, t *catalog.Table, ix *catalog.Index) error {
	it, err := x.store.Scan(ctx, backend.ScanCommand{Table: t.StorageID, Static: true, Now: 0})
	if err != nil {
		return err
	}
	defer it.Close()
	it = hideDropped(t, it, 0)
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
		// Rows written before the index are indexed whatever their size,
		// as Cassandra's build does not validate.
		entries, err := indexEntries(&only, []backend.Mutation{m}, false)
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
