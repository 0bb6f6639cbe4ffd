package systables

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/token"
	"github.com/partita-db/partita/internal/types"
)

// PartitionOrder is the order of a table's partitions in a full scan.
type PartitionOrder uint8

const (
	// TokenOrder is Murmur3Partitioner's: by token of the serialized
	// partition key, then by the key's bytes (DecoratedKey.compareTo).
	TokenOrder PartitionOrder = iota
	// KeyOrder is LocalPartitioner's, which Cassandra's virtual tables use:
	// by the partition key values themselves, component by component.
	KeyOrder
)

// OrderOf returns the partition order of the tables of ks.
func OrderOf(ks *catalog.Keyspace) PartitionOrder {
	if ks != nil && ks.Virtual {
		return KeyOrder
	}
	return TokenOrder
}

// sortKey is what a row sorts by, computed once per row.
type sortKey struct {
	token token.Token
	key   []byte // serialized partition key (TokenOrder only)
	row   [][]byte
}

// SortRows sorts rows of t (one value per column of t.Columns, in that
// order) into full-scan order (invariant 3): partitions in the given order,
// rows within a partition by clustering, DESC columns reversed. The sort is
// stable.
func SortRows(t *catalog.Table, order PartitionOrder, rows [][][]byte) {
	npk := len(t.PartitionKey)
	keys := make([]sortKey, len(rows))
	for i, r := range rows {
		keys[i].row = r
		if order == TokenOrder {
			keys[i].key = token.SerializeKey(r[:npk])
			keys[i].token = token.Of(keys[i].key)
		}
	}
	comparePartitions := func(a, b *sortKey) int {
		if order == TokenOrder {
			return cmp.Or(cmp.Compare(a.token, b.token), bytes.Compare(a.key, b.key))
		}
		for i, c := range t.PartitionKey {
			if d := types.Compare(c.Type, a.row[i], b.row[i]); d != 0 {
				return d
			}
		}
		return 0
	}
	slices.SortStableFunc(keys, func(a, b sortKey) int {
		if d := comparePartitions(&a, &b); d != 0 {
			return d
		}
		for i, c := range t.Clustering {
			d := types.Compare(c.Type, a.row[npk+i], b.row[npk+i])
			if c.Desc {
				d = -d
			}
			if d != 0 {
				return d
			}
		}
		return 0
	})
	for i := range keys {
		rows[i] = keys[i].row
	}
}
