package exec

import (
	"bytes"
	"context"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/systables"
	"github.com/partita-db/partita/internal/token"
)

// virtualPartition is one partition of a generated system table: its
// rows in clustering order.
type virtualPartition struct {
	key  []byte // serialized partition key
	rows []*rowView
}

// runVirtual answers a system table as Cassandra answers it: its rows are
// generated in scan order (systables invariant 3), then restricted like
// any other table's; the partitions a key restriction names come in the
// order runKeys reads them, and a page resumes after the last row the
// previous page returned.
func (r *selectRun) runVirtual(ctx context.Context, state *pagingState) error {
	parts, err := r.virtualPartitions(ctx)
	if err != nil {
		return err
	}
	named := r.p.PartitionKey != nil
	if named {
		if parts, err = r.namedPartitions(parts); err != nil {
			return err
		}
	}
	keyFilters, err := r.ev.keyFilters(r.p)
	if err != nil {
		return err
	}
	start, resumeAt := 0, false
	if state != nil {
		start, resumeAt = resumePartition(parts, state.partition, !named && systables.TableOrder(r.x.env(), r.p.Table) == systables.TokenOrder)
	}
	for i := start; i < len(parts) && !r.done; i++ {
		part := parts[i]
		rows := part.rows
		r.beginPartition(rows[0].pk, part.key)
		r.partRemaining = r.perPartLim
		if resumeAt && i == start {
			if state.clustering == nil {
				continue // that partition was finished
			}
			r.partRemaining = state.remainingInPartition
			for len(rows) > 0 && bytes.Compare(rows[0].ckKey, state.clustering) <= 0 {
				rows = rows[1:]
			}
		}
		for _, v := range rows {
			if r.done || r.partitionFull() {
				break
			}
			if !allMatch(keyFilters, v) || !allMatch(r.filters, v) {
				continue
			}
			if err := r.emit(v); err != nil {
				return err
			}
		}
	}
	return nil
}

// virtualPartitions generates the table's rows and groups them by
// partition.
func (r *selectRun) virtualPartitions(ctx context.Context) ([]virtualPartition, error) {
	t := r.p.Table
	rows, err := systablesRows(ctx, r.x, t)
	if err != nil {
		return nil, err
	}
	index := map[*catalog.Column]int{}
	for i, c := range t.Columns {
		index[c] = i
	}
	var parts []virtualPartition
	for _, values := range rows {
		v := &rowView{table: t, now: r.now, direct: values, index: index}
		v.pk = make([][]byte, len(t.PartitionKey))
		for i, c := range t.PartitionKey {
			v.pk[i] = values[index[c]]
		}
		v.pkKey = token.SerializeKey(v.pk)
		v.ck = make([][]byte, len(t.Clustering))
		for i, c := range t.Clustering {
			v.ck[i] = values[index[c]]
		}
		v.ckKey = encodeClustering(nil, t, 0, v.ck)
		if n := len(parts); n > 0 && bytes.Equal(parts[n-1].key, v.pkKey) {
			parts[n-1].rows = append(parts[n-1].rows, v)
			continue
		}
		parts = append(parts, virtualPartition{key: v.pkKey, rows: []*rowView{v}})
	}
	return parts, nil
}

// namedPartitions keeps the partitions the key restriction names, in its
// order.
func (r *selectRun) namedPartitions(parts []virtualPartition) ([]virtualPartition, error) {
	keys, err := r.keys()
	if err != nil {
		return nil, err
	}
	byKey := make(map[string]virtualPartition, len(parts))
	for _, p := range parts {
		byKey[string(p.key)] = p
	}
	var out []virtualPartition
	for _, k := range keys {
		if p, ok := byKey[string(k.logical.Key)]; ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// resumePartition finds where a page ending in partition key resumes: at
// that partition (at true), or, when it has gone and the partitions are
// in token order, at the first one after it.
func resumePartition(parts []virtualPartition, key []byte, tokenOrder bool) (int, bool) {
	for i, p := range parts {
		if bytes.Equal(p.key, key) {
			return i, true
		}
	}
	if !tokenOrder {
		return len(parts), false
	}
	tok := token.Of(key)
	for i, p := range parts {
		if t := token.Of(p.key); t > tok || t == tok && bytes.Compare(p.key, key) > 0 {
			return i, false
		}
	}
	return len(parts), false
}
