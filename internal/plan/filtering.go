package plan

import (
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cqlerr"
)

// This file decides, for a SELECT, whether a secondary index is used, which
// one, and whether the query needs ALLOW FILTERING, as Cassandra 5.0 does
// (StatementRestrictions, IndexRestrictions.needsFiltering,
// SelectStatement.checkNeedsFiltering). Checked against a Cassandra 5.0.6
// node; the cases are in engine/testdata/indexes and restrictions.

// indexExpression is one expression of a restriction that an index can look
// up: the index, and the restriction reduced to that expression.
type indexExpression struct {
	index *catalog.Index
	expr  *Restriction
}

// supportingIndex returns an index that can look up an expression of r
// (CassandraIndex.supportsExpression): EQ on a plain or full() index,
// CONTAINS on a values() index, CONTAINS KEY on a keys() index, m[k] = v on
// an entries() index. IN, slices,
// token() and multi-column relations are never looked up, except a
// one-column tuple equality, (c) = (v), which is c = v.
func (w *where) supportingIndex(r *Restriction) (indexExpression, bool) {
	if r.OnToken || len(r.Columns) != 1 || r.Multi && r.Kind != RestrictEQ {
		return indexExpression{}, false
	}
	for _, ix := range w.table.Indexes {
		if ix.Column != r.first().Name {
			continue
		}
		switch {
		case r.Kind == RestrictEQ && (ix.Target == "" || ix.Target == "full"):
			return indexExpression{ix, r}, true
		case r.Kind == RestrictContains && ix.Target == "values" && len(r.Contains) > 0:
			one := &Restriction{Kind: RestrictContains, Columns: r.Columns, Contains: r.Contains[:1], Text: r.Text}
			return indexExpression{ix, one}, true
		case r.Kind == RestrictMapEQ && ix.Target == "entries":
			return indexExpression{ix, r}, true
		case r.Kind == RestrictContains && ix.Target == "entries" && len(r.Entries) > 0:
			one := &Restriction{Kind: RestrictMapEQ, Columns: r.Columns, MapKey: r.Entries[0].Key, Value: r.Entries[0].Value, Text: r.Text}
			return indexExpression{ix, one}, true
		case r.Kind == RestrictContains && ix.Target == "keys" && len(r.ContainsKey) > 0:
			one := &Restriction{Kind: RestrictContains, Columns: r.Columns, ContainsKey: r.ContainsKey[:1], Text: r.Text}
			return indexExpression{ix, one}, true
		}
	}
	return indexExpression{}, false
}

// servedAlone reports whether an index answers r without filtering: r is a
// single expression that index supports. Several CONTAINS on one column are
// several expressions (a legacy index does not filter multiple contains).
func (w *where) servedAlone(r *Restriction) bool {
	if _, ok := w.supportingIndex(r); !ok {
		return false
	}
	return r.Kind != RestrictContains || len(r.Contains)+len(r.ContainsKey)+len(r.Entries) == 1
}

// findSupportingIndexes sets hasQueriableIndex and hasClusteringIndex.
func (w *where) findSupportingIndexes() {
	for _, r := range w.clustering {
		if _, ok := w.supportingIndex(r); ok {
			w.hasClusteringIndex = true
		}
	}
	w.hasQueriableIndex = w.hasClusteringIndex
	for _, r := range w.pk {
		if _, ok := w.supportingIndex(r); ok {
			w.hasQueriableIndex = true
		}
	}
	for _, r := range w.nonPK {
		if _, ok := w.supportingIndex(r); ok {
			w.hasQueriableIndex = true
		}
	}
}

func (w *where) pkHasIN() bool {
	for _, r := range w.pk {
		if r.isIN() {
			return true
		}
	}
	return false
}

// validateIndexSelection is StatementRestrictions.validateSecondaryIndexSelections.
func (w *where) validateIndexSelection() error {
	if w.usesIndex && w.pkHasIN() {
		return cqlerr.Invalidf("Select on indexed columns and with IN clause for the PRIMARY KEY are not supported")
	}
	return nil
}

// checkNeedsFiltering is SelectStatement.checkNeedsFiltering: a range or
// index query must say ALLOW FILTERING unless one index answers every
// restriction of the row filter (IndexRestrictions.needsFiltering), or,
// with an empty row filter, unless no clustering column is restricted (a
// range query restricting clustering columns filters every partition).
func (w *where) checkNeedsFiltering() error {
	if w.allowFiltering || !(w.isKeyRange || w.usesIndex) {
		return nil
	}
	switch len(w.rowFilter) {
	case 0:
		if len(w.clustering) == 0 {
			return nil
		}
	case 1:
		if w.servedAlone(w.rowFilter[0]) {
			return nil
		}
	}
	return cqlerr.Invalidf(RequiresAllowFiltering)
}

// chooseIndex picks the index a query reads (IndexRegistry.getBestIndexFor
// over the row filter): any row-filter restriction an index supports,
// regular and static columns first. A query that uses indexes by
// Cassandra's rules but whose row filter no index supports (the full key
// restricted, an unindexed column filtered, another column indexed) reads
// its partitions and filters them.
func (w *where) chooseIndex() (indexExpression, bool) {
	if !w.usesIndex {
		return indexExpression{}, false
	}
	var best indexExpression
	rank := 3
	for _, r := range w.rowFilter {
		ie, ok := w.supportingIndex(r)
		if !ok {
			continue
		}
		rr := 0
		switch r.first().Kind {
		case catalog.Clustering:
			rr = 1
		case catalog.PartitionKey:
			rr = 2
		}
		if rr < rank {
			best, rank = ie, rr
		}
	}
	return best, rank < 3
}

// checkRowFilters refuses the restrictions a RowFilter cannot express
// (MultiColumnRestriction.SliceRestriction and INRestriction
// addToRowFilter); Cassandra refuses them when it builds the row filter,
// before reading anything.
func checkRowFilters(filters []*Restriction) error {
	for _, r := range filters {
		switch {
		case r.Multi && r.isSlice():
			return cqlerr.Invalidf("Multi-column slice restrictions cannot be used for filtering.")
		case r.Multi && r.isIN():
			return cqlerr.Invalidf("Multicolumn IN filters are not supported")
		}
	}
	return nil
}

// returnsStaticOnlyPartitions is
// StatementRestrictions.returnStaticContentOnPartitionWithNoRows: a
// partition with a static row and no clustering row gives one row (the
// static row, null elsewhere) unless the query restricts clustering or
// regular columns.
func (w *where) returnsStaticOnlyPartitions() bool {
	if len(w.clustering) > 0 {
		return false
	}
	for _, r := range w.nonPK {
		if r.first().Kind == catalog.Regular {
			return false
		}
	}
	return true
}
