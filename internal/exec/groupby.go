package exec

import (
	"bytes"

	"github.com/partita-db/partita/internal/types"
)

// groupState is the GROUP BY bookkeeping of an aggregation.
type groupState struct {
	// lastPartition and lastClustering are the position of the open
	// group's last row, and lastPartRemaining the PER PARTITION LIMIT left
	// once it started: a page that ends after this group resumes there.
	lastPartition, lastClustering []byte
	lastPartRemaining             int64
	// fullPartition is the key of the partition whose PER PARTITION LIMIT
	// of groups is used up (nil: none).
	fullPartition []byte
	// postLimit is the LIMIT of post-ordered groups, applied after sorting
	// them; -1: none.
	postLimit int64
}

// addGrouped feeds one row to GROUP BY. A row whose group key differs from
// the open group's (a new partition always differs) closes that group and
// starts the next (db/aggregation/GroupMaker.java). LIMIT, PER PARTITION
// LIMIT and the page size count groups (db/filter/DataLimits.java
// CQLGroupByLimits): the limits as groups start, the page as they close,
// which is when the next group's first row arrives. So a page always ends
// on a group boundary: the next page resumes after the last row of its last
// group and starts a new group.
func (a *aggregation) addGrouped(r *selectRun, v *rowView) error {
	key, err := a.groupKeyOf(r, v)
	if err != nil {
		return err
	}
	if !a.inGroup || !a.sameGroup(a.groupKey, key) {
		if a.inGroup {
			if err := a.closeGroup(); err != nil {
				return err
			}
			if r.remaining == 0 {
				r.done = true // LIMIT groups have been returned
				return nil
			}
			if r.pageSize > 0 && len(a.rows) >= r.pageSize {
				g := &a.group
				r.hasMore, r.done = true, true
				r.lastPartition, r.lastClustering, r.lastPartRemaining = g.lastPartition, g.lastClustering, g.lastPartRemaining
				return nil
			}
		}
		if r.partRemaining == 0 {
			// PER PARTITION LIMIT groups of this partition have been
			// returned: skip the rest of it.
			a.group.fullPartition = append([]byte{}, v.pkKey...)
			return nil
		}
		if err := a.openGroup(r, v); err != nil {
			return err
		}
		a.groupKey = key
		if r.remaining > 0 {
			r.remaining--
		}
		if r.partRemaining > 0 {
			r.partRemaining--
		}
		a.group.lastPartRemaining = r.partRemaining
	}
	g := &a.group
	g.lastPartition = append(g.lastPartition[:0], v.pkKey...)
	g.lastClustering = nil
	if v.ckKey != nil {
		g.lastClustering = append([]byte{}, v.ckKey...)
	}
	r.partEmitted++
	return a.accumulate(r, v)
}

// partitionFull reports whether the rest of partition key may be skipped.
func (g *groupState) partitionFull(key []byte) bool {
	return g.fullPartition != nil && bytes.Equal(g.fullPartition, key)
}

// groupKeyOf returns the group of a row: its partition key and the first
// GroupByClustering clustering values, the last of them passed through the
// GROUP BY function when there is one (GroupMaker's SelectorGroupMaker). A
// partition's static-only row has only the partition key.
func (a *aggregation) groupKeyOf(r *selectRun, v *rowView) ([][]byte, error) {
	n := a.p.GroupByClustering
	key := append([][]byte(nil), v.pk...)
	if v.ck == nil {
		return key, nil
	}
	if f := a.p.GroupByFunc; f != nil {
		key = append(key, v.ck[:n-1]...)
		out, err := r.ev.selectValue(f, v)
		if err != nil {
			return nil, err
		}
		return append(key, out), nil
	}
	return append(key, v.ck[:min(n, len(v.ck))]...), nil
}

func (a *aggregation) sameGroup(x, y [][]byte) bool {
	if len(x) != len(y) {
		return false
	}
	t := a.p.Table
	for i := range x {
		var typ *types.Type
		switch {
		case i < len(t.PartitionKey):
			typ = t.PartitionKey[i].Type
		case a.p.GroupByFunc != nil && i == len(x)-1:
			typ = a.p.GroupByFunc.Type
		default:
			typ = t.Clustering[i-len(t.PartitionKey)].Type
		}
		if (x[i] == nil) != (y[i] == nil) || x[i] != nil && types.Compare(typ, x[i], y[i]) != 0 {
			return false
		}
	}
	return true
}
