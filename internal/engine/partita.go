package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/split"
	"github.com/partita-db/partita/internal/systables"
	"github.com/partita-db/partita/internal/token"
	"github.com/partita-db/partita/internal/types"
)

// partitaSource renders the split layer for the system_partita tables.
type partitaSource struct{ e *Engine }

func (e *Engine) describePartition(p backend.LogicalPartition) (ks, table, key string, t *catalog.Table) {
	t = e.catalog.Current().TableByStorageID(p.Table)
	if t == nil {
		return "", fmt.Sprint(p.Table), fmt.Sprintf("0x%x", p.Key), nil
	}
	return t.Keyspace, t.Name, formatPartitionKey(t, p.Key), t
}

// formatPartitionKey prints a partition key as CQL literals, e.g.
// 'asset_1', '2026-01-20'.
func formatPartitionKey(t *catalog.Table, key []byte) string {
	comps, err := token.SplitKey(key, len(t.PartitionKey))
	if err != nil {
		return fmt.Sprintf("0x%x", key)
	}
	parts := make([]string, len(comps))
	for i, c := range comps {
		parts[i] = types.FormatLiteral(t.PartitionKey[i].Type, c)
	}
	return strings.Join(parts, ", ")
}

// formatBound prints an encoded clustering bound as the values it starts
// with, or in hex when it does not decode.
func formatBound(t *catalog.Table, b []byte) string {
	if len(b) == 0 {
		return "-inf"
	}
	var parts []string
	rest := b
	for _, c := range t.Clustering {
		if len(rest) == 0 {
			break
		}
		v, r, err := types.DecodeKey(c.Type, rest, c.Desc)
		if err != nil {
			return fmt.Sprintf("0x%x", b)
		}
		parts, rest = append(parts, types.FormatLiteral(c.Type, v)), r
	}
	s := "(" + strings.Join(parts, ", ") + ")"
	if len(rest) > 0 {
		s += "+" // just after these values
	}
	return s
}

func describeMap(t *catalog.Table, m split.Map) []string {
	var out []string
	if m.Kind == split.HashMap {
		for i, sh := range m.Shards {
			out = append(out, fmt.Sprintf("shard %d: hash segment %d of %d", sh, i, len(m.Shards)))
		}
		return out
	}
	for i, pc := range m.Pieces {
		end := "+inf"
		if i+1 < len(m.Pieces) {
			end = formatBound(t, m.Pieces[i+1].Start)
		}
		out = append(out, fmt.Sprintf("shard %d: [%s, %s)", pc.Shard, formatBound(t, pc.Start), end))
	}
	return out
}

func (ps partitaSource) Splits() []systables.SplitInfo {
	var out []systables.SplitInfo
	for _, s := range ps.e.split.States() {
		ks, table, key, t := ps.e.describePartition(s.Partition)
		info := systables.SplitInfo{Keyspace: ks, Table: table, PartitionKey: key, Epoch: int64(s.Epoch), State: "active", Rows: -1, Bytes: -1}
		if st, ok := ps.e.split.StatsOf(s.Partition); ok && !st.MeasuredAt.IsZero() {
			info.Rows, info.Bytes = st.Rows, st.Bytes
		}
		m := s.Current
		if mg := s.Migration; mg != nil {
			info.State = "moving"
			switch {
			case mg.Reverting:
				info.State = "reverting"
			case mg.Purpose == "merge":
				info.State = "merging"
			}
			info.Strategy, info.Reason, info.RowsMoved, info.BytesMoved = mg.Strategy, mg.Reason, mg.RowsMoved, mg.BytesMoved
			info.StartedAt = mg.StartedAt / 1000
			if t != nil {
				info.Cursor = formatBound(t, mg.Cursor)
			}
			if mg.Complete {
				info.Cursor = "+inf"
			}
			m = mg.Target
		}
		if t != nil {
			info.Children = describeMap(t, m)
		}
		if info.Strategy == "" {
			info.Strategy = map[split.MapKind]string{split.RangeMap: "range", split.HashMap: "hash"}[s.Current.Kind]
		}
		out = append(out, info)
	}
	return out
}

func (ps partitaSource) SplitHistory() []systables.SplitEvent {
	recs, err := ps.e.split.History(context.Background())
	if err != nil {
		return nil
	}
	out := make([]systables.SplitEvent, 0, len(recs))
	for _, r := range recs {
		ks, table, key, _ := ps.e.describePartition(backend.LogicalPartition{Table: backend.TableID(r.Table), Key: r.Key})
		out = append(out, systables.SplitEvent{Keyspace: ks, Table: table, PartitionKey: key, At: r.At / 1000,
			Event: r.Event, Purpose: r.Purpose, Strategy: r.Strategy, Reason: r.Reason, Who: r.Who,
			Epoch: int64(r.Epoch), RowsBefore: r.RowsBefore, ChecksumBefore: int64(r.ChecksumBefore),
			RowsMoved: r.RowsMoved, BytesMoved: r.BytesMoved, Children: int64(r.Children)})
	}
	return out
}

func (ps partitaSource) LargePartitions() []systables.LargePartition {
	var out []systables.LargePartition
	for _, st := range ps.e.split.TopStats(1000) {
		ks, table, key, _ := ps.e.describePartition(st.Partition)
		lp := systables.LargePartition{Keyspace: ks, Table: table, PartitionKey: key,
			Size: st.Bytes, Rows: st.Rows, RowsWritten: st.RowsWritten, BytesWritten: st.BytesWritten,
			Tombstones: st.Tombstones, Reads: st.Reads, RowsRead: st.RowsRead, BytesRead: st.BytesRead,
			MaxChildRows: st.MaxChildRows, MaxChildBytes: st.MaxChildBytes, Split: "no"}
		if st.MeasuredAt.IsZero() {
			lp.Size, lp.Rows = st.BytesWritten, st.RowsWritten
		}
		if st.Reads > 0 {
			lp.MeanReadMicros = st.ReadMicros / st.Reads
		}
		if s := ps.e.split.State(st.Partition); s != nil {
			lp.Split = fmt.Sprintf("%d children, epoch %d", len(s.Current.AllShards()), s.Epoch)
		}
		out = append(out, lp)
	}
	return out
}

func (ps partitaSource) Statements() []systables.StatementInfo { return ps.e.stmtStats.snapshot() }
