package engine

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strings"
	"time"

	"github.com/partita-db/partita/internal/advisor"
	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cql/parser"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/types"
)

// Advise runs the modeling advisor over the tables of a keyspace (every
// user keyspace when keyspace is empty) with the partition statistics the
// node keeps: the tracked partitions' sizes, writes, tombstones and the
// time range their clustering keys span.
func (e *Engine) Advise(keyspace string) (advisor.Report, error) {
	schema := e.catalog.Current()
	if keyspace != "" && schema.Keyspace(keyspace) == nil {
		return advisor.Report{}, cqlerr.Invalidf("Keyspace '%s' does not exist", keyspace)
	}
	byID := map[backend.TableID]*advisor.Table{}
	for name, ks := range schema.Keyspaces {
		if ks.Virtual || catalog.IsSystemKeyspace(name) || keyspace != "" && name != keyspace {
			continue
		}
		for _, t := range ks.Tables {
			if t.Virtual || t.View != nil {
				continue
			}
			pol := e.splitPolicy(t.StorageID)
			byID[t.StorageID] = &advisor.Table{Keyspace: t.Keyspace, Name: t.Name,
				PartitionKey: adviseColumns(t.PartitionKey), Clustering: adviseColumns(t.Clustering),
				Regular:    adviseColumns(append(append([]*catalog.Column(nil), t.Statics...), t.Regulars...)),
				DefaultTTL: t.Options.DefaultTTL,
				Split:      advisor.SplitPolicy{Enabled: pol.Enabled, MaxRows: pol.MaxRows, MaxBytes: pol.MaxBytes}}
		}
	}
	for _, st := range e.split.Stats() {
		at := byID[st.Partition.Table]
		if at == nil {
			continue
		}
		t := schema.TableByStorageID(st.Partition.Table)
		p := advisor.Partition{Key: formatPartitionKey(t, st.Partition.Key), Token: int64(st.Partition.Token),
			Rows: st.Rows, Bytes: st.Bytes, Measured: !st.MeasuredAt.IsZero(),
			RowsWritten: st.RowsWritten, BytesWritten: st.BytesWritten, Tombstones: st.Tombstones,
			FirstWrite: st.FirstWrite, LastWrite: st.LastWrite}
		if !p.Measured {
			p.Rows, p.Bytes = st.RowsWritten, st.BytesWritten
			if len(t.Clustering) == 0 { // overwritten, at most one row
				p.Rows, p.Bytes = min(p.Rows, 1), st.BytesWritten/max(st.RowsWritten, 1)
			}
		}
		p.Ascending, p.Descending, p.Interior = st.WriteOrder()
		if len(t.Clustering) > 0 {
			if lo, hi, ok := e.split.KeyRange(st.Partition); ok {
				a, okA := clusteringTime(t.Clustering[0], lo)
				b, okB := clusteringTime(t.Clustering[0], hi)
				if okA && okB {
					p.SpanStart, p.SpanEnd = a, b
					if b.Before(a) { // a descending column
						p.SpanStart, p.SpanEnd = b, a
					}
				}
			}
		}
		if s := e.split.State(st.Partition); s != nil {
			p.Children = len(s.Current.AllShards())
		}
		at.Partitions = append(at.Partitions, p)
	}
	for _, st := range e.stmtStats.snapshot() {
		if st.Kind != "SELECT" || st.Filtered == 0 && st.RangeScans == 0 {
			continue
		}
		stmt, err := parser.Parse(strings.ReplaceAll(st.Statement, "?, ...", "?"))
		sel, ok := stmt.(*ast.Select)
		if err != nil || !ok {
			continue
		}
		ks := cmp.Or(sel.Table.Keyspace, st.Keyspace)
		t := schema.Table(ks, sel.Table.Name)
		if t == nil || byID[t.StorageID] == nil {
			continue
		}
		as := advisor.Statement{Text: st.Statement, Count: st.Count, RowsRead: st.RowsRead, RowsReturned: st.RowsReturned,
			RangeScans: st.RangeScans, Filtered: st.Filtered}
		for _, rel := range sel.Where {
			if r, ok := rel.(*ast.SingleColumnRelation); ok {
				switch r.Op {
				case ast.OpEq, ast.OpIn:
					as.EqualityColumns = append(as.EqualityColumns, r.Column.Name)
				case ast.OpLt, ast.OpLte, ast.OpGt, ast.OpGte:
					as.RangeColumns = append(as.RangeColumns, r.Column.Name)
				}
			}
		}
		byID[t.StorageID].Statements = append(byID[t.StorageID].Statements, as)
	}
	in := advisor.Input{Now: time.Now(), Limits: advisor.Limits{MaxRows: e.cfg.Split.MaxRows, MaxBytes: e.cfg.Split.MaxBytes,
		TombstoneWarn: int64(e.cfg.TombstoneWarnThreshold)}}
	for _, t := range byID {
		in.Tables = append(in.Tables, *t)
	}
	slices.SortFunc(in.Tables, func(a, b advisor.Table) int {
		return cmp.Or(strings.Compare(a.Keyspace, b.Keyspace), strings.Compare(a.Name, b.Name))
	})
	return advisor.Advise(in), nil
}

func adviseColumns(cs []*catalog.Column) []advisor.Column {
	out := make([]advisor.Column, len(cs))
	for i, c := range cs {
		out[i] = advisor.Column{Name: c.Name, Type: c.Type.String(), Desc: c.Desc}
	}
	return out
}

// clusteringTime decodes the first component of an encoded clustering key
// as a point in time, when its column is a timestamp, timeuuid or date.
func clusteringTime(c *catalog.Column, key []byte) (time.Time, bool) {
	v, _, err := types.DecodeKey(c.Type, key, c.Desc)
	if err != nil {
		return time.Time{}, false
	}
	switch c.Type.Kind {
	case types.KindTimestamp:
		if len(v) == 8 {
			return time.UnixMilli(int64(binary.BigEndian.Uint64(v))).UTC(), true
		}
	case types.KindTimeuuid:
		if ms, err := types.TimeUUIDTimestamp(v); err == nil {
			return time.UnixMilli(ms).UTC(), true
		}
	case types.KindDate:
		if len(v) == 4 {
			days := int64(binary.BigEndian.Uint32(v)) - 1<<31
			return time.Unix(days*86400, 0).UTC(), true
		}
	}
	return time.Time{}, false
}
